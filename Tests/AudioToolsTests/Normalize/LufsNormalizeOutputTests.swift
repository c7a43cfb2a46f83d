import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize's output naming and output-format decisions: strings and format codes only.
@Suite struct LufsNormalizeOutputTests {
    func naming(outDir: String? = nil, template: String? = nil, relativeTo: String? = nil, ext: String? = nil) -> LufsNormalizeNaming {
        LufsNormalizeNaming(outDir: outDir, template: template, inPlace: false, relativeTo: relativeTo, formatExtension: ext)
    }

    @Test func outDirKeepsNamesAndFoldersBelowADirectoryArgument() {
        let n = naming(outDir: "build")
        #expect(n.output(for: "media/show/ep1.wav", base: nil) == "build/ep1.wav")
        #expect(n.output(for: "media/show/ep1.wav", base: "media") == "build/show/ep1.wav")
        #expect(n.output(for: "media/show/ep1.wav", base: "media/") == "build/show/ep1.wav")
        #expect(n.output(for: "media/ep1.wav", base: "media") == "build/ep1.wav")
        #expect(naming(outDir: "build", ext: "flac").output(for: "media/ep1.wav", base: nil) == "build/ep1.flac")
        // Standard input: only the name, unless --relative-to; outside it, no place.
        let r = naming(outDir: "/out", relativeTo: "media")
        #expect(r.output(for: "media/a/b.wav", base: nil) == "/out/a/b.wav")
        #expect(r.output(for: "elsewhere/b.wav", base: nil) == nil)
    }

    @Test func templatesFillDirStemAndExt() {
        let t = naming(template: "{dir}/{stem}.norm.{ext}")
        #expect(t.output(for: "media/ep1.wav", base: nil) == "media/ep1.norm.wav")
        #expect(t.output(for: "ep1.wav", base: nil) == "ep1.norm.wav")
        #expect(t.output(for: "/abs/x.y.flac", base: nil) == "/abs/x.y.norm.flac")
        #expect(naming(template: "{dir}/{stem}.{ext}", ext: "wav").output(for: "a/noext", base: nil) == "a/noext.wav")
        #expect(naming(template: "{dir}/{stem}-n.{ext}").output(for: "a/noext", base: nil) == "a/noext-n")
        // Inside --out-dir, {dir} is the folder below the directory argument.
        let both = naming(outDir: "out", template: "{dir}/{stem}.r128.{ext}")
        #expect(both.output(for: "media/show/ep1.wav", base: "media") == "out/show/ep1.r128.wav")
        #expect(both.output(for: "media/show/ep1.wav", base: nil) == "out/ep1.r128.wav")
    }

    func description(_ container: String, _ codec: String, tags: Bool = false) -> SndfileDescription {
        let code = SndfileSink.formatCode(container: container, codec: codec)!
        let d = LufsNormalizeFormat.describe(code: code)
        return SndfileDescription(container: container, codec: container == "flac" ? "flac" : codec, bitDepth: d.depth,
                                  isFloat: d.isFloat, isLossy: d.isLossy, channelNames: nil, formatCode: code)
    }

    @Test func defaultsKeepTheInputsEncodingAndLoseNothing() throws {
        for (c, k) in [("wav", "pcm_s16"), ("wav", "pcm_s24"), ("wav", "pcm_f32"), ("flac", "pcm_s24"), ("aiff", "pcm_s16"), ("wav", "pcm_u8")] {
            let input = description(c, k)
            let r = try LufsNormalizeFormat.resolve(input: input, inputRate: 48_000, inputChannels: 2, tags: AudioTags(),
                                                   format: nil, depth: nil, sampleRate: nil)
            #expect(r.format.formatCode == input.formatCode, "\(c) \(k)")
            #expect(r.losses.isEmpty)
            #expect(r.format.channelCount == 2 && r.format.sampleRate == 48_000)
        }
    }

    @Test func lossesAreNamed() throws {
        var tags = AudioTags()
        tags.title = "T"; tags.album = "A"; tags.genre = "G"
        let wav24 = description("wav", "pcm_s24")
        func losses(_ format: String?, _ depth: LufsNormalizeFormat.Depth?, rate: Int? = nil, channels: Int = 2,
                    input: SndfileDescription? = nil) throws -> [String] {
            try LufsNormalizeFormat.resolve(input: input ?? wav24, inputRate: 96_000, inputChannels: channels, tags: tags,
                                           format: format, depth: depth, sampleRate: rate).losses
        }
        #expect(try losses(nil, .pcm(16)) == ["24-bit samples are written as 16-bit (with TPDF dither)"])
        #expect(try losses(nil, .pcm(32)).isEmpty && losses(nil, .float).isEmpty && losses("flac", nil).isEmpty)
        #expect(try losses("flac", nil, input: description("wav", "pcm_s32")) == ["32-bit samples are written as 24-bit"])
        #expect(try losses(nil, nil, rate: 48_000) == ["converting from 96000 Hz to 48000 Hz removes everything above 24 kHz"])
        #expect(try losses(nil, nil, rate: 192_000).isEmpty)
        #expect(try losses("aiff", nil) == ["AIFF can't hold the tags album, genre, so they are left out"])
        #expect(try losses("ogg", nil).first?.contains("Ogg Vorbis, a lossy codec") == true)
        #expect(try losses(nil, nil, input: description("ogg", "vorbis")).first?.contains("re-encoding Ogg Vorbis") == true)
        #expect(try losses("wav", nil, input: description("ogg", "vorbis")).isEmpty)   // decoding into PCM loses nothing
        let mp3 = try losses("mp3", nil, channels: 6)
        #expect(mp3.contains("MP3 holds at most 2 channels: channels 3–6 of 6 are left out"))
        let kept = try LufsNormalizeFormat.resolve(input: wav24, inputRate: 48_000, inputChannels: 1, tags: tags,
                                                   format: "aiff", depth: nil, sampleRate: nil).tags
        #expect(kept.title == "T" && kept.album == nil && kept.genre == nil)
        #expect(throws: LufsNormalizeFormat.Problem.self) {
            try LufsNormalizeFormat.resolve(input: wav24, inputRate: 48_000, inputChannels: 2, tags: tags,
                                            format: "flac", depth: .float, sampleRate: nil)
        }
    }
}
