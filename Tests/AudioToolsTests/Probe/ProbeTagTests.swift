import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite("Probe tags")
struct ProbeTagTests {
    typealias F = ProbeFixture

    func id3(_ b: [UInt8]) throws -> ID3v2Tag? { try readID3v2(MemoryByteSource(b)) }

    @Test(arguments: [3, 4])
    func id3EachEncoding(version: Int) throws {
        // Each text frame in a different encoding, with non-ASCII text where the encoding allows.
        let frames = F.id3Frame(version: version, "TIT2", F.id3Text("Für Elise", encoding: 0))
            + F.id3Frame(version: version, "TPE1", F.id3Text("Beethoven 𝄞", encoding: 1))
            + F.id3Frame(version: version, "TALB", F.id3Text("Bagatellen ü", encoding: 2))
            + F.id3Frame(version: version, "TCON", F.id3Text("(32)", encoding: 0))
            + F.id3Frame(version: version, version == 3 ? "TYER" : "TDRC", F.id3Text("1810", encoding: 3))
            + F.id3Frame(version: version, "TRCK", F.id3Text("5/12", encoding: 3))
            + F.id3Frame(version: version, "APIC", [UInt8](repeating: 0x55, count: 5000))
        let tag = try #require(try id3(F.id3Tag(version: version, frames, padding: 256) + F.mp3Frames(2)))
        #expect(tag.version == version)
        #expect(tag.totalSize == UInt64(10 + frames.count + 256))
        #expect(tag.tags == ProbeTags(title: "Für Elise", artist: "Beethoven 𝄞", album: "Bagatellen ü",
                                      genre: "Classical", year: "1810", track: "5/12"))
    }

    @Test func id3v22ThreeCharFrames() throws {
        let frames = F.id3Frame(version: 2, "TT2", F.id3Text("Old", encoding: 0))
            + F.id3Frame(version: 2, "TP1", F.id3Text("Tagger", encoding: 1))
            + F.id3Frame(version: 2, "TAL", F.id3Text("Album", encoding: 0))
            + F.id3Frame(version: 2, "TCO", F.id3Text("(17)", encoding: 0))
            + F.id3Frame(version: 2, "TYE", F.id3Text("1999", encoding: 0))
            + F.id3Frame(version: 2, "TRK", F.id3Text("2", encoding: 0))
        let tag = try #require(try id3(F.id3Tag(version: 2, frames)))
        #expect(tag.tags == ProbeTags(title: "Old", artist: "Tagger", album: "Album", genre: "Rock", year: "1999", track: "2"))
    }

    @Test func id3v23TagLevelUnsynchronisation() throws {
        // A Latin-1 title containing ÿ (0xFF) followed by 0xE0 must be written as FF 00 E0.
        let raw = F.id3Frame(version: 3, "TIT2", [0, 0x41, 0xFF, 0xE0, 0x42])
        var unsynced = [UInt8]()
        for (i, c) in raw.enumerated() {
            unsynced.append(c)
            if c == 0xFF && (i + 1 == raw.count || raw[i + 1] & 0xE0 == 0xE0 || raw[i + 1] == 0) { unsynced.append(0) }
        }
        #expect(unsynced.count == raw.count + 1)
        let tag = try #require(try id3(F.id3Tag(version: 3, flags: 0x80, unsynced)))
        #expect(tag.tags.title == "Aÿ\u{E0}B")
    }

    @Test func id3v24FrameUnsyncAndDataLength() throws {
        // Frame flags: unsynchronisation (0x02) + data length indicator (0x01).
        let body: [UInt8] = F.syncsafe(4) + [0, 0x41, 0xFF, 0x00, 0xE1]
        let frame = F.id3Frame(version: 4, "TIT2", body, flags: [0, 0x03])
        let tag = try #require(try id3(F.id3Tag(version: 4, frame)))
        #expect(tag.tags.title == "Aÿ\u{E1}")
    }

    @Test func id3ExtendedHeaders() throws {
        let title = F.id3Frame(version: 3, "TIT2", F.id3Text("X", encoding: 0))
        let ext3 = F.be32(6) + [0, 0, 0, 0, 0, 0]
        #expect(try id3(F.id3Tag(version: 3, flags: 0x40, ext3 + title))?.tags.title == "X")
        let title4 = F.id3Frame(version: 4, "TIT2", F.id3Text("Y", encoding: 3))
        let ext4 = F.syncsafe(6) + [1, 0]
        #expect(try id3(F.id3Tag(version: 4, flags: 0x40, ext4 + title4))?.tags.title == "Y")
    }

    @Test func id3v24FooterCountsInSize() throws {
        let frames = F.id3Frame(version: 4, "TIT2", F.id3Text("F", encoding: 3))
        var b = F.id3Tag(version: 4, flags: 0x10, frames)
        b += F.ascii("3DI") + [4, 0, 0x10] + F.syncsafe(frames.count)
        let tag = try #require(try id3(b + F.mp3Frames(2)))
        #expect(tag.totalSize == UInt64(20 + frames.count))
        let sniff = try sniffContainer(MemoryByteSource(b + F.mp3Frames(2)))
        #expect(sniff.firstFrameOffset == UInt64(b.count))
    }

    @Test func genreReferences() {
        #expect(ID3Genres.resolve("(17)") == "Rock")
        #expect(ID3Genres.resolve("(17)Rock Opera") == "Rock Opera")
        #expect(ID3Genres.resolve("(4)(9)") == "Disco")
        #expect(ID3Genres.resolve("13") == "Pop")
        #expect(ID3Genres.resolve("(RX)") == "Remix")
        #expect(ID3Genres.resolve("((Not a ref)") == "(Not a ref)")
        #expect(ID3Genres.resolve("Shoegaze") == "Shoegaze")
        #expect(ID3Genres.resolve("(250)") == "250")
        #expect(ID3Genres.resolve("  ") == nil)
    }

    @Test func id3v1AtTheEnd() throws {
        var v1 = F.ascii("TAG")
        func field(_ s: String, _ n: Int) -> [UInt8] { Array((F.ascii(s) + [UInt8](repeating: 0, count: n)).prefix(n)) }
        v1 += field("Song", 30) + field("Band", 30) + field("Record", 30) + field("2001", 4)
        v1 += field("comment", 28) + [0, 7] + [8]
        let b = F.mp3Frames(3) + v1
        let f = try probeContainer(MemoryByteSource(b))
        #expect(f.tags == ProbeTags(title: "Song", artist: "Band", album: "Record", genre: "Jazz", year: "2001", track: "7"))
        // ID3v2 wins over v1 for the fields it has.
        let withV2 = F.id3Tag(version: 3, F.id3Frame(version: 3, "TIT2", F.id3Text("V2 title", encoding: 0))) + b
        let g = try probeContainer(MemoryByteSource(withV2))
        #expect(g.tags.title == "V2 title")
        #expect(g.tags.artist == "Band")
    }

    @Test func vorbisCommentFields() throws {
        let c = F.vorbisComment(vendor: "Xiph.Org libVorbis I 20200704", [
            "TITLE=Hyperballad", "artist=Björk", "ALBUM=Post", "GENRE=Electronic", "DATE=1995",
            "TRACKNUMBER=3", "COMMENT=has=equals", "NOEQUALS",
        ])
        let vc = try #require(VorbisComment.parse(c))
        #expect(vc.vendor == "Xiph.Org libVorbis I 20200704")
        #expect(vc.tags == ProbeTags(title: "Hyperballad", artist: "Björk", album: "Post", genre: "Electronic", year: "1995", track: "3"))
        #expect(vc.fields.count == 7)
        #expect(vc.fields[6].0 == "COMMENT" && vc.fields[6].1 == "has=equals")
        // Cut off inside the fourth field: the first three survive.
        let cut = Array(c.prefix(4 + 29 + 4 + (4 + 17) + (4 + 12) + (4 + 9) + 3))
        let partial = try #require(VorbisComment.parse(cut))
        #expect(partial.tags.title == "Hyperballad" && partial.tags.album == "Post" && partial.tags.genre == nil)
        #expect(VorbisComment.parse([5, 0, 0, 0, 65]) == nil)
    }

    @Test func flacStreamInfoAndComment() throws {
        let c = F.vorbisComment(vendor: "reference libFLAC", ["TITLE=Loop", "ARTIST=Me"])
        let f = try probeContainer(MemoryByteSource(F.flac(comment: c, rate: 96000, channels: 6, bits: 24, samples: 96000 * 5)))
        #expect(f.codec == "flac")
        #expect(f.audio == ProbeAudioParameters(format: "flac", sampleRate: 96000, channels: 6, bitsPerSample: 24, duration: 5))
        #expect(f.tags.title == "Loop" && f.tags.artist == "Me")
        #expect(f.problem == nil)
    }

    @Test func oggVorbisAndOpusComments() throws {
        let c = F.vorbisComment(vendor: "v", ["TITLE=Night", "ARTIST=Owl"])
        let vorbisId = [1] + F.ascii("vorbis") + F.le32(0) + [2] + F.le32(44100) + [UInt8](repeating: 0, count: 13)
        // The comment packet spans two pages (300 bytes of padding field + lacing continuation).
        let long = F.vorbisComment(vendor: "v", ["TITLE=Night", "X=" + String(repeating: "z", count: 600), "ARTIST=Owl"])
        let packet = [3] + F.ascii("vorbis") + long + [1]
        func rawPage(_ seq: Int, lacing: [UInt8], _ data: [UInt8], flags: UInt8) -> [UInt8] {
            F.ascii("OggS") + [0, flags] + [UInt8](repeating: 0, count: 8) + F.le32(0x1234) + F.le32(seq)
                + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + data
        }
        let rest = Array(packet.dropFirst(510))
        #expect(rest.count < 255)
        let page1 = rawPage(1, lacing: [255, 255], Array(packet.prefix(510)), flags: 0)  // packet continues
        let page2 = rawPage(2, lacing: [UInt8(rest.count)], rest, flags: 1)
        let v = try probeContainer(MemoryByteSource(F.oggPage(sequence: 0, vorbisId, flags: 2) + page1 + page2))
        #expect(v.kind == .ogg(.vorbis))
        #expect(v.audio?.sampleRate == 44100 && v.audio?.channels == 2)
        #expect(v.tags.title == "Night" && v.tags.artist == "Owl")

        let opusHead = F.ascii("OpusHead") + [1, 1] + F.le16(312) + F.le32(44100) + [0, 0, 0]
        let o = try probeContainer(MemoryByteSource(F.oggPage(sequence: 0, opusHead, flags: 2)
                                                    + F.oggPage(sequence: 1, F.ascii("OpusTags") + c)))
        #expect(o.container == "opus" && o.codec == "opus")
        #expect(o.audio?.sampleRate == 48000 && o.audio?.channels == 1)
        #expect(o.tags.title == "Night")
    }

    @Test func riffInfoInWav() throws {
        let info = F.ascii("INFO") + F.riffChunk("INAM", F.ascii("Take 3\0")) + F.riffChunk("IART", F.ascii("Choir\0"))
            + F.riffChunk("IPRD", F.ascii("Rehearsals\0")) + F.riffChunk("IGNR", F.ascii("Choral\0"))
            + F.riffChunk("ICRD", F.ascii("2023-05-01\0")) + F.riffChunk("ITRK", F.ascii("3\0"))
        let f = try probeContainer(MemoryByteSource(F.wav(channels: 1, rate: 48000, bits: 24, frames: 4800, extra: F.riffChunk("LIST", info))))
        #expect(f.tags == ProbeTags(title: "Take 3", artist: "Choir", album: "Rehearsals", genre: "Choral", year: "2023-05-01", track: "3"))
        #expect(f.codec == "pcm")
        #expect(f.audio?.sampleRate == 48000 && f.audio?.channels == 1 && f.audio?.bitsPerSample == 24)
        #expect(f.audio?.duration == 0.1)
    }

    @Test func wavId3ChunkAndExtensibleFloat() throws {
        var fmt = F.le16(0xFFFE) + F.le16(2) + F.le32(44100) + F.le32(352800) + F.le16(8) + F.le16(32)
        fmt += F.le16(22) + F.le16(32) + F.le32(3) + F.le16(3) + [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
        let id3 = F.id3Tag(version: 4, F.id3Frame(version: 4, "TIT2", F.id3Text("Float", encoding: 3)))
        let body = F.ascii("WAVE") + F.riffChunk("fmt ", fmt) + F.riffChunk("data", [UInt8](repeating: 0, count: 80)) + F.riffChunk("id3 ", id3)
        let f = try probeContainer(MemoryByteSource(F.ascii("RIFF") + F.le32(body.count) + body))
        #expect(f.codec == "float")
        #expect(f.tags.title == "Float")
    }

    @Test func aiffCommAndName() throws {
        // 44100 as 80-bit extended: exponent 0x400E, mantissa 0xAC44 << 48.
        let rate: [UInt8] = [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]
        let comm = F.be16(2) + F.be32(88200) + F.be16(16) + rate
        func chunk(_ id: String, _ p: [UInt8]) -> [UInt8] { F.ascii(id) + F.be32(UInt32(p.count)) + p + (p.count % 2 == 1 ? [0] : []) }
        let body = F.ascii("AIFF") + chunk("COMM", comm) + chunk("NAME", F.ascii("Sine")) + chunk("SSND", [UInt8](repeating: 0, count: 16))
        let f = try probeContainer(MemoryByteSource(F.ascii("FORM") + F.be32(UInt32(body.count)) + body))
        #expect(f.audio?.sampleRate == 44100)
        #expect(f.audio?.duration == 2)
        #expect(f.tags.title == "Sine")
        #expect(f.codec == "pcm")
    }

    @Test func cafDescAndInfo() throws {
        func chunk(_ id: String, _ p: [UInt8]) -> [UInt8] { F.ascii(id) + F.be64(UInt64(p.count)) + p }
        let desc = F.be64((48000.0).bitPattern) + F.fourcc("aac ") + F.be32(0) + F.be32(0) + F.be32(1024) + F.be32(2) + F.be32(0)
        let info = F.be32(2) + F.ascii("title\0Memo\0artist\0Me\0")
        let b = F.ascii("caff") + [0, 1, 0, 0] + chunk("desc", desc) + chunk("info", info)
        let f = try probeContainer(MemoryByteSource(b))
        #expect(f.codec == "aac" && f.audio?.sampleRate == 48000 && f.audio?.channels == 2)
        #expect(f.tags.title == "Memo" && f.tags.artist == "Me")
    }

    @Test func matroskaTracks() throws {
        func el(_ id: [UInt8], _ p: [UInt8]) -> [UInt8] { id + [0x80 | UInt8(p.count)] + p }
        let header = el([0x1A, 0x45, 0xDF, 0xA3], el([0x42, 0x82], F.ascii("webm")))
        let video = el([0xAE], el([0x83], [1]) + el([0x86], F.ascii("V_VP9")))
        let audio = el([0xAE], el([0x83], [2]) + el([0x86], F.ascii("A_OPUS")) + el([0xE1], el([0xB5], F.be32(Float(48000).bitPattern)) + el([0x9F], [2])))
        let withAudio = header + el([0x18, 0x53, 0x80, 0x67], el([0x16, 0x54, 0xAE, 0x6B], video + audio))
        let f = try probeContainer(MemoryByteSource(withAudio))
        #expect(f.kind == .webm && f.hasAudio == true && f.hasVideo == true && f.codec == "opus")
        #expect(f.audio?.sampleRate == 48000 && f.audio?.channels == 2)
        let videoOnly = header + el([0x18, 0x53, 0x80, 0x67], el([0x16, 0x54, 0xAE, 0x6B], video))
        let g = try probeContainer(MemoryByteSource(videoOnly))
        #expect(g.hasAudio == false && g.hasVideo == true)
        #expect(ProbeVerdicts.refusal(for: g, path: "clip.webm")?.toolError(path: "clip.webm").code == .noAudio)
    }

    @Test func matroskaTagsAfterTheClustersAreFoundThroughTheSeekHead() throws {
        // EBML header, a Segment of unknown size: SeekHead (Tags at body offset 0x57), Info
        // (TimestampScale 1 ms, Duration 3000, Title), Tracks (one Opus track), a Cluster, then
        // Tags at level 50 with ARTIST and ALBUM (Tests/Fuzz/seeds/tags.mka).
        let b: [UInt8] = [
            0x1a, 0x45, 0xdf, 0xa3, 0x8b, 0x42, 0x82, 0x88, 0x6d, 0x61, 0x74, 0x72, 0x6f, 0x73, 0x6b, 0x61,
            0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x11, 0x4d, 0x9b, 0x74,
            0x8f, 0x4d, 0xbb, 0x8c, 0x53, 0xab, 0x84, 0x12, 0x54, 0xc3, 0x67, 0x53, 0xac, 0x82, 0x00, 0x57,
            0x15, 0x49, 0xa9, 0x66, 0x9f, 0x2a, 0xd7, 0xb1, 0x83, 0x0f, 0x42, 0x40, 0x44, 0x89, 0x88, 0x40,
            0xa7, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7b, 0xa9, 0x8a, 0x49, 0x6e, 0x66, 0x6f, 0x20, 0x54,
            0x69, 0x74, 0x6c, 0x65, 0x16, 0x54, 0xae, 0x6b, 0x92, 0xae, 0x90, 0x83, 0x81, 0x02, 0x86, 0x86,
            0x41, 0x5f, 0x4f, 0x50, 0x55, 0x53, 0xe1, 0x83, 0x9f, 0x81, 0x02, 0x1f, 0x43, 0xb6, 0x75, 0x83,
            0xe7, 0x81, 0x00, 0x12, 0x54, 0xc3, 0x67, 0xb4, 0x73, 0x73, 0xb1, 0x63, 0xc0, 0x84, 0x68, 0xca,
            0x81, 0x32, 0x67, 0xc8, 0x93, 0x45, 0xa3, 0x86, 0x41, 0x52, 0x54, 0x49, 0x53, 0x54, 0x44, 0x87,
            0x87, 0x53, 0x6f, 0x6d, 0x65, 0x6f, 0x6e, 0x65, 0x67, 0xc8, 0x91, 0x45, 0xa3, 0x85, 0x41, 0x4c,
            0x42, 0x55, 0x4d, 0x44, 0x87, 0x86, 0x52, 0x65, 0x63, 0x6f, 0x72, 0x64,
        ]
        let f = try probeContainer(MemoryByteSource(b))
        #expect(f.hasAudio == true)
        #expect(f.tags.title == "Info Title")
        #expect(f.tags.artist == "Someone")
        #expect(f.tags.album == "Record")
        #expect(f.audio?.duration == 3)
        // Cut off before the Tags: the facts before them stand, the tags are simply unknown.
        let cut = try probeContainer(MemoryByteSource(Array(b.prefix(120))))
        #expect(cut.tags.artist == nil && cut.tags.title == "Info Title")
    }

    @Test func quickTimeMdtaItemsAreNamedByTheirKeys() throws {
        let keys = ["com.apple.quicktime.title", "com.apple.quicktime.artist", "com.example.unknown"]
        var keysBox = F.be32(UInt32(keys.count))
        for k in keys { keysBox += F.be32(UInt32(8 + k.utf8.count)) + F.ascii("mdta") + F.ascii(k) }
        func item(_ index: UInt32, _ text: String) -> [UInt8] {
            let data = F.box("data", F.be32(1) + F.be32(0) + F.ascii(text))
            return F.be32(UInt32(8 + data.count)) + F.be32(index) + data
        }
        let meta = F.box("meta", F.fullBox("hdlr", F.be32(0) + F.ascii("mdta") + [UInt8](repeating: 0, count: 13))
                         + F.fullBox("keys", keysBox)
                         + F.box("ilst", item(1, "Key Title") + item(2, "Key Artist") + item(3, "ignored") + item(9, "no such key")))
        let b = F.mp4(brand: "qt  ", moov: F.aacTrack + meta)
        let f = try probeContainer(MemoryByteSource(b))
        #expect(f.tags.title == "Key Title")
        #expect(f.tags.artist == "Key Artist")
        #expect(f.tags.album == nil)
        #expect(ProbeMP4Walker.keyField("com.apple.quicktime.album") == .album)
        #expect(ProbeMP4Walker.keyField("com.apple.quicktime.comment") == nil)
    }
}
