import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite("Probe MP4 boxes")
struct ProbeMP4Tests {
    typealias F = ProbeFixture

    func facts(_ b: [UInt8]) throws -> ContainerFacts { try probeContainer(MemoryByteSource(b)) }

    @Test func plainAACWithTags() throws {
        let tags = F.udtaTags(F.ilstItem("©nam", text: "Blue Monday") + F.ilstItem("©ART", text: "New Order")
            + F.ilstItem("©alb", text: "Power") + F.ilstItem("©day", text: "1983")
            + F.ilstItem("trkn", binary: [0, 0, 0, 4, 0, 9, 0, 0]) + F.ilstItem("gnre", binary: [0, 18]))
        let f = try facts(F.mp4(brand: "M4A ", compatible: ["M4A ", "mp42", "isom"], moov: F.aacTrack + tags))
        #expect(f.container == "m4a")
        #expect(f.codec == "aac")
        #expect(f.hasAudio == true && f.hasVideo == false)
        #expect(f.protection == nil)
        #expect(f.problem == nil)
        #expect(f.mp4?.majorBrand == "M4A ")
        #expect(f.mp4?.compatibleBrands == ["M4A ", "mp42", "isom"])
        #expect(f.mp4?.tracks.first?.timescale == 44100)
        #expect(f.mp4?.tracks.first?.duration == 441000)
        #expect(f.mp4?.tracks.first?.audioObjectType == 2)
        #expect(f.audio == ProbeAudioParameters(format: "mp4a", sampleRate: 44100, channels: 2, bitsPerSample: 16, duration: 10))
        #expect(f.tags == ProbeTags(title: "Blue Monday", artist: "New Order", album: "Power", genre: "Rock", year: "1983", track: "4/9"))
        #expect(ProbeVerdicts.refusal(for: f, path: "x.m4a")?.toolError(path: "x.m4a") == nil)
    }

    @Test func quickTimePlainMetaAndGenreText() throws {
        let tags = F.udtaTags(F.ilstItem("©nam", text: "Voice memo") + F.ilstItem("©gen", text: "Speech"), fullMeta: false)
        let f = try facts(F.mp4(brand: "qt  ", moov: F.aacTrack + tags))
        #expect(f.container == "mov")
        #expect(f.tags.title == "Voice memo")
        #expect(f.tags.genre == "Speech")
    }

    @Test func esdsGivesRealRateAndChannelsForHEAndMono() throws {
        // AAC LC at 48 kHz mono: object type 2, index 3, channel config 1 → 0x11 0x88.
        let entry = F.audioEntry("mp4a", channels: 2, rate: 44100, children: F.esds(asc: [0x11, 0x88]))
        let f = try facts(F.mp4(brand: "M4A ", moov: F.trak(handler: "soun", entry: entry)))
        #expect(f.audio?.sampleRate == 48000)
        #expect(f.audio?.channels == 1)
        // Object type 0x6B is MPEG-1 audio (MP3 in MP4).
        let mp3 = F.audioEntry("mp4a", children: F.esds(objectType: 0x6B))
        #expect(try facts(F.mp4(brand: "mp42", moov: F.trak(handler: "soun", entry: mp3))).codec == "mp3")
    }

    @Test func alacCookieRateAbove16Bits() throws {
        // 96 kHz can't be written in the 16.16 field; the ALAC cookie holds the truth.
        var cookie = F.be32(4096) + [0, 24, 40, 10, 14, 2] + F.be16(255) + F.be32(0) + F.be32(0)
        cookie += F.be32(96000)
        let entry = F.audioEntry("alac", bits: 16, rate: 0, children: F.fullBox("alac", cookie))
        let f = try facts(F.mp4(brand: "M4A ", moov: F.trak(handler: "soun", entry: entry, timescale: 96000, duration: 96000 * 3)))
        #expect(f.codec == "alac")
        #expect(f.audio?.sampleRate == 96000)
        #expect(f.audio?.bitsPerSample == 24)
        #expect(f.audio?.channels == 2)
        #expect(f.audio?.duration == 3)
    }

    @Test func mdhdVersion1And64BitLargesize() throws {
        // mdhd v1 (64-bit times) inside a trak whose mdia box uses a 64-bit largesize header.
        let mdhd = F.fullBox("mdhd", version: 1, F.be64(0) + F.be64(0) + F.be32(48000) + F.be64(48000 * 7200) + F.be32(0))
        let hdlr = F.fullBox("hdlr", F.be32(0) + F.fourcc("soun") + [UInt8](repeating: 0, count: 13))
        let stsd = F.fullBox("stsd", F.be32(1) + F.audioEntry("Opus", rate: 48000))
        let inner = mdhd + hdlr + F.box("minf", F.box("stbl", stsd))
        let mdia = F.be32(1) + F.fourcc("mdia") + F.be64(UInt64(16 + inner.count)) + inner
        let f = try facts(F.mp4(brand: "isom", moov: F.box("trak", mdia)))
        #expect(f.problem == nil)
        #expect(f.codec == "opus")
        #expect(f.audio?.duration == 7200)
    }

    @Test func fairPlayDrms() throws {
        let entry = F.audioEntry("drms", children: F.esds() + F.sinf(original: "mp4a", scheme: "itun"))
        let f = try facts(F.mp4(brand: "M4P ", moov: F.trak(handler: "soun", entry: entry)))
        #expect(f.container == "m4p")
        #expect(f.protection == Protection(scheme: "itun", originalFormat: "mp4a"))
        #expect(f.codec == "aac")
        let v = ProbeVerdicts.refusal(for: f, path: "/Music/song.m4p")?.toolError(path: "/Music/song.m4p")
        #expect(v == ToolError(.protected, "“song.m4p” is protected by the store it came from and can't be exported.",
                               suggestion: "Pick music you own or imported — tracks downloaded from a streaming subscription won't work."))
    }

    @Test func drmsWithoutSinfStillProtected() throws {
        let entry = F.audioEntry("drms", children: F.esds())
        let f = try facts(F.mp4(brand: "M4P ", moov: F.trak(handler: "soun", entry: entry)))
        #expect(f.protection?.scheme == "itun")
        #expect(ProbeVerdicts.refusal(for: f, path: "a.m4p")?.toolError(path: "a.m4p").code == .protected)
    }

    @Test func commonEncryptionSchemes() throws {
        for scheme in ["cenc", "cbcs", "cens", "cbc1"] {
            let entry = F.audioEntry("enca", children: F.esds() + F.sinf(original: "mp4a", scheme: scheme))
            let f = try facts(F.mp4(brand: "iso6", moov: F.trak(handler: "soun", entry: entry)))
            #expect(f.protection == Protection(scheme: scheme, originalFormat: "mp4a"))
            let v = ProbeVerdicts.refusal(for: f, path: "film.mp4")?.toolError(path: "film.mp4")
            #expect(v?.code == .protected)
            #expect(v?.message == "“film.mp4” is encrypted with “\(scheme)” copy protection and can't be exported.")
        }
    }

    @Test func audibleAAXBrand() throws {
        let entry = F.audioEntry("aavd", children: F.esds())
        let f = try facts(F.mp4(brand: "aax ", compatible: ["aax ", "M4B ", "mp42"], moov: F.trak(handler: "soun", entry: entry)))
        #expect(f.container == "aax")
        #expect(f.protection?.scheme == "audible")
        #expect(ProbeVerdicts.refusal(for: f, path: "book.aax")?.toolError(path: "book.aax").message
                == "“book.aax” is an Audible audiobook protected by Audible and can't be exported.")
        // The brand alone is enough, even with a plain sample entry.
        let g = try facts(F.mp4(brand: "aax ", moov: F.aacTrack))
        #expect(g.protection?.scheme == "audible")
    }

    @Test func videoOnlyMovHasNoAudio() throws {
        let f = try facts(F.mp4(brand: "qt  ", moov: F.trak(handler: "vide", entry: F.videoEntry("avc1"))))
        #expect(f.hasAudio == false && f.hasVideo == true)
        #expect(f.mp4?.tracks.first?.sampleEntry == "avc1")
        #expect(ProbeVerdicts.refusal(for: f, path: "holiday.mov")?.toolError(path: "holiday.mov")
                == ToolError(.noAudio, "“holiday.mov” doesn't contain any audio.",
                             suggestion: "Pick a music or voice file — a video file won't work here."))
    }

    @Test func movWithVideoAndAudioIsUsable() throws {
        let moov = F.trak(handler: "vide", entry: F.videoEntry("hvc1"))
            + F.trak(handler: "soun", entry: F.audioEntry("sowt", channels: 1, bits: 24, rate: 48000))
            + F.trak(handler: "text", entry: F.box("text", [UInt8](repeating: 0, count: 8)))
        let f = try facts(F.mp4(brand: "qt  ", moov: moov))
        #expect(f.hasAudio == true && f.hasVideo == true)
        #expect(f.codec == "pcm")
        #expect(f.audio?.channels == 1 && f.audio?.bitsPerSample == 24 && f.audio?.sampleRate == 48000)
        #expect(f.mp4?.tracks.map(\.handler) == ["vide", "soun", "text"])
        #expect(ProbeVerdicts.refusal(for: f, path: "clip.mov")?.toolError(path: "clip.mov") == nil)
    }

    @Test func encryptedVideoWithClearAudioIsNotRefused() throws {
        let moov = F.trak(handler: "vide", entry: F.videoEntry("encv", children: F.sinf(original: "avc1", scheme: "cenc")))
            + F.aacTrack
        let f = try facts(F.mp4(brand: "isom", moov: moov))
        #expect(f.mp4?.tracks.first?.protection == Protection(scheme: "cenc", originalFormat: "avc1"))
        #expect(f.protection == nil)
        #expect(ProbeVerdicts.refusal(for: f, path: "x.mp4")?.toolError(path: "x.mp4") == nil)
    }

    @Test func quickTimeSoundDescriptionV2() throws {
        // Version 2 sound description: float64 rate at 40, channels at 48, bits at 56.
        var body = [UInt8](repeating: 0, count: 6) + F.be16(1) + F.be16(2) + F.be16(0) + F.be32(0)
        body += F.be16(3) + F.be16(16) + F.be16(0xFFFE) + F.be16(0) + F.be32(65536) + F.be32(72)
        body += F.be64((192000.0).bitPattern) + F.be32(6) + F.be32(0x7F00_0000) + F.be32(32) + F.be32(1) + F.be32(24) + F.be32(1)
        let f = try facts(F.mp4(brand: "qt  ", moov: F.trak(handler: "soun", entry: F.box("lpcm", body))))
        #expect(f.audio?.sampleRate == 192000)
        #expect(f.audio?.channels == 6)
        #expect(f.audio?.bitsPerSample == 32)
    }

    @Test func moovAfterMdatAndBytesRead() throws {
        // 2 MB of media before the moov: the walk skips it by header.
        let mdat = F.be32(UInt32(8 + 2_000_000)) + F.fourcc("mdat") + [UInt8](repeating: 0, count: 2_000_000)
        let b = F.ftyp("M4A ") + mdat + F.box("moov", F.aacTrack)
        let src = ProbeCountingSource(b)
        let f = try probeContainer(src)
        #expect(f.hasAudio == true)
        #expect(f.codec == "aac")
        #expect(src.bytesRead <= 3 * 4096)
        #expect(f.bytesRead == UInt64(src.bytesRead))
    }

    @Test func ftypWithoutMoovIsMalformed() throws {
        let f = try facts(F.ftyp("M4A ") + F.box("mdat", [1, 2, 3]))
        #expect(f.problem == .malformed("it has no “moov” box describing its tracks"))
        #expect(ProbeVerdicts.refusal(for: f, path: "a.m4a")?.toolError(path: "a.m4a").code == .malformed)
    }

    @Test func truncatedDownload() throws {
        var b = F.mp4(brand: "M4A ", moov: F.aacTrack)
        b.removeLast(10)  // the mdat is cut short
        let f = try facts(b)
        #expect(f.problem == .truncated("the file ends partway through its “mdat” box"))
        #expect(f.hasAudio == true)  // what came before the cut is still known
        let v = ProbeVerdicts.refusal(for: f, path: "song.m4a")?.toolError(path: "song.m4a")
        #expect(v == ToolError(.truncated, "“song.m4a” is cut off: the file ends partway through its “mdat” box.",
                               suggestion: "Pick a complete copy — the download or copy may not have finished."))
    }
}
