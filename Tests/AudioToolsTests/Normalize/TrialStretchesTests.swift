import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Where a codec trial takes its stretches (TrialStretches, shared by lossy audio files and media
/// streams): the fixed places without an analysis, and with one the places nearest the ceiling
/// and a stretch of typical loudness: analytic envelopes with a known loudest spot.
@Suite struct TrialStretchesTests {
    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    /// 100 s in 0.1 s hops: peaks at −20 dB but a loud spot at 60–62 s (0 dB) and a lesser one at
    /// 20–21 s (−1.9 dB); a quiet opening (20 dB down, gated out) for the first 30 s, then steady.
    static func envelope() -> TrialStretches.Envelope {
        var peaks = [Double](repeating: 0.1, count: 1000), powers = [Double](repeating: 0.01, count: 1000)
        for h in 600..<620 { peaks[h] = 1 }
        for h in 200..<210 { peaks[h] = 0.8 }
        for h in 0..<300 { powers[h] = 0.0001 }
        return .init(hopSeconds: 0.1, peaks: peaks, powers: powers)
    }

    @Test func withoutAnAnalysisTheFixedPlacesAsBefore() {
        let s = TrialStretches.choose(durationSeconds: 100)
        #expect(s.map(\.start) == [0, 40, 75] && s.map(\.lead) == [0, 0.5, 0.5] && s.map(\.length) == [2.5, 3, 3])
        // A short stream is tried whole; an unknown length as far as three stretches go.
        #expect(TrialStretches.choose(durationSeconds: 6) == [.init(start: 0, length: 7, lead: 0)])
        #expect(TrialStretches.choose(durationSeconds: nil) == [.init(start: 0, length: 7.5, lead: 0)])
        // The media path's stretches are these.
        #expect(CodecOvershoot.stretches(durationSeconds: 100).map(\.start) == [0, 40, 75])
    }

    @Test func theLoudestSpotsAndATypicalStretchAreChosen() {
        let s = TrialStretches.choose(durationSeconds: 100, envelope: Self.envelope(), thresholdDB: -1)
        #expect(s.count == 3)
        // In stream order: the lesser spot (its 25 hops measured from 18.5 s cover 20–21 s), the
        // first steady stretch after the quiet opening (for the loudness), the loudest spot.
        #expect(s.count == 3 && Self.close(s[0].start, 18) && Self.close(s[1].start, 29.5) && Self.close(s[2].start, 59))
        for x in s { #expect(Self.close(x.length, 3) && Self.close(x.lead, 0.5)) }
        // Each spot lies inside the measured part of its stretch.
        let measured = s.map { ($0.start + $0.lead) ..< ($0.start + $0.length) }
        #expect(measured.contains { $0.lowerBound <= 60 && $0.upperBound >= 62 })
        #expect(measured.contains { $0.lowerBound <= 20 && $0.upperBound >= 21 })
        // Without a limiter the peaks are scored against the loudest: the same places here.
        #expect(TrialStretches.choose(durationSeconds: 100, envelope: Self.envelope()) == s)
    }

    @Test func aLoudSpotAtTheVeryStartHasNoLead() {
        var e = Self.envelope()
        for h in 0..<10 { e.peaks[h] = 2 }
        let s = TrialStretches.choose(durationSeconds: 100, envelope: e, thresholdDB: -1)
        #expect(Self.close(s[0].start, 0) && Self.close(s[0].lead, 0) && Self.close(s[0].length, 2.5))
    }

    @Test func inFramesEachStretchFitsTheFile() {
        let s = CodecLanding.trialStretches(totalFrames: 48_000 * 100, sampleRate: 48_000, envelope: Self.envelope(), thresholdDB: -1)
        // Chosen at 864,000, 1,416,000 and 2,832,000 frames, each starts on the codecs' frame grid
        // before that (a multiple of 46,080) and measures the same 120,000 frames from there.
        let chosen = [864_000, 1_416_000, 2_832_000]
        #expect(s.map(\.start) == chosen.map { $0 / 46_080 * 46_080 })
        #expect(zip(s, chosen).allSatisfy { $0.start + $0.count == $1 + 144_000 && $0.count - $0.lead == 120_000 })
        // An envelope too short for a stretch leaves the fixed places (on the grid).
        let short = TrialStretches.Envelope(hopSeconds: 0.1, peaks: [1, 1], powers: [1, 1])
        #expect(CodecLanding.trialStretches(totalFrames: 48_000 * 100, sampleRate: 48_000, envelope: short).map(\.start)
                == [0, 48_000 * 40 / 46_080 * 46_080, 48_000 * 75 / 46_080 * 46_080])
    }

    @Test func theModelGivesTheEnvelopeAndTheProcessedPeak() {
        // 3 hops of 100 units (hop 4800 frames at 48 kHz); the second hop peaks at 0.5 (−6 dB).
        var peaks = [Float](repeating: 0.1, count: 300)
        peaks[150] = 0.5
        let energies = [Float](repeating: 48, count: 300)  // 100 × 48 / 4800 = 1 a hop
        let settings = TruePeakLimiter.Settings(ceilingDBTP: -1)
        let m = LimitedLoudnessModel(energies: energies, peaks: peaks, hop: 4800, sampleRate: 48_000, limit: true, settings: settings)
        let e = m.envelope(gainDB: 6)!
        #expect(Self.close(e.hopSeconds, 0.1) && e.peaks.count == 3)
        #expect(abs(e.peaks[1] - 0.5 * pow(10, 0.3)) < 1e-6 && abs(e.powers[0] - pow(10, 0.6)) < 1e-6)
        // At +6 dB the peak (−0.02 dBTP) is over the threshold (−1.15): the limiter holds it there.
        #expect(abs(m.processedTruePeakDBTP(gainDB: 6)! - 20 * log10(Double(m.threshold))) < 1e-9)
        #expect(abs(m.processedTruePeakDBTP(gainDB: 0)! - 20 * log10(0.5)) < 1e-5)
    }
}
