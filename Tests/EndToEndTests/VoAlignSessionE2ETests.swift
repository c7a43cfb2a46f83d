import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Real recording sessions: takes from anywhere in a long backing, latency that steps, a
/// recorder whose claim is wrong, a session log of records, a camera's video as the take.
/// Material: the synthesised backing of `VoAlignMaterial` (or sox's for a long one), espeak-ng
/// speech, a small room, bleed at a known delay.
@Suite("vo-align on real sessions")
struct VoAlignSessionE2ETests {
    func alignment(_ run: E2E.Run, _ i: Int = 0) -> JSON? { i < run.records.count ? run.records[i]["alignment"] : nil }

    static func run(_ program: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [program] + args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        if p.terminationStatus != 0 { throw ToolError(.badInput, "\(program) \(args) failed", suggestion: "") }
    }

    /// A take at `rate` whose bleed (through the room, `bleedDB` under the voice) follows
    /// `steps`: from each (seconds, latency ms) on, that latency. Returns the samples written.
    @discardableResult
    static func writeSteppedTake(_ path: String, seconds: Double, rate: Int, steps: [(Double, Double)],
                                 bleedDB: Double, speech: [Float]) throws -> [Float] {
        let count = Int(seconds * Double(rate))
        var voice = [Float](repeating: 0, count: count)
        var at = rate
        while at < count - rate {
            let n = min(speech.count, count - at)
            for i in 0..<n { voice[at + i] = speech[i] }
            at += speech.count + rate / 2
        }
        var direct = [Float](repeating: 0, count: count)
        for (k, (from, ms)) in steps.enumerated() {
            let lo = Int(from * Double(rate)), hi = k + 1 < steps.count ? Int(steps[k + 1].0 * Double(rate)) : count
            let piece = VoAlignMaterial.backing(count: count, a: 1 / Double(rate), b: -ms / 1000)
            for i in lo..<hi { direct[i] = piece[i] }
        }
        let g = (VoAlignMaterial.energy(voice) / VoAlignMaterial.energy(direct) * pow(10, bleedDB / 10)).squareRoot()
        var take = voice
        for (delay, gain) in [(0.0, 1.0), (0.0031, 0.45), (0.0072, 0.3), (0.0113, 0.2)] {
            let k = Int((delay * Double(rate)).rounded())
            for i in k..<count { take[i] += Float(g * gain) * direct[i - k] }
        }
        var rng = SplitMix64(seed: 78)
        let noiseRMS = (VoAlignMaterial.energy(voice) / Double(count)).squareRoot() * pow(10, -50.0 / 20)
        for i in 0..<count { take[i] += Float(noiseRMS * rng.gaussian()) }
        try E2E.write(path, rate: rate, channels: [take])
        return take
    }

    @Test("--start-at auto: a take from 2:30 into a 4-minute backing, no start given, placed to the frame")
    func autoStartInALongBacking() throws {
        guard E2E.has("sox") else { Issue.record("sox is not installed: run make test-deps"); return }
        guard let speech = try VoAlignMaterial.speech(rate: 16000) else { return }
        let dir = E2E.tempDir("voalign-session"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let backing = dir + "/backing.wav"
        try Self.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", backing, "synth", "240", "pinknoise",
                             "synth", "240", "sine", "mix", "110", "tremolo", "0.3", "60", "gain", "-14"])
        let (_, ref) = try VoAlignMaterial.readAll(backing)
        // Take frame 0 holds the backing at 150 s − 180 ms (recording began at 2:30, 180 ms late).
        let first = Int(149.82 * 44100)
        let mono = (0..<(25 * 44100)).map { (ref[0][first + $0] + ref[1][first + $0]) / 2 }
        var bleed = try Resampler.resample(mono, fromRate: 44100, toRate: 16000, quality: .best)
        bleed = Array(bleed.prefix(20 * 16000))
        var voice = [Float](repeating: 0, count: bleed.count)
        for i in 0..<min(speech.count, voice.count - 16000) { voice[16000 + i] = speech[i] }
        let g = Float((VoAlignMaterial.energy(voice) / VoAlignMaterial.energy(bleed) * pow(10, -18.0 / 10)).squareRoot())
        try E2E.write(dir + "/take.wav", rate: 16000, channels: [zip(voice, bleed).map { $0 + g * $1 }])

        let r = try E2E.run("vo-align", ["--reference", backing, "--start-at", "auto", dir + "/take.wav"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let a = alignment(r)
        let d = a?["delay"]?["frames"]?.intValue ?? 0
        #expect(abs(d - -2_397_120) <= 2, "delay \(d) frames")  // 0.1 ms at 16 kHz
        #expect(a?["latency"] == .null && a?["start"] == .null)
        #expect(a?["origin"]?["start"]?.stringValue == "found")
        // With the recorder's latency, the start follows: S = L − D.
        let claimed = try E2E.run("vo-align", ["--reference", backing, "--start-at", "auto", "--latency-ms", "180", dir + "/take.wav"])
        let b = alignment(claimed)
        let s = b?["start"]?["frames"]?.intValue ?? 0
        #expect(abs(s - 2_400_000) <= 2, "start \(s) frames")
        #expect(b?["origin"]?["latency"]?.stringValue == "option" && b?["claim_checked"] == .bool(false))
    }

    @Test("Latency that steps (one step, two steps): one segment per stretch, each re-timed where it was performed")
    func latencySteps() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 16000) else { return }
        let dir = E2E.tempDir("voalign-session"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 40, rate: 22050)
        let cases: [[(Double, Double)]] = [[(0, 215), (15, 160)], [(0, 215), (12, 160), (24, 190)]]
        for (c, steps) in cases.enumerated() {
            let name = dir + "/step\(c + 1).wav"
            try Self.writeSteppedTake(name, seconds: 34, rate: 16000, steps: steps, bleedDB: -20, speech: speech)
            let take = try VoAlignMaterial.readAll(name).1[0]
            let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--out-dir", dir + "/out", name])
            #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
            let a = alignment(r)
            let segments = a?["segments"]?.arrayValue ?? []
            #expect(segments.count == steps.count, "\(segments)")
            guard segments.count == steps.count else { continue }
            #expect(abs((a?["latency_ms"]?.doubleValue ?? 0) - 215) < 0.1)
            let (_, out) = try VoAlignMaterial.readAll(dir + "/out/step\(c + 1).wav")
            for (k, (from, ms)) in steps.enumerated() {
                let seg = segments[k]
                let l = seg["latency_ms"]?.doubleValue ?? .nan
                #expect(abs(l - ms) < 0.1, "stretch \(k): \(l) ms, truth \(ms)")
                let f = seg["from_seconds"]?.doubleValue ?? .nan
                #expect(abs(f - from) < 0.5, "stretch \(k) from \(f) s, truth \(from)")
                #expect(seg["delay"]?["frames"]?.intValue == Int((ms * 16).rounded()))
                // Well inside the stretch, output frame n is take frame n + D_k, sample for sample.
                let dk = Int((ms * 16).rounded())
                let lo = Int((from + 1) * 16000) - dk
                let hi = Int(((k + 1 < steps.count ? steps[k + 1].0 : 34) - 1) * 16000) - dk
                let mismatched = (lo..<hi).filter { out[0][$0] != take[$0 + dk] }.count
                #expect(mismatched == 0, "stretch \(k): \(mismatched) frames not placed by its delay \(dk)")
            }
            let joints = a?["joints"]?.arrayValue ?? []
            #expect(joints.count == steps.count - 1)
            #expect(joints.first?["repeated_frames"]?.intValue == 55 * 16)  // 215 → 160 ms: 55 ms heard twice
        }
    }

    @Test("A looped backing with --start-at auto is refused as low-confidence, naming the places")
    func loopedBacking() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 16000) else { return }
        let dir = E2E.tempDir("voalign-session"); defer { try? FileManager.default.removeItem(atPath: dir) }
        // A 6 s phrase played ten times; the take begins 19.9 s in (20 s, 100 ms late).
        let phrase = VoAlignMaterial.backing(count: 6 * 16000, a: 1 / 16000, b: 0)
        var loop: [Float] = []
        for _ in 0..<10 { loop += phrase }
        try E2E.write(dir + "/loop.wav", rate: 16000, channels: [loop])
        var take = [Float](repeating: 0, count: 12 * 16000)
        for i in 0..<min(speech.count, take.count - 16000) { take[16000 + i] = speech[i] }
        let bleed = Array(loop[(199 * 1600)..<(199 * 1600 + take.count)])
        let g = Float((VoAlignMaterial.energy(take) / VoAlignMaterial.energy(bleed) * pow(10, -20.0 / 10)).squareRoot())
        for i in take.indices { take[i] += g * bleed[i] }
        try E2E.write(dir + "/take.wav", rate: 16000, channels: [take])
        let r = try E2E.run("vo-align", ["--reference", dir + "/loop.wav", "--start-at", "auto", dir + "/take.wav"])
        #expect(r.status == 1)
        let e = r.records.first?["error"]
        #expect(e?["code"]?.stringValue == "low-confidence")
        let m = e?["message"]?.stringValue ?? ""
        #expect(m.contains("places of \u{201C}loop.wav\u{201D} about equally well"), "\(m)")
        #expect(m.contains("19.9 s") && m.contains("13.9 s") && m.contains("25.9 s"), "\(m)")
        #expect(e?["suggestion"]?.stringValue?.contains("--start-at") == true)
    }

    @Test("A recorder's wrong latency is refused as latency-mismatch; a right one is checked; without bleed it is used")
    func claimedLatency() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 16000) else { return }
        let dir = E2E.tempDir("voalign-session"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 16, rate: 44100)
        try VoAlignMaterial.writeTake(dir + "/phone.wav", seconds: 12, rate: 16000, latencyMS: 300, bleedDB: -20, speech: speech)
        try VoAlignMaterial.writeTake(dir + "/dry.wav", seconds: 12, rate: 16000, latencyMS: 0, bleedDB: nil, speech: speech)
        let ref = ["--reference", dir + "/backing.wav"]
        let wrong = try E2E.run("vo-align", ref + ["--latency-ms", "50", dir + "/phone.wav"])
        #expect(wrong.status == 1)
        let e = wrong.records.first?["error"]
        #expect(e?["code"]?.stringValue == "latency-mismatch")
        let m = e?["message"]?.stringValue ?? ""
        #expect(m.contains("(50 ms, --latency-ms)") && m.contains(" ms measured from the bleed of \u{201C}backing.wav\u{201D} by 2") && m.contains("5 ms tolerance"), "\(m)")
        #expect(e?["suggestion"]?.stringValue?.contains("Drop the claim") == true)

        let right = try E2E.run("vo-align", ref + ["--latency-ms", "302", dir + "/phone.wav"])
        #expect(right.status == 0, "\(right.stdout)")
        #expect(abs((alignment(right)?["latency_ms"]?.doubleValue ?? 0) - 300) < 0.1)
        #expect(alignment(right)?["claim_checked"] == .bool(true))
        #expect(alignment(right)?["claimed_latency_ms"]?.doubleValue == 302)
        let strict = try E2E.run("vo-align", ref + ["--latency-ms", "302", "--tolerance-ms", "1", dir + "/phone.wav"])
        #expect(strict.records.first?["error"]?["code"]?.stringValue == "latency-mismatch")

        let dry = try E2E.run("vo-align", ref + ["--latency-ms", "150", dir + "/dry.wav"])
        #expect(dry.status == 0, "\(dry.stdout)")
        let a = alignment(dry)
        #expect(a?["method"]?.stringValue == "known" && a?["claim_checked"] == .bool(false))
        #expect(a?["latency"]?["frames"]?.intValue == 2400)
        #expect(a?["notes"]?.arrayValue?.contains { $0.stringValue?.contains("could not be checked") == true } == true)
    }

    @Test("A session log as records: each take's start_seconds and latency_ms override the options, and the record says so")
    func sessionLog() throws {
        guard let speech = try VoAlignMaterial.speech(rate: 16000) else { return }
        let dir = E2E.tempDir("voalign-session"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 20, rate: 44100)
        try VoAlignMaterial.writeTake(dir + "/t1.wav", seconds: 12, rate: 16000, latencyMS: 120, bleedDB: -20,
                                      startSeconds: 3, speech: speech)
        try VoAlignMaterial.writeTake(dir + "/t2.wav", seconds: 8, rate: 16000, latencyMS: 0, bleedDB: nil, speech: speech)
        let log = """
            {"path":"\(dir)/t1.wav","start_seconds":3,"latency_ms":121,"take":1}
            {"path":"\(dir)/t2.wav","start_seconds":2,"latency_ms":150,"take":2}
            {"path":"\(dir)/t1.wav","start_seconds":"soon"}
            {"path":"\(dir)/t1.wav"}

            """
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--start-at", "7"], stdin: log)
        #expect(r.records.count == 4, "\(r.stdout) \(r.stderr)")
        guard r.records.count == 4 else { return }
        let a = alignment(r, 0)
        #expect(r.records[0]["take"]?.intValue == 1)
        #expect(a?["start"] == .object(["frames": .int(48_000), "rate": .int(16000)]))
        #expect(abs((a?["latency_ms"]?.doubleValue ?? 0) - 120) < 0.1)
        #expect(a?["origin"] == .object(["start": .string("record"), "latency": .string("measured"), "claim": .string("record")]))
        #expect(a?["claim_checked"] == .bool(true))
        let b = alignment(r, 1)
        #expect(b?["method"]?.stringValue == "known")
        #expect(b?["latency"]?["frames"]?.intValue == 2400 && b?["start"]?["frames"]?.intValue == 32_000)
        #expect(b?["origin"] == .object(["start": .string("record"), "latency": .string("record"), "claim": .string("record")]))
        #expect(r.records[2]["error"]?["code"]?.stringValue == "bad-input")
        #expect(r.records[2]["error"]?["message"]?.stringValue?.contains("start_seconds \"soon\"") == true)
        // No value in the record: the option applies (and at 7 s there is no trace of the take).
        #expect(r.records[3]["error"]?["code"]?.stringValue == "no-bleed")
        #expect(r.status == 1)
    }

    @Test("A camera's video as the take: its audio is aligned and written as WAV")
    func videoTake() throws {
        guard E2E.has("ffmpeg") else { Issue.record("ffmpeg is not installed: run make test-deps"); return }
        guard let speech = try VoAlignMaterial.speech(rate: 48000) else { return }
        let dir = E2E.tempDir("voalign-session"); defer { try? FileManager.default.removeItem(atPath: dir) }
        try VoAlignMaterial.writeReference(dir + "/backing.wav", seconds: 12, rate: 48000)
        try VoAlignMaterial.writeTake(dir + "/cam.wav", seconds: 8, rate: 48000, latencyMS: 90, bleedDB: -20, speech: speech)
        try Self.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=25",
                                "-i", dir + "/cam.wav", "-shortest", "-c:v", "mpeg4", "-c:a", "pcm_s24le", dir + "/cam.mov"])
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--out-dir", dir + "/out", dir + "/cam.mov"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let a = alignment(r)
        #expect(abs((a?["latency_ms"]?.doubleValue ?? 0) - 90) < 0.1)
        #expect(a?["output"]?.stringValue == dir + "/out/cam.wav")
        let (rate, out) = try VoAlignMaterial.readAll(dir + "/out/cam.wav")
        let (_, original) = try VoAlignMaterial.readAll(dir + "/cam.wav")
        #expect(rate == 48000 && out.count == 1)
        let mismatched = (0..<240_000).filter { out[0][$0] != original[0][$0 + 4320] }.count
        #expect(mismatched == 0, "\(mismatched) frames differ from the take moved 90 ms earlier")
    }
}
