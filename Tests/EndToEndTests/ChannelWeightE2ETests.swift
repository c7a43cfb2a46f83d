import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// One channel of noise in a multichannel WAVE_FORMAT_EXTENSIBLE file against the same noise in
/// mono: the difference is the channel's BS.1770 weight, 10·log10(1.41) = +1.49 dB for a
/// loudspeaker between 60° and 120° below 30° of elevation, 0 dB anywhere else, and the LFE
/// counts nothing.
@Suite struct ChannelWeightE2ETests {
    static let rate = 48000
    static let plus141 = 10 * log10(1.41)

    /// Deterministic white noise at about −20 dBFS RMS.
    static func noise(seconds: Double) -> [Float] {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<Int(seconds * Double(rate))).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Float(Double(x >> 11) / Double(1 << 53) * 0.346 - 0.173)
        }
    }

    /// A 32-bit float WAVE_FORMAT_EXTENSIBLE file with `channels` channels and `mask` as its
    /// channel mask, silent except for `signal` in channel `index`.
    static func writeExtensible(_ path: String, mask: UInt32, channels: Int, index: Int, signal: [Float]) throws {
        var d = Data()
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let dataBytes = signal.count * channels * 4
        d.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(4 + 8 + 40 + 8 + dataBytes)); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(40)
        u16(0xFFFE); u16(channels); u32(UInt32(rate)); u32(UInt32(rate * channels * 4)); u16(channels * 4); u16(32)
        u16(22); u16(32); u32(mask)
        d.append(contentsOf: [0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        d.append(contentsOf: Array("data".utf8)); u32(UInt32(dataBytes))
        var frames = [Float](repeating: 0, count: signal.count * channels)
        for i in 0..<signal.count { frames[i * channels + index] = signal[i] }
        frames.withUnsafeBytes { d.append(contentsOf: $0) }
        try d.write(to: URL(fileURLWithPath: path))
    }

    /// Runs ffmpeg on the test's material; the test stops if it fails.
    static func ffmpeg(_ args: [String]) throws {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + args)
        try #require(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.stderr)")
    }

    struct Case { var name: String; var mask: UInt32; var channels: Int; var index: Int; var offset: Double?; var layout: String }

    static let cases: [Case] = [
        // 5.1: the mask's "back" pair is the 5.1 surround pair at ±110°.
        Case(name: "5.1-front-left", mask: 0x3F, channels: 6, index: 0, offset: 0, layout: "L,R,C,LFE,Ls,Rs"),
        Case(name: "5.1-surround-left", mask: 0x3F, channels: 6, index: 4, offset: plus141, layout: "L,R,C,LFE,Ls,Rs"),
        Case(name: "5.1-lfe", mask: 0x3F, channels: 6, index: 3, offset: nil, layout: "L,R,C,LFE,Ls,Rs"),
        // 7.1: back pair (±135°) 1.0, side pair (±90°) 1.41.
        Case(name: "7.1-back-left", mask: 0x63F, channels: 8, index: 4, offset: 0, layout: "L,R,C,LFE,Lb,Rb,Lss,Rss"),
        Case(name: "7.1-side-right", mask: 0x63F, channels: 8, index: 7, offset: plus141, layout: "L,R,C,LFE,Lb,Rb,Lss,Rss"),
        // 7.1.4: the same, heights 1.0, the LFE out.
        Case(name: "7.1.4-side-left", mask: 0x2D63F, channels: 12, index: 6, offset: plus141, layout: "L,R,C,LFE,Lb,Rb,Lss,Rss,Ltf,Rtf,Ltb,Rtb"),
        Case(name: "7.1.4-top-front-left", mask: 0x2D63F, channels: 12, index: 8, offset: 0, layout: "L,R,C,LFE,Lb,Rb,Lss,Rss,Ltf,Rtf,Ltb,Rtb"),
        Case(name: "7.1.4-lfe", mask: 0x2D63F, channels: 12, index: 3, offset: nil, layout: "L,R,C,LFE,Lb,Rb,Lss,Rss,Ltf,Rtf,Ltb,Rtb"),
    ]

    @Test func oneChannelOfNoiseAgainstMono() throws {
        let dir = E2E.tempDir("weights")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = Self.noise(seconds: 4)
        try E2E.write(dir + "/0-mono.wav", rate: Self.rate, channels: [n], codec: "pcm_f32")
        for c in Self.cases {
            try Self.writeExtensible(dir + "/\(c.name).wav", mask: c.mask, channels: c.channels, index: c.index, signal: n)
        }
        let r = try E2E.run("lufs-measure", [dir])
        #expect(r.status == 0, "\(r.stderr)")
        var byName: [String: JSON] = [:]
        for rec in r.records {
            if let p = rec["path"]?.stringValue { byName[URL(fileURLWithPath: p).deletingPathExtension().lastPathComponent] = rec["loudness"] }
        }
        let mono = try #require(byName["0-mono"]?["integrated_lufs"]?.doubleValue)
        for c in Self.cases {
            let l = try #require(byName[c.name], "\(c.name)")
            #expect(l["layout"]?.stringValue == c.layout, "\(c.name)")
            #expect(l["layout_source"]?.stringValue == "file", "\(c.name)")
            let notes = l["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!notes.contains { $0.contains("guessed") }, "\(c.name): \(notes)")
            if let offset = c.offset {
                let v = try #require(l["integrated_lufs"]?.doubleValue, "\(c.name)")
                #expect(abs(v - mono - offset) <= 0.02, "\(c.name): \(v) vs mono \(mono), expected \(offset)")
                #expect(l["channels"]?.arrayValue?[c.index]["weight"]?.doubleValue == (offset > 0 ? 1.41 : 1), "\(c.name)")
            } else {
                // Noise only in the LFE: nothing is counted, so the loudness is that of silence.
                #expect(l["integrated_lufs"] == .null, "\(c.name)")
                #expect(l["channels"]?.arrayValue?[c.index]["weight"]?.doubleValue == 0, "\(c.name)")
            }
        }
        // Positions are shown per channel: the 7.1 side pair at ±90°, the heights above 30°.
        let c714 = try #require(byName["7.1.4-side-left"]?["channels"]?.arrayValue)
        #expect(c714[6]["azimuth_deg"]?.doubleValue == 90 && c714[6]["elevation_deg"]?.doubleValue == 0)
        #expect((c714[8]["elevation_deg"]?.doubleValue ?? 0) >= 30)
        #expect(c714[3]["azimuth_deg"] == .null)
    }

    @Test func guessedLayoutsSaySo() throws {
        let dir = E2E.tempDir("guess")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = Self.noise(seconds: 1)
        // A plain 6-channel WAV (no channel mask): read as 5.1 from the count, with a note.
        try E2E.write(dir + "/six.wav", rate: Self.rate, channels: Array(repeating: n, count: 6), codec: "pcm_f32")
        let r = try E2E.run("lufs-measure", [dir + "/six.wav"])
        let l = try #require(r.records.first?["loudness"])
        #expect(l["layout"]?.stringValue == "L,R,C,LFE,Ls,Rs")
        let notes = l["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.contains("guessed from the channel count") }, "\(notes)")
        #expect(l["layout_source"]?.stringValue == "channel-count")
        // --layout names a height layout; its positions are used and nothing is guessed.
        try E2E.write(dir + "/twelve.wav", rate: Self.rate, channels: Array(repeating: n, count: 12), codec: "pcm_f32")
        let t = try E2E.run("lufs-measure", ["--layout", "7.1.4", dir + "/twelve.wav"])
        let tl = try #require(t.records.first?["loudness"])
        #expect(tl["layout"]?.stringValue == "L,R,C,LFE,Lb,Rb,Lss,Rss,Ltf,Rtf,Ltb,Rtb")
        #expect(tl["layout_source"]?.stringValue == "option")
        #expect(!(tl["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []).contains { $0.contains("guessed") })
        let bad = try E2E.run("lufs-measure", ["--layout", "L,R,Qz", dir + "/six.wav"])
        #expect(bad.status == 2 && bad.stderr.contains("Qz"))
    }

    /// `mono.wav` (3 s of noise) and `six.wav`, a 6.0 file (FL FR FC BC SL SR) with the same
    /// noise in its back centre only; returns the noise.
    @discardableResult
    static func writeMonoAndBackCentre(in dir: String) throws -> [Float] {
        let n = noise(seconds: 3)
        try E2E.write(dir + "/mono.wav", rate: rate, channels: [n], codec: "pcm_f32")
        try writeExtensible(dir + "/six.wav", mask: 0x707, channels: 6, index: 3, signal: n)
        return n
    }

    /// What ffmpeg decodes keeps its channel layout: a 6.0 file (FL FR FC BC SL SR) in Matroska,
    /// whose fourth channel a count-based guess would take for an LFE.
    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg (make test-deps installs it)"))
    func ffmpegDecodedLayoutIsRead() throws {
        let dir = E2E.tempDir("ffweights")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try Self.writeMonoAndBackCentre(in: dir)
        try Self.writeExtensible(dir + "/side.wav", mask: 0x707, channels: 6, index: 4, signal: n)
        for name in ["six", "side"] {
            try Self.ffmpeg(["-i", dir + "/\(name).wav", "-c:a", "flac", dir + "/\(name).mka"])
        }
        let r = try E2E.run("lufs-measure", ["--jobs", "1", dir + "/mono.wav", dir + "/six.mka", dir + "/side.mka"])
        let recs = r.records.map { $0["loudness"] }
        #expect(recs.count == 3)
        let mono = try #require(recs[0]?["integrated_lufs"]?.doubleValue)
        let back = try #require(recs[1]?["integrated_lufs"]?.doubleValue, "\(r.stdout)")
        let side = try #require(recs[2]?["integrated_lufs"]?.doubleValue)
        #expect(abs(back - mono) <= 0.05, "back centre weighs 1.0: \(back) vs \(mono)")
        #expect(abs(side - mono - Self.plus141) <= 0.05, "side weighs 1.41: \(side) vs \(mono)")
        #expect(recs[1]?["layout"]?.stringValue == "L,R,C,Cb,Lss,Rss")
    }

    /// A second audio stream is weighted by the positions ffmpeg decodes for it too: six channels
    /// with the noise in the back centre (1.0), which a count-based 5.1 guess would take for the LFE.
    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg (make test-deps installs it)"))
    func everyStreamOfAFileIsWeightedByItsOwnLayout() throws {
        let dir = E2E.tempDir("streamweights")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.writeMonoAndBackCentre(in: dir)
        try Self.ffmpeg(["-i", dir + "/mono.wav", "-i", dir + "/six.wav", "-map", "0:a", "-map", "1:a", "-c:a", "flac", dir + "/two.mka"])
        let r = try E2E.run("lufs-measure", [dir + "/mono.wav", dir + "/two.mka"])
        let mono = try #require(r.records.first?["loudness"]?["integrated_lufs"]?.doubleValue)
        let streams = r.records.last?["loudness"]?["streams"]?.arrayValue ?? []
        try #require(streams.count == 2, "\(r.stdout)")
        #expect(streams[1]["layout_source"]?.stringValue == "file")
        #expect(streams[1]["layout"]?.stringValue == "L,R,C,Cb,Lss,Rss")
        let second = try #require(streams[1]["integrated_lufs"]?.doubleValue, "\(r.stdout)")
        #expect(abs(second - mono) <= 0.05, "the back centre weighs 1.0: \(second) vs \(mono)")
    }

    /// A CAF channel layout, read through libsndfile: L R LFE (DVD 4), whose third channel a
    /// count-based guess would take for a centre.
    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg (make test-deps installs it)"))
    func cafChannelLayoutIsRead() throws {
        let dir = E2E.tempDir("cafweights")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = Self.noise(seconds: 1)
        try Self.writeExtensible(dir + "/lfe.wav", mask: 0x0B, channels: 3, index: 2, signal: n)
        try Self.writeExtensible(dir + "/left.wav", mask: 0x0B, channels: 3, index: 0, signal: n)
        for name in ["lfe", "left"] {
            try Self.ffmpeg(["-i", dir + "/\(name).wav", "-c:a", "pcm_s24le", dir + "/\(name).caf"])
        }
        let r = try E2E.run("lufs-measure", ["--jobs", "1", dir + "/lfe.caf", dir + "/left.caf"])
        let recs = r.records.map { $0["loudness"] }
        #expect(recs.count == 2)
        #expect(recs[0]?["layout"]?.stringValue == "L,R,LFE")
        #expect(recs[0]?["integrated_lufs"] == .null)
        #expect(recs[1]?["integrated_lufs"]?.doubleValue != nil)
        #expect(!(recs[1]?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []).contains { $0.contains("guessed") })
    }

    /// lufs-normalize writes the speaker positions it measured by into its output, so the gate
    /// that checks the written file weighs it alike: a 6.0 file (FL FR FC BC SL SR) must not come
    /// out claiming 5.1, whose fourth channel is an LFE.
    @Test func normalizedOutputKeepsItsChannelMap() throws {
        let dir = E2E.tempDir("normmap")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = Self.noise(seconds: 4)
        try Self.writeExtensible(dir + "/six.wav", mask: 0x707, channels: 6, index: 3, signal: n)
        try Self.writeExtensible(dir + "/five.wav", mask: 0x3F, channels: 6, index: 4, signal: n)
        try Self.writeExtensible(dir + "/seven.wav", mask: 0x2D63F, channels: 12, index: 4, signal: n)
        let m = try E2E.run("lufs-measure", ["--jobs", "1", dir + "/six.wav", dir + "/five.wav", dir + "/seven.wav"])
        let r = try E2E.run("lufs-normalize", ["--target", "-23", "--out-dir", dir + "/out"], stdin: m.stdout)
        #expect(r.status == 0, "\(r.stderr) \(r.stdout)")
        let out = try E2E.run("lufs-measure", ["--jobs", "1", dir + "/out/six.wav", dir + "/out/five.wav", dir + "/out/seven.wav"])
        let recs = out.records.map { $0["loudness"] }
        #expect(recs.count == 3)
        #expect(recs[0]?["layout"]?.stringValue == "L,R,C,Cb,Lss,Rss")
        #expect(recs[1]?["layout"]?.stringValue == "L,R,C,LFE,Ls,Rs")
        #expect(recs[2]?["layout"]?.stringValue == "L,R,C,LFE,Lb,Rb,Lss,Rss,Ltf,Rtf,Ltb,Rtb")
        for (i, l) in recs.enumerated() {
            #expect(abs((l?["integrated_lufs"]?.doubleValue ?? 0) - -23) <= 0.2, "\(i): \(String(describing: l))")
            #expect(!(l?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []).contains { $0.contains("guessed") })
        }
    }

    /// FLAC (through libsndfile) records no channel positions: writing a 6.0 file there would
    /// turn its back centre into an LFE for every later measurement, so it is a loss.
    @Test func positionsAFormatCantRecordAreALoss() throws {
        let dir = E2E.tempDir("normloss")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = Self.noise(seconds: 2)
        try Self.writeExtensible(dir + "/six.wav", mask: 0x707, channels: 6, index: 3, signal: n)
        try Self.writeExtensible(dir + "/five.wav", mask: 0x3F, channels: 6, index: 4, signal: n)
        let r = try E2E.run("lufs-normalize", ["--target", "-23", "--format", "flac", "--out-dir", dir + "/out", dir + "/six.wav", dir + "/five.wav"])
        #expect(r.status == 1)
        #expect(r.records.first?["error"]?["code"] == .string("lossy"))
        #expect(r.records.first?["error"]?["message"]?.stringValue?.contains("L,R,C,Cb,Lss,Rss") == true)
        #expect(r.records.last?["normalized"]?["losses"]?.arrayValue?.isEmpty == true, "5.1 is FLAC's own order: nothing lost")
        let allowed = try E2E.run("lufs-normalize", ["--target", "-23", "--format", "flac", "--allow-loss", "--out-dir", dir + "/allowed", dir + "/six.wav"])
        #expect(allowed.status == 0)
        let losses = allowed.records.first?["normalized"]?["losses"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(losses.contains { $0.contains("can't be recorded in FLAC") }, "\(losses)")
    }
}
