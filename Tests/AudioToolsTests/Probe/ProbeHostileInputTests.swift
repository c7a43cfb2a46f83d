import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Hostile and broken inputs: every parser must return (with a problem or nothing), never trap,
/// hang or allocate by an untrusted size.
@Suite("Probe hostile inputs")
struct ProbeHostileInputTests {
    typealias F = ProbeFixture

    func facts(_ b: [UInt8]) throws -> ContainerFacts { try probeContainer(MemoryByteSource(b)) }

    @Test func zeroSizeBoxRunsToParentEnd() throws {
        // A zero-size mdat at the top level is legal (to end of file).
        let b = F.ftyp("M4A ") + F.box("moov", F.aacTrack) + F.be32(0) + F.fourcc("mdat") + [1, 2, 3, 4]
        let f = try facts(b)
        #expect(f.problem == nil && f.hasAudio == true)
        // A zero-size box inside moov swallows the rest of moov, nothing more.
        let inner = F.be32(0) + F.fourcc("free") + [UInt8](repeating: 0, count: 20)
        let g = try facts(F.ftyp("M4A ") + F.box("moov", F.aacTrack + inner) + F.box("mdat", [0]))
        #expect(g.problem == nil && g.hasAudio == true)
    }

    @Test func sizesThatOverflow() throws {
        // 64-bit largesize near UInt64.max: offset + size overflows.
        let huge = F.be32(1) + F.fourcc("moov") + F.be64(UInt64.max - 3)
        let f = try facts(F.ftyp("M4A ") + huge + [UInt8](repeating: 0, count: 16))
        #expect(f.problem == .malformed("a box size is too large to be real"))
        // Largesize smaller than the 16-byte header.
        let small = F.be32(1) + F.fourcc("moov") + F.be64(9)
        #expect(try facts(F.ftyp("M4A ") + small).problem == .malformed("a box is smaller than its own header"))
        // 32-bit sizes 1...7 (other than 1) are impossible.
        for s: UInt32 in [2, 5, 7] {
            #expect(try facts(F.ftyp("M4A ") + F.be32(s) + F.fourcc("moov") + [0, 0, 0, 0]).problem
                    == .malformed("a box is smaller than its own header"))
        }
        // A largesize header cut off by the end of the file.
        #expect(try facts(F.ftyp("M4A ") + F.be32(1) + F.fourcc("moov") + [0, 0]).problem
                == .malformed("a box's 64-bit size is cut off"))
    }

    @Test func boxLargerThanFileIsNotReadWhole() throws {
        // moov claims 3 GB; the probe must report, not try to read it.
        let b = F.ftyp("M4A ") + F.be32(3_000_000_000) + F.fourcc("moov") + F.aacTrack
        let src = ProbeCountingSource(b)
        let f = try probeContainer(src)
        #expect(f.problem == .truncated("the file ends partway through its “moov” box"))
        #expect(src.bytesRead <= b.count)
        // Garbage type bytes make it malformed rather than cut off.
        let g = try facts(F.ftyp("M4A ") + F.be32(3_000_000_000) + [0x01, 0x02, 0x03, 0x04] + [0, 0, 0, 0])
        #expect(g.problem == .malformed("a box claims more bytes than the file holds"))
    }

    @Test func depthBomb() throws {
        // 200 nested udta/meta-less containers inside trak → mdia → minf ...: the walker only
        // descends known paths, so build the bomb from boxes it does descend: sinf inside sinf.
        var inner = F.box("frma", F.fourcc("mp4a"))
        for _ in 0..<200 { inner = F.box("sinf", inner) }
        let entry = F.audioEntry("enca", children: inner)
        let f = try facts(F.mp4(brand: "isom", moov: F.trak(handler: "soun", entry: entry)))
        #expect(f.problem == .malformed("its boxes are nested deeper than any real media file"))
    }

    @Test func boxCountBomb() throws {
        // 120k empty free boxes inside moov: more than any real file.
        let one = F.box("free")
        var moov = [UInt8]()
        moov.reserveCapacity(one.count * 120_000)
        for _ in 0..<120_000 { moov += one }
        let f = try facts(F.ftyp("M4A ") + F.box("moov", moov))
        #expect(f.problem == .malformed("it holds more boxes than any real media file would"))
    }

    @Test func quickTimeTerminatorAndTrailingPadding() throws {
        // udta ends with a 32-bit zero (QuickTime) and the file ends with 3 stray bytes.
        let udta = F.box("udta", F.box("©nam", F.be16(2) + F.be16(0) + F.ascii("Hi")) + [0, 0, 0, 0])
        let f = try facts(F.ftyp("qt  ") + F.box("moov", F.aacTrack + udta) + F.box("mdat", [0]) + [0, 0, 0])
        #expect(f.problem == nil)
        #expect(f.tags.title == "Hi")
    }

    @Test func stsdWithHostileEntry() throws {
        // Sample entry claims to be bigger than stsd; esds descriptor lengths point past the box.
        let overlong = F.fullBox("stsd", F.be32(1) + F.be32(5000) + F.fourcc("mp4a") + [0, 0, 0, 0])
        let hdlr = F.fullBox("hdlr", F.be32(0) + F.fourcc("soun") + [UInt8](repeating: 0, count: 13))
        let trak = F.box("trak", F.box("mdia", hdlr + F.box("minf", F.box("stbl", overlong))))
        let f = try facts(F.mp4(brand: "M4A ", moov: trak))
        #expect(f.problem == .malformed("a box claims more bytes than the box around it holds"))
        let badEsds = F.fullBox("esds", [3, 0xFF, 0xFF, 0xFF, 0x7F, 0, 1, 0xE0, 4, 0x80])
        let g = try facts(F.mp4(brand: "M4A ", moov: F.trak(handler: "soun", entry: F.audioEntry("mp4a", children: badEsds))))
        #expect(g.problem == nil)
        #expect(g.audio?.sampleRate == 44100)  // falls back to the sample entry's own rate
    }

    @Test func id3SizesPastEOF() throws {
        // Tag claims 200 MB; frame claims more than the tag.
        let hostileTag = F.ascii("ID3") + [3, 0, 0] + [0x7F, 0x7F, 0x7F, 0x7F]
            + F.ascii("TIT2") + F.be32(0x7FFF_FFFF) + [0, 0] + [0, 0x41]
        let src = ProbeCountingSource(hostileTag)
        let tag = try #require(try readID3v2(src))
        #expect(tag.totalSize == 10 + 0x0FFF_FFFF)
        #expect(tag.tags.isEmpty)
        #expect(src.bytesRead <= hostileTag.count)
        let f = try facts(hostileTag)
        #expect(f.kind == .mp3)
        #expect(f.problem == .truncated("the file ends inside its ID3 tag, before any audio"))
        #expect(ProbeVerdicts.refusal(for: f, path: "a.mp3")?.toolError(path: "a.mp3").code == .truncated)
        // Bytes ≥ 0x80 in a syncsafe size: not an ID3 tag.
        #expect(try readID3v2(MemoryByteSource(F.ascii("ID3") + [3, 0, 0, 0x80, 0, 0, 0]))  == nil)
        // Unsynchronised tag claiming far more than the file: bounded read, no crash.
        let unsync = F.ascii("ID3") + [3, 0, 0x80] + [0x7F, 0x7F, 0x7F, 0x7F] + [UInt8](repeating: 0xFF, count: 64)
        #expect(try readID3v2(MemoryByteSource(unsync))?.tags.isEmpty == true)
        // Extended header size pointing past everything.
        let ext = F.ascii("ID3") + [3, 0, 0x40] + F.syncsafe(8) + F.be32(0xFFFF_FFF0) + [0, 0, 0, 0]
        #expect(try readID3v2(MemoryByteSource(ext))?.tags.isEmpty == true)
    }

    @Test func chainedID3TagsAreBounded() throws {
        // Many empty tags in a row: the sniffer hops at most 8 and still answers.
        let empty = F.id3Tag(version: 3, [])
        let b = Array([[UInt8]](repeating: empty, count: 50).joined()) + F.mp3Frames(2)
        let s = try sniffContainer(MemoryByteSource(b))
        #expect(s.kind == .mp3)
    }

    @Test func hostileVorbisAndRiffLengths() throws {
        #expect(VorbisComment.parse(F.le32(0xFFFF_FFFF) + [1, 2, 3]) == nil)
        let c = F.le32(1) + F.ascii("v") + F.le32(0xFFFF_FFFF) + F.le32(0xFFFF_FFF0) + F.ascii("TITLE=x")
        #expect(VorbisComment.parse(c)?.fields.isEmpty == true)
        let info = F.ascii("INAM") + F.le32(0xFFFF_FFFF) + F.ascii("x")
        #expect(ProbeChunkReaders.riffInfo(info[...]).isEmpty)
        // WAV chunk sizes at the 32-bit limit: the walk ends without trapping.
        let body = F.ascii("WAVE") + F.ascii("junk") + F.le32(0xFFFF_FFFF) + [0, 0, 0, 0]
        let f = try facts(F.ascii("RIFF") + F.le32(0xFFFF_FFFF) + body)
        #expect(f.problem == .malformed("it has no format chunk saying how its audio is stored"))
        // FLAC metadata block claiming more than the file.
        let flac = F.ascii("fLaC") + [0x84, 0xFF, 0xFF, 0xFF] + [1, 2, 3]
        #expect(try facts(flac).problem == .truncated("the file ends inside its FLAC metadata"))
    }

    @Test func oggPagesAreBounded() throws {
        // A page whose lacing says 255×255 bytes but holds 10: short read, no crash.
        let page = F.ascii("OggS") + [0, 2] + [UInt8](repeating: 0, count: 20) + [255] + [UInt8](repeating: 255, count: 255)
            + F.ascii("OpusHead") + [1, 2]
        let f = try facts(page)
        #expect(f.kind == .ogg(.opus))
    }

    @Test func ebmlHostileSizes() throws {
        // EBML header with an 8-byte size of all ones (unknown) and a Segment of max size.
        let b: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                          0x18, 0x53, 0x80, 0x67, 0x01, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let f = try facts(b)
        #expect(f.kind == .matroska)
        // A vint whose first byte is zero (length > 8) is rejected.
        #expect(MatroskaReader.vint([0, 1, 2], 0, keepMarker: false) == nil)
    }

    /// Inputs the fuzzers found that once trapped, kept byte for byte.
    @Test func fuzzerRegressions() throws {
        // ProbeFuzz: a Matroska Audio element whose child header ran past the element's end
        // (negative remaining length converted to UInt64).
        let ebmlChildPastParent: [UInt8] = [
            0x1a, 0x45, 0xdf, 0xa3, 0x87, 0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d, 0x18, 0x53, 0x80, 0x67,
            0x97, 0x16, 0x54, 0xae, 0x6b, 0x22, 0x00, 0x92, 0xae, 0x92, 0x83, 0x81, 0x02, 0x86, 0x86, 0x41,
            0x5f, 0x4f, 0x50, 0x55, 0x53, 0xe1, 0x83, 0x41, 0x9f, 0x52, 0x49, 0x46, 0x46, 0x52, 0x00, 0x00,
            0x00, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20, 0x10, 0x00, 0x52, 0x01, 0x06, 0x00, 0x75,
            0x81, 0x00, 0x00, 0x28, 0x20, 0x75, 0x75, 0x02, 0x75, 0x75, 0x75,
        ]
        let f = try facts(ebmlChildPastParent)
        #expect(f.kind == .webm)
        #expect(f.hasAudio == true)
    }

    @Test func randomMutationsOfValidFilesNeverTrap() throws {
        // Deterministic mutation sweep over each fixture: flip bytes, truncate, splice sizes.
        let fixtures: [[UInt8]] = [
            F.mp4(brand: "M4A ", moov: F.aacTrack + F.udtaTags(F.ilstItem("©nam", text: "T"))),
            F.mp4(brand: "M4P ", moov: F.trak(handler: "soun", entry: F.audioEntry("drms", children: F.esds() + F.sinf(original: "mp4a", scheme: "itun")))),
            F.id3Tag(version: 3, F.id3Frame(version: 3, "TIT2", F.id3Text("abc", encoding: 1))) + F.mp3Frames(2),
            F.flac(comment: F.vorbisComment(vendor: "v", ["TITLE=a"])),
            F.wav(frames: 4, extra: F.riffChunk("LIST", F.ascii("INFO") + F.riffChunk("INAM", F.ascii("a")))),
        ]
        var rng = SplitMix64(seed: 42)
        for base in fixtures {
            for _ in 0..<300 {
                var b = base
                let edits = 1 + Int(rng.next() % 4)
                for _ in 0..<edits {
                    let i = Int(rng.next() % UInt64(b.count))
                    switch rng.next() % 3 {
                    case 0: b[i] = UInt8(truncatingIfNeeded: rng.next())
                    case 1: b[i] = 0xFF
                    default: b[i] = 0
                    }
                }
                if rng.next() % 4 == 0 { b.removeLast(Int(rng.next() % UInt64(b.count))) }
                let f = try facts(b)
                _ = ProbeVerdicts.refusal(for: f, path: "m.bin")?.toolError(path: "m.bin")
                #expect(f.bytesRead <= UInt64(b.count))
            }
        }
    }
}

@Suite("Probe byte sources")
struct ProbeByteSourceTests {
    @Test func memoryShortReads() throws {
        let m = MemoryByteSource([1, 2, 3, 4, 5])
        #expect(try m.read(at: 3, count: 10) == [4, 5])
        #expect(try m.read(at: 5, count: 1) == [])
        #expect(try m.read(at: UInt64.max, count: 4) == [])
        #expect(try m.read(at: 0, count: 0) == [])
        #expect(try m.read(at: 0, count: -3) == [])
    }

    @Test func fileSourceReadsAndErrors() throws {
        let dir = try ProbeTestFS.makeTempDir()
        defer { ProbeTestFS.removeTree(dir) }
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try ProbeTestFS.write(dir + "/a.bin", bytes)
        let src = try FileByteSource(path: dir + "/a.bin")
        #expect(src.size == 10_000)
        #expect(try src.read(at: 9_998, count: 100) == [bytes[9_998], bytes[9_999]])
        #expect(try src.read(at: 4096, count: 3) == Array(bytes[4096..<4099]))
        #expect(try src.read(at: 20_000, count: 3) == [])

        #expect(throws: FileAccessError(dir + "/missing.wav", .openMissing)) { try FileByteSource(path: dir + "/missing.wav") }
        do { _ = try FileByteSource(path: dir + "/missing.wav") } catch let e as FileAccessError {
            let t = e.toolError(path: dir + "/missing.wav")
            #expect(t.code == .notFound)
            #expect(t.message == "“missing.wav” doesn't exist.")
        }
        #expect(throws: FileAccessError(dir, .openNotRegular(folder: true))) { try FileByteSource(path: dir) }
        do { _ = try FileByteSource(path: dir) } catch let e as FileAccessError {
            #expect(e.toolError(path: dir).code == .notAFile)
        }
    }
}
