import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A backing whose score repeats, searched in the wrong place: the windows of the take find the
/// backing at several latencies, back and forth along the take, and vo-align refuses instead of
/// taking them for stretches of a latency that changes.
@Suite("vo-align on a backing that repeats")
struct VoAlignRepeatsE2ETests {
    static let rate = 16000
    static let beat = 0.3

    /// A score repeated every `period` seconds: one note a beat (0.3 s) from two pitches, fixed
    /// for every repeat, and a percussion hit on every beat, the same hit on each, half of them
    /// replaced by fresh noise in each repeat (so repeats are alike, not identical).
    static func repeatingScore(seconds: Double, period: Double, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        let r = Double(rate), count = Int(seconds * r), beats = Int(period / beat + 1e-9)
        let noteLength = Int(2 * beat * r), hitLength = Int(0.1 * r)
        let notes: [[Float]] = (0..<beats).map { _ in
            let f = rng.uniform() < 0.5 ? 196.0 : 220.0
            let phases = (1...5).map { _ in rng.uniform(0, 2 * .pi) }
            return (0..<noteLength).map { n in
                let t = Double(n) / r
                let env = min(t / 0.01, 1) * exp(-t / 0.25)
                return Float(env * 0.05 * (1...5).reduce(0) { $0 + sin(2 * .pi * Double($1) * f * t + phases[$1 - 1]) / Double($1) })
            }
        }
        func hit() -> [Float] { (0..<hitLength).map { Float(rng.gaussian() * exp(-Double($0) / r / 0.02) * 0.05) } }
        let same = hit()
        var out = [Float](repeating: 0, count: count + noteLength)
        var repeatStart = 0.0
        while repeatStart < seconds {
            for k in 0..<beats {
                let s = Int(((repeatStart + Double(k) * beat) * r).rounded())
                guard s < count else { break }
                for (i, v) in notes[k].enumerated() { out[s + i] += v }
                for (i, v) in (rng.uniform() < 0.5 ? same : hit()).enumerated() { out[s + i] += v }
            }
            repeatStart += period
        }
        return Array(out.prefix(count))
    }

    /// The take: the backing's first minute, `latencyMS` late and 20 dB under espeak-ng's voice.
    static func take(backing: [Float], latencyMS: Double, speech: [Float]) -> [Float] {
        let count = 60 * rate, d = Int((latencyMS * Double(rate) / 1000).rounded())
        var voice = [Float](repeating: 0, count: count)
        var at = rate
        while at < count - rate {
            for i in 0..<min(speech.count, count - at) { voice[at + i] = speech[i] }
            at += speech.count + rate / 2
        }
        let bleed = (0..<count).map { $0 >= d ? backing[$0 - d] : 0 }
        let g = Float((VoAlignMaterial.energy(voice) / VoAlignMaterial.energy(bleed) * pow(10, -20.0 / 10)).squareRoot())
        var rng = SplitMix64(seed: 21)
        return (0..<count).map { voice[$0] + g * bleed[$0] + Float(1e-4 * rng.gaussian()) }
    }

    /// Repeat period, search width, seed of the score, and whether the windows reach the dense
    /// scan and disagree there (the others are refused by the first, sparse windows already).
    static let wrongPlaces: [(Double, Double, UInt64, Bool)] = [
        (29.7, 300, 1, true), (29.4, 300, 2, false), (29.4, 500, 2, true), (30.6, 300, 3, true), (30.6, 500, 4, false),
    ]

    @Test("Searched from 30 s, with the repeat outside --max-latency-ms: refused as low-confidence, naming the places",
          .enabled(if: E2E.has("espeak-ng"), "needs espeak-ng for the voice (make test-deps installs it)"),
          arguments: wrongPlaces)
    func repeatSearchedInTheWrongPlace(period: Double, maxLatencyMS: Double, seed: UInt64, disagree: Bool) throws {
        guard let speech = try VoAlignMaterial.speech(rate: Self.rate) else { return }
        let dir = E2E.tempDir("voalign-repeats"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let backing = Self.repeatingScore(seconds: 5 * period, period: period, seed: seed)
        try E2E.write(dir + "/backing.wav", rate: Self.rate, channels: [backing])
        try E2E.write(dir + "/take.wav", rate: Self.rate, channels: [Self.take(backing: backing, latencyMS: 15, speech: speech)])
        // Recorded from 0 s, 15 ms late; from 30 s the repeat sits at 15 + 30 000 − period·1000 ms,
        // outside the search, and beats of the score fit inside it here and there.
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--start-at", "30",
                                         "--max-latency-ms", VoAlign.number(maxLatencyMS), dir + "/take.wav"])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let e = r.records.first?["error"]
        #expect(e?["code"]?.stringValue == "low-confidence", "\(r.stdout)")
        #expect(e?["suggestion"]?.stringValue?.contains("--start-at auto") == true)
        guard disagree else { return }
        let m = e?["message"]?.stringValue ?? ""
        #expect(m.contains("its windows don't agree on one latency from the start 30 s: "), "\(m)")
        #expect(m.contains(" windows), ") && m.contains("no placement has a clear majority in take order"), "\(m)")
        // The places named are within the search, each with its count of windows.
        let named = m.split(separator: ":").last?.split(separator: ";").first ?? ""
        let places = named.split(separator: ",").filter { $0.contains(" ms (") }.compactMap { Double($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
        #expect(places.count >= 2 && places.allSatisfy { abs($0) <= maxLatencyMS }, "\(m)")
    }

    @Test("The same take searched from where it was recorded is placed, and says how many windows back it",
          .enabled(if: E2E.has("espeak-ng"), "needs espeak-ng for the voice (make test-deps installs it)"))
    func repeatSearchedInTheRightPlace() throws {
        guard let speech = try VoAlignMaterial.speech(rate: Self.rate) else { return }
        let dir = E2E.tempDir("voalign-repeats"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let backing = Self.repeatingScore(seconds: 5 * 29.7, period: 29.7, seed: 1)
        try E2E.write(dir + "/backing.wav", rate: Self.rate, channels: [backing])
        try E2E.write(dir + "/take.wav", rate: Self.rate, channels: [Self.take(backing: backing, latencyMS: 15, speech: speech)])
        let r = try E2E.run("vo-align", ["--reference", dir + "/backing.wav", "--max-latency-ms", "300", dir + "/take.wav"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let a = r.records.first?["alignment"]
        #expect(a?["latency"]?["frames"]?.intValue == 240, "\(r.stdout)")
        #expect(a?["segments"]?.arrayValue?.count == 1)
        let agreeing = a?["windows_agreeing"]?.intValue ?? 0, shown = a?["windows_with_backing"]?.intValue ?? 0
        #expect(shown > 0 && 3 * agreeing >= 2 * shown && agreeing <= shown && shown <= (a?["windows_analysed"]?.intValue ?? 0))
    }
}
