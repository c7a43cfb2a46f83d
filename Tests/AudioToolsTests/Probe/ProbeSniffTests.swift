import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite("Probe sniffing")
struct ProbeSniffTests {
    typealias F = ProbeFixture

    func kind(_ b: [UInt8]) throws -> ContainerKind { try sniffContainer(MemoryByteSource(b)).kind }

    @Test func audioContainersFromMagic() throws {
        let pad = [UInt8](repeating: 0, count: 64)
        #expect(try kind(F.wav()) == .wav)
        #expect(try kind(F.ascii("RF64") + F.le32(-1 & 0xFFFF_FFFF) + F.ascii("WAVE") + pad) == .rf64)
        #expect(try kind(F.ascii("BW64") + F.le32(0) + F.ascii("WAVE") + pad) == .rf64)
        #expect(try kind(ProbeSniffer.w64RiffGUID + F.le32(0) + F.le32(0) + ProbeSniffer.w64WaveGUID + pad) == .w64)
        #expect(try kind(F.ascii("FORM") + F.be32(4) + F.ascii("AIFF") + pad) == .aiff)
        #expect(try kind(F.ascii("FORM") + F.be32(4) + F.ascii("AIFC") + pad) == .aifc)
        #expect(try kind(F.flac(comment: nil)) == .flac)
        #expect(try kind(F.ascii("caff") + [0, 1, 0, 0] + pad) == .caf)
        #expect(try kind(F.mp4(brand: "M4A ", moov: F.aacTrack)) == .isoMedia)
        #expect(try kind(F.ascii("MThd") + F.be32(6) + pad) == .midi)
        #expect(try kind(F.ascii("RIFF") + F.le32(4) + F.ascii("RMID") + pad) == .midi)
        #expect(try kind(ProbeSniffer.asfHeaderGUID + pad) == .asf)
        #expect(try kind(F.ascii("RIFF") + F.le32(4) + F.ascii("AVI ") + pad) == .avi)
    }

    @Test func audibleAAMagicAtOffsetFour() throws {
        let aa = F.be32(1000) + [0x57, 0x90, 0x75, 0x36] + [UInt8](repeating: 0, count: 32)
        #expect(try kind(aa) == .audibleAA)
        let facts = try probeContainer(MemoryByteSource(aa))
        #expect(facts.protection?.scheme == "audible")
        // The same magic at offset 0 is not an .aa file.
        #expect(try kind([0x57, 0x90, 0x75, 0x36] + [UInt8](repeating: 0, count: 32)) != .audibleAA)
    }

    @Test func oldQuickTimeWithoutFtyp() throws {
        for first in ["moov", "mdat", "wide", "free"] {
            let b = F.box(first, [UInt8](repeating: 0, count: 8)) + F.box("moov", F.aacTrack)
            #expect(try kind(b) == .isoMedia, "\(first)")
        }
        let facts = try probeContainer(MemoryByteSource(F.mp4(brand: nil, moov: F.aacTrack, mdatFirst: true)))
        #expect(facts.container == "mov")
        #expect(facts.hasAudio == true)
    }

    @Test func oggCodecFromFirstPage() throws {
        let cases: [([UInt8], ContainerKind.OggCodec)] = [
            ([1] + F.ascii("vorbis") + [UInt8](repeating: 0, count: 23), .vorbis),
            (F.ascii("OpusHead") + [1, 2, 0, 0] + F.le32(48000) + [0, 0, 0], .opus),
            ([0x7F] + F.ascii("FLAC") + [1, 0, 0, 1], .flac),
            (F.ascii("Speex   ") + [UInt8](repeating: 0, count: 72), .speex),
            ([0x80] + F.ascii("theora") + [UInt8](repeating: 0, count: 30), .theora),
            (F.ascii("whatever"), .unknown),
        ]
        for (packet, codec) in cases {
            #expect(try kind(F.oggPage(sequence: 0, packet, flags: 2)) == .ogg(codec))
        }
    }

    @Test func ebmlDocType() throws {
        func ebml(_ doc: String) -> [UInt8] {
            let dt: [UInt8] = [0x42, 0x82, 0x80 | UInt8(doc.count)] + F.ascii(doc)
            return [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(dt.count)] + dt
        }
        #expect(try kind(ebml("webm")) == .webm)
        #expect(try kind(ebml("matroska")) == .matroska)
    }

    @Test func mp3WithID3AndWithoutNeedsTwoFrames() throws {
        let tagged = try sniffContainer(MemoryByteSource(F.id3Tag(version: 3, [], padding: 100) + F.mp3Frames(2)))
        #expect(tagged.kind == .mp3)
        #expect(tagged.leadingTagBytes == 110)
        #expect(tagged.firstFrameOffset == 110)
        #expect(try kind(F.mp3Frames(3)) == .mp3)
        // One frame header followed by junk is not enough evidence without a tag.
        #expect(try kind(Array(F.mp3Frames(1).prefix(417)) + [UInt8](repeating: 0x41, count: 600)) != .mp3)
        // A frame header with the reserved version bits is rejected.
        var bad = F.mp3Frames(3)
        bad[1] = 0xEB
        #expect(try kind(bad) != .mp3)
        // FLAC hiding behind an ID3 tag.
        #expect(try kind(F.id3Tag(version: 4, []) + F.flac(comment: nil)) == .flac)
    }

    @Test func mpegHeaderArithmetic() {
        let h = ProbeMPEGHeader([0xFF, 0xFB, 0x90, 0x64], at: 0)
        #expect(h == ProbeMPEGHeader(version: 1, layer: 3, bitrateKbps: 128, sampleRate: 44100, channels: 2, frameLength: 417))
        // MPEG-2 Layer III, 64 kb/s, 22.05 kHz, padded, mono: 72*64000/22050 + 1 = 209.
        let h2 = ProbeMPEGHeader([0xFF, 0xF3, 0x82, 0xC4], at: 0)
        #expect(h2?.frameLength == 209)
        #expect(h2?.sampleRate == 22050)
        #expect(h2?.channels == 1)
        #expect(ProbeMPEGHeader([0xFF, 0xFB, 0xF0, 0x64], at: 0) == nil)  // bitrate index 15
        #expect(ProbeMPEGHeader([0xFF, 0xFB, 0x9C, 0x64], at: 0) == nil)  // rate index 3
    }

    @Test func mp3Duration() throws {
        // CBR: 100 frames × 417 bytes at 128 kb/s = 41700 × 8 / 128000 s.
        let cbr = try probeContainer(MemoryByteSource(F.mp3Frames(100)))
        #expect(cbr.audio?.duration == 41700.0 * 8 / 128000)
        // Xing header in the first frame (MPEG-1 stereo: after 4 + 32 bytes) says 5000 frames.
        var first = F.mp3Frames(1)
        first.replaceSubrange(36..<48, with: F.ascii("Xing") + F.be32(1) + F.be32(5000))
        let vbr = try probeContainer(MemoryByteSource(first + F.mp3Frames(3)))
        #expect(vbr.audio?.duration == 5000.0 * 1152 / 44100)
    }

    @Test func adtsStream() throws {
        // AAC LC, 44.1 kHz (index 4), stereo, 20-byte frames.
        func frame() -> [UInt8] {
            let len = 20
            return [0xFF, 0xF1, 0x50, 0x80 | UInt8(len >> 11), UInt8(len >> 3 & 0xFF), UInt8((len & 7) << 5 | 0x1F), 0xFC]
                + [UInt8](repeating: 0, count: len - 7)
        }
        let facts = try probeContainer(MemoryByteSource(frame() + frame() + frame()))
        #expect(facts.kind == .adts)
        #expect(facts.codec == "aac")
        #expect(facts.audio?.sampleRate == 44100)
        #expect(facts.audio?.channels == 2)
    }

    @Test func nonAudioKinds() throws {
        let pad = [UInt8](repeating: 0, count: 64)
        #expect(try kind([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pad) == .png)
        #expect(try kind([0xFF, 0xD8, 0xFF, 0xE0] + pad) == .jpeg)
        #expect(try kind(F.ascii("GIF89a") + pad) == .gif)
        let bmp = F.ascii("BM") + F.le32(80) + F.le32(0) + F.le32(54) + [UInt8](repeating: 0, count: 66)
        #expect(try kind(bmp) == .bmp)
        #expect(try kind(F.ascii("RIFF") + F.le32(4) + F.ascii("WEBP") + pad) == .webp)
        #expect(try kind(F.ascii("II*\u{0}") + pad) == .tiff)
        #expect(try kind(F.ascii("MM\u{0}*") + pad) == .tiff)
        #expect(try kind(F.ascii("%PDF-1.7\n") + pad) == .pdf)
        #expect(try kind([0x1F, 0x8B, 0x08, 0] + pad) == .gzip)
        func zip(_ name: String, data: String = "") -> [UInt8] {
            F.ascii("PK") + [3, 4] + [UInt8](repeating: 0, count: 22) + F.le16(name.utf8.count) + F.le16(0)
                + F.ascii(name) + F.ascii(data)
        }
        #expect(try kind(zip("[Content_Types].xml")) == .zip(.officeDocument))
        #expect(try kind(zip("mimetype", data: "application/epub+zip")) == .zip(.epub))
        #expect(try kind(zip("mimetype", data: "application/vnd.oasis.opendocument.text")) == .zip(.openDocument))
        #expect(try kind(zip("photos/a.jpg")) == .zip(.plain))
    }

    @Test func textFlavours() throws {
        #expect(try kind(F.ascii("#EXTM3U\n#EXTINF:123,A - B\nmusic/a.mp3\n")) == .text(.playlist))
        #expect(try kind(F.ascii("music/a.mp3\r\nmusic/b.flac\r\n")) == .text(.playlist))
        #expect(try kind(F.ascii("REM GENRE Rock\nFILE \"album.flac\" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 00:00:00\n")) == .text(.cueSheet))
        #expect(try kind(F.ascii("Shopping list: eggs, café\n")) == .text(.plain))
        #expect(try kind([0xEF, 0xBB, 0xBF] + F.ascii("Notes\n")) == .text(.plain))
        #expect(try kind([0xFF, 0xFE] + "Hi there\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) == .text(.plain))
        #expect(try kind(F.ascii("<?xml version=\"1.0\"?><plist></plist>")) == .xml)
        #expect(try kind(F.ascii("<!DOCTYPE html><html><body></body></html>")) == .html)
        // Binary with NULs or stray control bytes is not text.
        #expect(try kind([0x41, 0x00, 0x42, 0x43]) == .unknown)
        #expect(try kind([UInt8](repeating: 0x01, count: 20) + F.ascii("abc")) == .unknown)
        // Invalid UTF-8 is not text.
        #expect(try kind([0x41, 0xC3, 0x28, 0x41]) == .unknown)
    }

    @Test func utf8CutAtWindowEdgeIsStillText() throws {
        // 4095 ASCII bytes then a two-byte character straddling the 4 KiB window.
        let b = [UInt8](repeating: 0x61, count: 4095) + F.ascii("é") + F.ascii("\n")
        #expect(try kind(b) == .text(.plain))
    }

    @Test func emptyAndUnknown() throws {
        #expect(try kind([]) == .empty)
        var rng = SplitMix64(seed: 7)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        #expect(try kind(noise) == .unknown)
    }

    @Test func sniffReadsOnlyTheHead() throws {
        let big = F.wav(frames: 200_000)  // ~800 KB
        let src = ProbeCountingSource(big)
        _ = try sniffContainer(src)
        #expect(src.bytesRead <= 4096)
    }
}
