import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The arithmetic behind vo-align's real-session features: splitting windows into stretches of
/// steady latency, placing stretches with crossfades, and the coarse whole-backing search.
@Suite struct LatencySegmentsTests {
    typealias P = LatencySegments.Point

    /// Windows every 2 s (48 kHz) whose lags follow `lag(seconds)`.
    func points(_ count: Int, _ lag: (Double) -> Double) -> [P] {
        (0..<count).map { i in let x = Double(i) * 96_000 + 48_000; return P(x: x, y: lag(x / 48_000)) }
    }

    @Test func oneStepIsTwoStretches() {
        // 215 ms for the first 20 s, then 160 ms (in frames), with ±0.05-frame scatter.
        let pts = points(20) { t in (t < 20 ? 10_320 : 7_680) + 0.05 * sin(t) }
        let s = LatencySegments.split(pts, tolerance: 24)
        #expect(s.groups == [Array(0..<10), Array(10..<20)])
        #expect(s.outliers.isEmpty)
        let fit = LatencySegments.commonSlopeFit(s.groups.map { $0.map { pts[$0] } })
        #expect(abs(fit.intercepts[0] - 10_320) < 0.1 && abs(fit.intercepts[1] - 7_680) < 0.1)
        #expect(abs(fit.slope) < 1e-6)
    }

    @Test func twoStepsAndALoneOutlier() {
        var pts = points(30) { t in t < 20 ? 10_320 : t < 40 ? 7_680 : 9_120 }
        pts[5].y += 300  // one window fooled (a loud word): not a stretch of its own
        let s = LatencySegments.split(pts, tolerance: 24)
        #expect(s.groups.count == 3)
        #expect(s.outliers == [5])
        #expect(s.groups[0] == [0, 1, 2, 3, 4, 6, 7, 8, 9])
    }

    @Test func driftOf100ppmStaysOneStretch() {
        // 100 ppm over 10 minutes is 60 ms: far beyond the tolerance end to end, yet one stretch,
        // with windows every 2 s, and every 10 s when a lone window may drift 200 ppm.
        let pts = (0..<300).map { i -> P in let x = Double(i) * 96_000; return P(x: x, y: 8_640 + 1e-4 * x) }
        let s = LatencySegments.split(pts, tolerance: 24)
        #expect(s.groups.count == 1 && s.groups[0].count == 300)
        let sparse = stride(from: 0, to: 300, by: 5).map { pts[$0] }
        #expect(LatencySegments.split(sparse, tolerance: 24, slopeAllowance: 2e-4).groups.count == 1)
        #expect(LatencySegments.split(sparse, tolerance: 24).groups.allSatisfy { $0.count < 2 })
        let fit = LatencySegments.commonSlopeFit(s.groups.map { $0.map { pts[$0] } })
        #expect(abs(fit.slope - 1e-4) < 1e-12)
        #expect(abs(fit.intercepts[0] - 8_640) < 1e-6)
    }

    @Test func commonSlopeAcrossStretches() {
        // Two stretches with the same 50 ppm slope and a 2400-frame step.
        let a = (0..<5).map { P(x: Double($0) * 1e5, y: 1000 + 5e-5 * Double($0) * 1e5) }
        let b = (5..<10).map { P(x: Double($0) * 1e5, y: 3400 + 5e-5 * Double($0) * 1e5) }
        let fit = LatencySegments.commonSlopeFit([a, b])
        #expect(abs(fit.slope - 5e-5) < 1e-12)
        #expect(abs(fit.intercepts[0] - 1000) < 1e-6 && abs(fit.intercepts[1] - 3400) < 1e-6)
    }

    @Test func changePointBetweenTheSides() {
        let w: [(x: Double, later: Bool)] = [(1, false), (2, false), (3, true), (4, false), (5, true), (6, true)]
        // Split after 4 leaves 5 of 6 on their side, as does after 2; the first wins.
        #expect(LatencySegments.changePoint(w) == 2.5)
        #expect(LatencySegments.changePoint([(1, false), (2, false)]) == nil)
        #expect(LatencySegments.changePoint([(10, false), (20, true)]) == 15)
    }
}

@Suite struct SegmentedPlacementTests {
    @Test func jointsAndLength() {
        // Latency falls by 55 ms (2640 frames at 48 kHz) at take frame 960000.
        let p = SegmentedPlacement(stretches: [.init(from: 0, delay: 10_320), .init(from: 960_000, delay: 7_680)],
                                   takeFrames: 2_000_000, crossfade: 240)
        #expect(p.joints == [960_000 - 7_680])
        #expect(p.change(at: 0) == 2_640)  // frames heard twice
        #expect(p.outputFrames == 2_000_000 - 7_680)
        #expect(p.span(0) == 0..<(952_320 + 120))
        #expect(p.span(1) == (952_320 - 120)..<p.outputFrames)
    }

    @Test func equalPowerCrossfade() {
        let p = SegmentedPlacement(stretches: [.init(from: 0, delay: 100), .init(from: 10_000, delay: -50)],
                                   takeFrames: 20_000, crossfade: 240)
        let j = p.joints[0]
        #expect(j == 10_050)
        #expect(p.gain(0, at: j - 121) == 1 && p.gain(1, at: j - 121) == 0)
        #expect(p.gain(0, at: j + 120) == 0 && p.gain(1, at: j + 120) == 1)
        for n in (j - 120)..<(j + 120) {
            let a = Double(p.gain(0, at: n)), b = Double(p.gain(1, at: n))
            #expect(abs(a * a + b * b - 1) < 1e-6)
        }
        // Rising latency: the earlier stretch's last 150 frames are not heard.
        #expect(p.change(at: 0) == 150)
    }
}

@Suite struct TakeLocatorTests {
    static let rate = 8000.0

    func locate(backing: [Float], take: [Float]) -> TakeLocator.Result {
        let l = TakeLocator(take: take, sampleRate: Self.rate)
        // Fed in uneven blocks, as a decoder would.
        var i = 0, k = 0
        while i < backing.count {
            let n = min([4093, 65_536, 777][k % 3], backing.count - i)
            l.add(Array(backing[i..<(i + n)])); i += n; k += 1
        }
        return l.finish()
    }

    @Test func findsATakeInTheMiddleOfALongBacking() {
        let backing = AlignTestSignals.music(seconds: 120, rate: Self.rate, seed: 41)
        let voice = AlignTestSignals.voice(seconds: 15, rate: Self.rate, seed: 42)
        // Take frame 0 at backing frame 73.3 s + 180 ms of latency.
        let position = Int(73.3 * Self.rate) - 1440
        let bleed = Array(backing[position..<(position + voice.count)])
        let take = AlignTestSignals.take(voice: voice, bleed: bleed, bleedDB: -20)
        let r = locate(backing: backing, take: take)
        #expect(r.best?.position == position)
        #expect(r.detection > 0.9 && r.uniqueness > 0.9)
        #expect(r.rivals.count == 1)
    }

    @Test func aTakeBeforeTheBackingStartsIsFoundToo() {
        let backing = AlignTestSignals.music(seconds: 30, rate: Self.rate, seed: 43)
        let voice = AlignTestSignals.voice(seconds: 10, rate: Self.rate, seed: 44)
        // Recording began 0.5 s before the backing: take frame 4000 holds backing frame 0.
        let bleed = [Float](repeating: 0, count: 4000) + Array(backing[0..<(voice.count - 4000)])
        let take = AlignTestSignals.take(voice: voice, bleed: bleed, bleedDB: -20)
        #expect(locate(backing: backing, take: take).best?.position == -4000)
    }

    @Test func aLoopedBackingNamesEveryPlace() {
        // A 4 s phrase played 8 times: a 6 s take fits at every repeat.
        let phrase = AlignTestSignals.music(seconds: 4, rate: Self.rate, seed: 45)
        var backing: [Float] = []
        for _ in 0..<8 { backing += phrase }
        let voice = AlignTestSignals.voice(seconds: 6, rate: Self.rate, seed: 46)
        let position = Int(9.5 * Self.rate)
        let take = AlignTestSignals.take(voice: voice, bleed: Array(backing[position..<(position + voice.count)]), bleedDB: -20)
        let r = locate(backing: backing, take: take)
        #expect(r.uniqueness < 0.5)
        #expect(r.rivals.count >= 5)
        // Every place is the true one plus whole repeats of the phrase.
        #expect(r.rivals.allSatisfy { ($0.position - position) % 32_000 == 0 })
        #expect(r.rivals.contains { $0.position == position })
    }

    @Test func noBleedIsNoDetection() {
        let backing = AlignTestSignals.music(seconds: 40, rate: Self.rate, seed: 47)
        let voice = AlignTestSignals.voice(seconds: 10, rate: Self.rate, seed: 48)
        // Room noise instead of the backing's bleed.
        let other = AlignTestSignals.noise(count: voice.count, rms: 0.1, seed: 49)
        let take = AlignTestSignals.take(voice: voice, bleed: other, bleedDB: -20)
        #expect(locate(backing: backing, take: take).detection < 0.5)
    }
}

@Suite struct HalfbandDecimatorTests {
    @Test func blocksGiveTheSameAsTheWhole() {
        var rng = SplitMix64(seed: 3)
        let x = (0..<1001).map { _ in Float(rng.gaussian()) }
        var whole = HalfbandDecimator()
        let all = whole.process(x)
        var parts = HalfbandDecimator()
        let pieces = parts.process(Array(x[0..<7])) + parts.process(Array(x[7..<500])) + parts.process(Array(x[500...]))
        #expect(all.count == 501)
        #expect(pieces == all)
    }

    @Test func passesLowFrequenciesAndStopsNearNyquist() {
        // At 48 kHz in: 1 kHz passes within 0.2 dB, 20 kHz (folding to 4 kHz) is 22 dB down or more.
        func gain(_ f: Double) -> Double {
            let x = (0..<48_000).map { Float(sin(2 * Double.pi * f * Double($0) / 48_000)) }
            var d = HalfbandDecimator()
            let y = Array(d.process(x)[100...])
            return (AlignTestSignals.energy(y) / Double(y.count) * 2).squareRoot()
        }
        #expect(abs(20 * log10(gain(1000))) < 0.2)
        #expect(20 * log10(gain(20_000)) < -22)
    }
}
