import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Test material for vo-align: a music-like backing defined analytically (so it can be sampled
/// at any rate, latency and clock drift exactly) and real speech from espeak-ng.
enum VoAlignMaterial {
    /// One partial of the backing: amp·env(τ)·sin(2πfτ + φ) for τ = t − start in [0, length].
    struct Partial {
        var start, length, freq, amp, phase, attack, decay: Double
    }

    /// Notes (harmonic, random pitches and lengths), a bass line, and percussion hits made of
    /// many short high partials (broadband, so the correlation peak is sharp). Not periodic.
    static let backing: [Partial] = {
        var rng = SplitMix64(seed: 20_240_611)
        var parts: [Partial] = []
        let scale = [0.0, 2, 4, 5, 7, 9, 11]
        var t = 0.0
        while t < 80 {
            let len = rng.uniform(0.25, 0.8)
            let f0 = 196 * pow(2, (scale[Int(rng.uniform() * 7)] + 12 * Double(Int(rng.uniform() * 2))) / 12)
            let amp = rng.uniform(0.04, 0.09)
            for h in 1...6 where Double(h) * f0 < 7000 {
                parts.append(Partial(start: t, length: len, freq: Double(h) * f0, amp: amp / Double(h),
                                     phase: rng.uniform(0, 2 * .pi), attack: 0.01, decay: len / 3))
            }
            t += rng.uniform(0.12, 0.45)
        }
        t = 0
        while t < 80 {
            let len = rng.uniform(0.3, 0.7)
            parts.append(Partial(start: t, length: len, freq: 55 * pow(2, scale[Int(rng.uniform() * 7)] / 12),
                                 amp: 0.12, phase: 0, attack: 0.005, decay: len / 2))
            t += len
        }
        t = 0.05
        while t < 80 {
            let hat = rng.uniform() < 0.6
            for _ in 0..<(hat ? 20 : 10) {
                parts.append(Partial(start: t, length: hat ? 0.12 : 0.25,
                                     freq: hat ? rng.uniform(2500, 7500) : rng.uniform(150, 2500),
                                     amp: hat ? 0.012 : 0.025, phase: rng.uniform(0, 2 * .pi),
                                     attack: 0.001, decay: hat ? 0.025 : 0.06))
            }
            t += [0.125, 0.25, 0.25, 0.375][Int(rng.uniform() * 4)] * rng.uniform(0.95, 1.05)
        }
        return parts
    }()

    /// The backing sampled at times t(n) = a·n + b seconds, n in 0..<count (zero before 0 s).
    static func backing(count: Int, a: Double, b: Double) -> [Float] {
        var out = [Double](repeating: 0, count: count)
        for p in backing {
            let n0 = max(0, Int(((p.start - b) / a).rounded(.up)))
            let n1 = min(count - 1, Int(((p.start + p.length - b) / a).rounded(.down)))
            guard n1 >= n0 else { continue }
            let w = 2 * Double.pi * p.freq
            for n in n0...n1 {
                let tau = a * Double(n) + b - p.start
                out[n] += p.amp * min(tau / p.attack, 1) * exp(-tau / p.decay) * sin(w * tau + p.phase)
            }
        }
        return out.map(Float.init)
    }

    static let speechText = "A voiceover is performed against playback. The performer hears the music late, "
        + "and the microphone hears the voice late again. Both delays land in the take, so the take "
        + "must be moved earlier by exactly the round trip."

    /// espeak-ng's speech (22.05 kHz mono), read once; nil when espeak-ng is not installed.
    static let speech22k: [Float]? = {
        guard E2E.has("espeak-ng") else { return nil }
        let dir = E2E.tempDir("voalign-speech")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let wav = dir + "/speech.wav"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["espeak-ng", "-w", wav, speechText]
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        guard p.terminationStatus == 0, let (rate, ch) = try? readAll(wav), rate == 22050 else { return nil }
        return ch[0]
    }()

    /// The speech at `rate`, or nil (with a recorded issue) when espeak-ng is missing.
    static func speech(rate: Int) throws -> [Float]? {
        guard let s = speech22k else {
            Issue.record("espeak-ng is not installed (or failed): run make test-deps")
            return nil
        }
        return rate == 22050 ? s : try Resampler.resample(s, fromRate: 22050, toRate: rate, quality: .medium)
    }

    static func readAll(_ path: String) throws -> (Int, [[Float]]) {
        let s = try SndfileSource(path: path)
        var ch = Array(repeating: [Float](), count: s.format.channelCount)
        try Decoder.forEachBlock(s) { b in for c in 0..<ch.count { ch[c] += b.channels[c][0..<b.frames] } }
        return (s.format.sampleRate, ch)
    }

    static func energy(_ x: [Float]) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

    /// Writes the reference: the backing at `rate`, stereo (right a little quieter), 24-bit.
    static func writeReference(_ path: String, seconds: Double, rate: Int) throws {
        let m = backing(count: Int(seconds * Double(rate)), a: 1 / Double(rate), b: 0)
        try E2E.write(path, rate: rate, channels: [m, m.map { $0 * 0.8 }])
    }

    /// A take at `rate`: speech from 1 s, plus the backing heard through a small room
    /// (`bleedDB` = direct-path bleed energy over speech energy; nil: headphones, no bleed),
    /// `latencyMS` late, its clock `driftPPM` long, recording started `startSeconds` into the
    /// reference, and noise 50 dB under the voice.
    /// Returns the samples written.
    @discardableResult
    static func writeTake(_ path: String, seconds: Double, rate: Int, latencyMS: Double, bleedDB: Double?,
                          driftPPM: Double = 0, startSeconds: Double = 0, speech: [Float]) throws -> [Float] {
        let count = Int(seconds * Double(rate))
        var voice = [Float](repeating: 0, count: count)
        var at = rate
        while at < count - rate {  // speech from 1 s, repeated with a pause
            let n = min(speech.count, count - at)
            for i in 0..<n { voice[at + i] = speech[i] }
            at += speech.count + rate / 2
        }
        var take = voice
        if let bleedDB {
            // Take frame n belongs at reference time ((1 − drift)·n − latency) / rate + start.
            let d = driftPPM * 1e-6
            let direct = backing(count: count, a: (1 - d) / Double(rate), b: startSeconds - latencyMS / 1000)
            let g = (energy(voice) / energy(direct) * pow(10, bleedDB / 10)).squareRoot()
            let taps: [(Double, Double)] = [(0, 1), (0.0031, 0.45), (0.0072, 0.3), (0.0113, 0.2)]
            for (delay, gain) in taps {
                let k = Int((delay * Double(rate)).rounded())
                for i in k..<count { take[i] += Float(g * gain) * direct[i - k] }
            }
        }
        var rng = SplitMix64(seed: 77)
        let noiseRMS = (energy(voice) / Double(count)).squareRoot() * pow(10, -50.0 / 20)
        for i in 0..<count { take[i] += Float(noiseRMS * rng.gaussian()) }
        try E2E.write(path, rate: rate, channels: [take])
        return take
    }
}

@Suite("vo-align end to end")
struct VoAlignE2ETests {
    func alignment(_ run: E2E.Run) -> JSON? { run.records.first?["alignment"] }

    func latencyMS(_ a: JSON?) -> Double { a?["latency_ms"]?.doubleValue ?? .nan }

    @Test("250 ms late, bleed 20 dB under the voice, 44.1 kHz reference, 48 kHz take; aligned take is the exact shift")
    func bleed250ms() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 48000) else { return }
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 18, rate: 44100)
        let take = try VoAlignMaterial.writeTake(dir + "/take1.wav", seconds: 14, rate: 48000, latencyMS: 250,
                                                 bleedDB: -20, speech: speech)
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--out-dir", dir + "/out", dir + "/take1.wav"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let a = alignment(r)
        #expect(abs(latencyMS(a) - 250) < 0.1, "latency \(latencyMS(a)) ms")
        #expect(a?["method"]?.stringValue == "bleed")
        #expect(a?["latency"]?["rate"]?.intValue == 48000)
        #expect(a?["latency"]?["frames"]?.intValue == 12000)
        #expect((a?["confidence"]?.doubleValue ?? 0) >= 0.5)
        let bleed = a?["bleed_db"]?.doubleValue ?? .nan
        #expect(bleed > -23 && bleed < -17, "bleed \(bleed) dB")
        #expect(a?["output"]?.stringValue == dir + "/out/take1.wav")

        // The written take is the take shifted by exactly the reported delay, sample for sample.
        let d = try #require(a?["delay"]?["frames"]?.intValue)
        let (rate, out) = try VoAlignMaterial.readAll(dir + "/out/take1.wav")
        let (_, original) = try VoAlignMaterial.readAll(dir + "/take1.wav")
        #expect(rate == 48000 && out.count == 1)
        #expect(out[0].count == take.count - d)
        #expect(out[0] == Array(original[0][d...]))
    }

    @Test("2 ms late, bleed 40 dB under the voice, recorded from 3 s into the preview: found within 0.1 ms")
    func faintBleed2ms() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 48000) else { return }
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 18, rate: 44100)
        try VoAlignMaterial.writeTake(dir + "/take2.wav", seconds: 14, rate: 48000, latencyMS: 2.01,
                                      bleedDB: -40, startSeconds: 3, speech: speech)
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--start-at", "3", dir + "/take2.wav"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let a = alignment(r)
        #expect(abs(latencyMS(a) - 2.01) < 0.1, "latency \(latencyMS(a)) ms")
        // D = L − S·rate: take frame t lands on reference frame t − D.
        let l = try #require(a?["latency"]?["frames"]?.intValue)
        #expect(a?["start"] == .object(["frames": .int(144_000), "rate": .int(48000)]))
        #expect(a?["delay"]?["frames"]?.intValue == l - 144_000)
        let bleed = a?["bleed_db"]?.doubleValue ?? .nan
        #expect(bleed > -44 && bleed < -36, "bleed \(bleed) dB")
        #expect(a?["output"] == .null && a?["mix"] == .null)
    }

    @Test("100 ppm clock drift over 70 s: drift within 10 ppm; --correct-drift output lines up to the end")
    func drift() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 16000) else { return }
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 75, rate: 22050)
        try VoAlignMaterial.writeTake(dir + "/long.wav", seconds: 70, rate: 16000, latencyMS: 120, bleedDB: -20,
                                      driftPPM: 100, speech: speech)
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--correct-drift",
                                         "--out-dir", dir + "/out", dir + "/long.wav"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let a = alignment(r)
        #expect(abs(latencyMS(a) - 120) < 0.1, "latency \(latencyMS(a)) ms")
        let drift = a?["drift_ppm"]?.doubleValue ?? .nan
        #expect(abs(drift - 100) < 10, "drift \(drift) ppm")
        #expect(a?["drift_corrected"] == .bool(true))
        // A steady drift is one stretch, not a staircase of latency changes.
        #expect(a?["segments"]?.arrayValue?.count == 1)

        // The corrected take, measured again, has neither latency nor drift left.
        let again = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--max-latency-ms", "100",
                                             dir + "/out/long.wav"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        let b = alignment(again)
        #expect(abs(latencyMS(b)) < 0.1, "left-over latency \(latencyMS(b)) ms")
        let left = b?["drift_ppm"]?.doubleValue ?? .nan
        #expect(abs(left) < 10, "left-over drift \(left) ppm")
    }

    @Test("A take recorded on headphones is refused with no-bleed")
    func noBleed() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 48000) else { return }
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 14, rate: 44100)
        try VoAlignMaterial.writeTake(dir + "/dry.wav", seconds: 12, rate: 48000, latencyMS: 0, bleedDB: nil, speech: speech)
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--out-dir", dir + "/out", dir + "/dry.wav"])
        #expect(r.status == 1)
        let e = r.records.first?["error"]
        #expect(e?["code"]?.stringValue == "no-bleed")
        #expect(e?["message"]?.stringValue == "\u{201C}dry.wav\u{201D} holds no trace of \u{201C}backing.wav\u{201D}: it was probably recorded on headphones.")
        #expect(e?["suggestion"]?.stringValue?.contains("--latency-ms") == true)
        #expect(r.records.first?["alignment"] == nil)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/dry.wav"))
    }

    @Test("A take full of bleed recorded 30 s into the backing, without --start-at: not called headphones, --start-at auto suggested",
          .enabled(if: E2E.has("espeak-ng"), "the take's voice is espeak-ng's"))
    func bleedElsewhereOnTheTimeline() throws {
        let speech = try #require(try VoAlignMaterial.speech(rate: 16000))
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 60, rate: 16000)
        try VoAlignMaterial.writeTake(dir + "/late.wav", seconds: 20, rate: 16000, latencyMS: 40, bleedDB: -20,
                                      startSeconds: 30, speech: speech)
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", dir + "/late.wav"])
        #expect(r.status == 1)
        let e = try #require(r.records.first?["error"])
        let message = try #require(e["message"]?.stringValue)
        #expect(e["code"]?.stringValue == "no-bleed")
        #expect(!message.contains("headphones"), "\(message)")
        let lead = "\u{201C}late.wav\u{201D} holds no trace of \u{201C}backing.wav\u{201D} within 1000 ms of its start 0 s (no --start-at given), but the backing is clearly in it from about "
        #expect(message.hasPrefix(lead) && message.hasSuffix(" s into the reference: recording began there."), "\(message)")
        // The place found is the start less the latency (30 s − 40 ms), to the coarse search's precision.
        let found = Double(message.dropFirst(lead.count).prefix { $0 != " " }) ?? .nan
        #expect(abs(found - 29.96) < 0.05, "\(message)")
        #expect(e["suggestion"]?.stringValue?.hasPrefix("Let vo-align find the start with --start-at auto, or give it: --start-at 30") == true, "\(e)")
        // What it suggests works.
        let auto = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--start-at", "auto", dir + "/late.wav"])
        #expect(auto.status == 0, "\(auto.stdout) \(auto.stderr)")
    }

    @Test("Known latency and start: exact placement, records from stdin, refusing to overwrite")
    func knownLatency() throws {
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix64(seed: 5)
        let take = (0..<48000 * 3).map { _ in Float(0.1 * rng.gaussian()) }
        try E2E.write(dir + "/take.wav", rate: 48000, channels: [take, take.map { -$0 }], codec: "pcm_s16")
        let args = ["--latency-ms", "180", "--start-at", "2.5", "--out-dir", dir + "/out"]
        let line = "{\"path\":\"\(dir)/take.wav\",\"scene\":12}\n"
        let r = try E2E.run("vo-align", args, stdin: line)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let rec = try #require(r.records.first)
        #expect(rec["scene"]?.intValue == 12)
        let a = rec["alignment"]
        #expect(a?["method"]?.stringValue == "known")
        #expect(a?["latency"] == .object(["frames": .int(8640), "rate": .int(48000)]))
        #expect(a?["start"] == .object(["frames": .int(120_000), "rate": .int(48000)]))
        #expect(a?["delay"] == .object(["frames": .int(8640 - 120_000), "rate": .int(48000)]))
        #expect(a?["latency_ms"]?.doubleValue == 180)
        #expect(a?["confidence"] == .null && a?["drift_ppm"] == .null && a?["bleed_db"] == .null)

        // D = 8640 − 120000 < 0: the take starts 111360 frames into the reference timeline,
        // after that much silence; same format (16-bit stereo), sample for sample.
        let (rate, out) = try VoAlignMaterial.readAll(dir + "/out/take.wav")
        let (_, original) = try VoAlignMaterial.readAll(dir + "/take.wav")
        let lead = 120_000 - 8640
        #expect(rate == 48000 && out.count == 2)
        #expect(try SndfileSource(path: dir + "/out/take.wav").description.codec == "pcm_s16")
        #expect(out[0].count == take.count + lead)
        #expect(out[0][..<lead].allSatisfy { $0 == 0 })
        #expect(Array(out[0][lead...]) == original[0] && Array(out[1][lead...]) == original[1])

        // A second run refuses to replace the output, and leaves it as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/take.wav"))
        let again = try E2E.run("vo-align", args, stdin: line)
        #expect(again.status == 1)
        #expect(again.records.first?["error"]?["code"]?.stringValue == "exists")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/take.wav")) == before)
        let forced = try E2E.run("vo-align", args + ["--overwrite"], stdin: line)
        #expect(forced.status == 0)
    }

    @Test("--mix: reference plus the placed voice, reference ducked by --duck-db while the voice is active")
    func mixDucked() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 48000) else { return }
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 14, rate: 48000)
        let take = try VoAlignMaterial.writeTake(dir + "/vox.wav", seconds: 12, rate: 48000, latencyMS: 0,
                                                 bleedDB: nil, speech: speech)
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--latency-ms", "100",
                                         "--mix", dir + "/mix-{stem}.wav", dir + "/vox.wav"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(alignment(r)?["mix"]?.stringValue == dir + "/mix-vox.wav")
        let (rate, mix) = try VoAlignMaterial.readAll(dir + "/mix-vox.wav")
        let (_, ref) = try VoAlignMaterial.readAll(dir + "/backing.wav")
        let (_, voxFile) = try VoAlignMaterial.readAll(dir + "/vox.wav")
        #expect(rate == 48000 && mix.count == 2 && mix[0].count == ref[0].count)
        // Same rate, no drift: the voice is the take moved 4800 frames earlier, so the
        // reference's gain is (mix − voice) / reference wherever the reference is loud enough.
        let shift = 4800
        func gain(at seconds: Double) -> Double {
            let lo = Int(seconds * 48000), hi = lo + 2400
            var num = 0.0, den = 0.0
            for n in lo..<hi {
                let v = n + shift < voxFile[0].count ? Double(voxFile[0][n + shift]) : 0
                num += (Double(mix[0][n]) - v) * Double(ref[0][n])
                den += Double(ref[0][n]) * Double(ref[0][n])
            }
            return num / den
        }
        // Speech starts at 1 s in the take, 0.9 s on the timeline: the reference is untouched
        // well before that and 12 dB down inside the loudest stretch of speech.
        #expect(abs(gain(at: 0.2) - 1) < 0.01, "gain before the voice \(gain(at: 0.2))")
        var loudest = 0, best = 0.0
        for s in stride(from: 48000, to: take.count - 4800, by: 2400) {
            let e = VoAlignMaterial.energy(Array(take[s..<(s + 2400)]))
            if e > best { best = e; loudest = s }
        }
        let g = gain(at: Double(loudest - shift) / 48000)
        #expect(abs(g - pow(10, -12.0 / 20)) < 0.01, "gain under the voice \(g)")
    }

    @Test("Usage errors: status 2, nothing on stdout")
    func usage() throws {
        let dir = E2E.tempDir("voalign"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)])
        try E2E.write(dir + "/b.wav", rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)])
        let cases: [[String]] = [
            [dir + "/a.wav"],  // neither --reference nor --latency-ms
            ["--reference", dir + "/a.wav", "--mix", dir + "/mix.wav", dir + "/a.wav", dir + "/b.wav"],  // no {stem}
            ["--latency-ms", "20", "--correct-drift", "--out-dir", dir, dir + "/a.wav"],
            ["--reference", dir + "/missing.wav", dir + "/a.wav"],
            ["--latency-ms", "fast", dir + "/a.wav"],
            ["--latency-ms", "20", "--start-at", "auto", dir + "/a.wav"],  // auto searches the reference
            ["--latency-ms", "20", "--tolerance-ms", "3", dir + "/a.wav"],  // nothing to check against
            ["--reference", dir + "/b.wav", "--start-at", "soon", dir + "/a.wav"],
        ]
        for args in cases {
            let r = try E2E.run("vo-align", args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.hasPrefix("vo-align: error: "))
        }
    }
}
