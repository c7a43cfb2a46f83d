import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite("Probe verdicts")
struct ProbeVerdictTests {
    typealias F = ProbeFixture

    func verdict(_ b: [UInt8], _ path: String) throws -> ToolError? {
        ProbeVerdicts.refusal(for: try probeContainer(MemoryByteSource(b)), path: path)?.toolError(path: path)
    }

    @Test func nonAudioSaysWhatItIs() throws {
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 32)
        #expect(try verdict(png, "/covers/cover.mp3")
                == ToolError(.unrecognised, "“cover.mp3” is a PNG image, not audio.",
                             suggestion: "Pick a music or voice file — images, documents and playlists won't work here."))
        #expect(try verdict(F.ascii("%PDF-1.4\n"), "score.wav")?.message == "“score.wav” is a PDF document, not audio.")
        #expect(try verdict(F.ascii("#EXTM3U\nsong.mp3\n"), "mix.m3u")
                == ToolError(.unrecognised, "“mix.m3u” is a playlist, not audio.",
                             suggestion: "Pick one of the audio files it lists instead."))
        #expect(try verdict(F.ascii("FILE \"a.flac\" WAVE\nTRACK 01 AUDIO\n"), "album.cue")?.message
                == "“album.cue” is a cue sheet, not audio.")
        #expect(try verdict(F.ascii("PK\u{3}\u{4}") + [UInt8](repeating: 0, count: 40), "songs.zip")?.suggestion
                == "Unpack it first and pick an audio file from inside.")
    }

    @Test func unknownBytes() throws {
        let v = try verdict([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0xAA, 0xBB], "mystery.bin")
        #expect(v == ToolError(.unrecognised, "“mystery.bin” isn't in any audio format this tool recognises.",
                               suggestion: DecodeError.whatWorks))
        // The suggestion names what really works, MKV and WMA among them (with ffmpeg installed).
        if FFmpegSource.isAvailable { #expect(v?.suggestion.contains("MKV") == true && v?.suggestion.contains("WMA") == true) }
    }

    @Test func midiIsNotRecordedSound() throws {
        let v = try verdict(F.ascii("MThd") + F.be32(6) + [0, 1, 0, 1, 0, 96], "tune.mid")
        #expect(v?.code == .noAudio)
        #expect(v?.message == "“tune.mid” is a MIDI file: it holds notes, not recorded sound.")
    }

    @Test func emptyAndCloudPlaceholders() throws {
        // Zero bytes is empty, whatever the name: cloud-only needs evidence. With an audio name the
        // suggestion says it may be a placeholder a sync client hasn't filled in.
        #expect(try verdict([], "/Music/song.m4a")
                == ToolError(.empty, "“song.m4a” is empty: it holds no data at all.",
                             suggestion: ProbeVerdicts.emptyAudioSuggestion))
        #expect(try verdict([], "notes")?.suggestion == "Pick the original recording or export it again — this copy has nothing in it.")
        #expect(try verdict([], "notes")?.code == .empty)
        #expect(try verdict([], "notes")?.message == "“notes” is empty: it holds no data at all.")
        // iCloud's hidden stub names the real file.
        #expect(ProbeVerdicts.iCloudPlaceholderName("/a/.Take 1.wav.icloud") == "Take 1.wav")
        #expect(ProbeVerdicts.iCloudPlaceholderName("/a/song.wav") == nil)
        #expect(ProbeVerdicts.iCloudPlaceholderName(".icloud") == nil)
        let stub = try verdict(F.ascii("bplist00") + [UInt8](repeating: 0, count: 30), "/a/.Take 1.wav.icloud")
        #expect(stub?.code == .cloudOnly)
        #expect(stub?.message == "“Take 1.wav” is a cloud-only placeholder: the audio isn't on this computer.")
        #expect(ProbeVerdicts.cloudOnly(path: "a.wav", size: 12)?.toolError(path: "a.wav") == nil)
        #expect(ProbeVerdicts.cloudOnly(path: "a.WAV", size: 0)?.toolError(path: "a.WAV") == nil)
    }

    @Test func malformedNamesTheFault() throws {
        // moov claims 4 GB more than there is: top-level, but the type is readable → truncated;
        // a nested box overrunning its parent → malformed.
        let hdlr = F.fullBox("hdlr", F.be32(0) + F.fourcc("soun") + [UInt8](repeating: 0, count: 13))
        let badChild = F.be32(1000) + F.fourcc("mdia") + hdlr
        let b = F.ftyp("M4A ") + F.box("moov", F.box("trak", badChild))
        let v = try verdict(b, "song.m4a")
        #expect(v == ToolError(.malformed, "“song.m4a” is damaged: a box claims more bytes than the box around it holds.",
                               suggestion: "Pick an undamaged copy, or export it again from the app that made it."))
    }

    @Test func messagesNeverSayTryAgain() throws {
        var all: [ToolError] = []
        for f in [ContainerKind.png, .jpeg, .gif, .bmp, .webp, .tiff, .pdf, .zip(.plain), .zip(.officeDocument), .gzip,
                  .text(.plain), .text(.playlist), .text(.cueSheet), .xml, .html, .unknown, .midi] {
            var facts = ContainerFacts(kind: f, container: f.name, fileSize: 10)
            facts.hasAudio = false
            all.append(try #require(ProbeVerdicts.refusal(for: facts, path: "x")?.toolError(path: "x")))
        }
        for s in ["itun", "cenc", "audible"] {
            var facts = ContainerFacts(kind: .isoMedia, container: "mp4", fileSize: 10)
            facts.protection = Protection(scheme: s)
            all.append(try #require(ProbeVerdicts.refusal(for: facts, path: "x")?.toolError(path: "x")))
        }
        for e in all {
            #expect(!e.description.lowercased().contains("try again"))
            #expect(e.message.hasPrefix("“x”"))
            #expect(e.message.hasSuffix(".") && e.suggestion.hasSuffix("."))
        }
    }

    @Test func usableAudioHasNoVerdict() throws {
        #expect(try verdict(F.wav(), "a.wav") == nil)
        #expect(try verdict(F.flac(comment: nil), "a.flac") == nil)
        #expect(try verdict(F.mp3Frames(3), "a.mp3") == nil)
        #expect(try verdict(F.mp4(brand: "M4A ", moov: F.aacTrack), "a.m4a") == nil)
    }
}

@Suite("Probe ASF")
struct ProbeASFTests {
    typealias F = ProbeFixture

    static func object(_ guid: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        let size = UInt64(24 + payload.count)
        return guid + (0..<8).map { UInt8(truncatingIfNeeded: size >> (8 * UInt64($0))) } + payload
    }

    static func asf(_ objects: [[UInt8]]) -> [UInt8] {
        let body = objects.joined()
        let size = UInt64(30 + body.count)
        return ProbeSniffer.asfHeaderGUID + (0..<8).map { UInt8(truncatingIfNeeded: size >> (8 * UInt64($0))) }
            + F.le32(objects.count) + [1, 2] + body + [UInt8](repeating: 0, count: 50)
    }

    static func stream(_ type: [UInt8]) -> [UInt8] {
        var wfx: [UInt8] = F.le16(0x161) + F.le16(2) + F.le32(44100)
        wfx += F.le32(16000) + F.le16(4) + F.le16(16) + F.le16(0)
        var body: [UInt8] = type + [UInt8](repeating: 0, count: 24)
        body += F.le32(wfx.count) + F.le32(0) + F.le16(1) + F.le32(0)
        return object(ProbeASFReader.streamProperties, body + wfx)
    }

    @Test func guidByteOrderMatchesTheHeaderMagic() {
        #expect(ProbeASFReader.guid("75B22630-668E-11CF-A6D9-00AA0062CE6C") == ProbeSniffer.asfHeaderGUID)
    }

    @Test func wmaStreamsTagsAndDRM() throws {
        func utf16le(_ s: String) -> [UInt8] {
            var out: [UInt8] = []
            for u in s.utf16 { out.append(UInt8(u & 0xFF)); out.append(UInt8(u >> 8)) }
            return out + [0, 0]
        }
        let title = utf16le("Song")
        let author = utf16le("Band")
        var descBody: [UInt8] = F.le16(title.count) + F.le16(author.count)
        descBody += F.le16(0) + F.le16(0) + F.le16(0)
        descBody += title + author
        let desc = Self.object(ProbeASFReader.contentDescription, descBody)
        let f = try probeContainer(MemoryByteSource(Self.asf([desc, Self.stream(ProbeASFReader.audioMedia)])))
        #expect(f.kind == .asf && f.hasAudio == true && f.hasVideo == false)
        #expect(f.codec == "wmav2" && f.audio?.sampleRate == 44100 && f.audio?.channels == 2)
        #expect(f.tags.title == "Song" && f.tags.artist == "Band")
        #expect(ProbeVerdicts.refusal(for: f, path: "a.wma")?.toolError(path: "a.wma") == nil)

        let drm = Self.object(ProbeASFReader.drmObjects[1], [0, 0, 0, 0])
        let g = try probeContainer(MemoryByteSource(Self.asf([Self.stream(ProbeASFReader.audioMedia), drm])))
        #expect(g.protection?.scheme == "wmdrm")
        #expect(ProbeVerdicts.refusal(for: g, path: "a.wma")?.toolError(path: "a.wma").message == "“a.wma” is protected with Windows Media DRM and can't be exported.")

        let video = try probeContainer(MemoryByteSource(Self.asf([Self.stream(ProbeASFReader.videoMedia)])))
        #expect(video.hasAudio == false && video.hasVideo == true)
        #expect(ProbeVerdicts.refusal(for: video, path: "clip.wmv")?.toolError(path: "clip.wmv").code == .noAudio)
    }

    @Test func hostileObjectSize() throws {
        let bad = ProbeASFReader.streamProperties + F.le32(5) + F.le32(0) + [UInt8](repeating: 0, count: 10)
        let f = try probeContainer(MemoryByteSource(Self.asf([bad])))
        #expect(f.problem == .malformed("an ASF header object has an impossible size"))
    }
}
