import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Accuracy of vo-align's arithmetic on synthetic music (reference) and speech-like voice.
@Suite struct BleedAlignerTests {
    static let rate = 48000.0
    static let seconds = 6.0
    static let music = AlignTestSignals.music(seconds: seconds, rate: rate, seed: 1)
    static let voice = AlignTestSignals.voice(seconds: seconds, rate: rate, seed: 2)

    func align(reference: [Float], take: [Float], rate: Double = rate,
               settings: BleedAligner.Settings = .init()) throws -> BleedAligner.Outcome {
        try BleedAligner(sampleRate: rate, settings: settings, converter: Resampler.fastest)
            .align(reference: MemoryAlignmentSignal(reference), take: MemoryAlignmentSignal(take))
    }

    func aligned(_ o: BleedAligner.Outcome) -> BleedAligner.Alignment? {
        if case .aligned(let a) = o { return a }
        Issue.record("expected an alignment, got \(o)")
        return nil
    }

    @Test(arguments: [(96.3, -20.0), (1920.6, -30.0), (12_000.25, -40.0), (-997.7, -30.0)])
    func knownLatencyAndBleedLevel(latency: Double, bleedDB: Double) throws {
        // 2 ms, 40 ms, 250 ms and −20.8 ms (take early), each with a fractional part.
        let bleed = AlignTestSignals.delayed(Self.music, by: latency)
        let take = AlignTestSignals.take(voice: Self.voice, bleed: bleed, bleedDB: bleedDB)
        guard let a = aligned(try align(reference: Self.music, take: take)) else { return }
        #expect(abs(a.latencySamples - latency) < 0.05, "latency \(a.latencySamples) vs \(latency)")
        #expect(abs(a.latencySeconds - latency / Self.rate) < 0.0001)
        #expect(abs(a.bleedDB - bleedDB) < 1.5, "bleed \(a.bleedDB) dB vs \(bleedDB)")
        #expect(a.confidence > 0.9)
        #expect(a.polarity == 1)
        #expect(abs(a.driftPPM ?? 0) < 2)
    }

    @Test func invertedBleedIsFoundWithItsPolarity() throws {
        let bleed = AlignTestSignals.scaled(AlignTestSignals.delayed(Self.music, by: 480.4), by: -1)
        let take = AlignTestSignals.take(voice: Self.voice, bleed: bleed, bleedDB: -30)
        guard let a = aligned(try align(reference: Self.music, take: take)) else { return }
        #expect(abs(a.latencySamples - 480.4) < 0.05)
        #expect(a.polarity == -1)
    }

    @Test func roomReflectionsAndNoise() throws {
        // Direct path plus decaying echoes at 3–20 ms, and noise 25 dB under the voice.
        let taps: [(Int, Double)] = [(0, 1), (144, 0.55), (413, -0.4), (672, 0.3), (960, 0.2)]
        let bleed = AlignTestSignals.reverberated(AlignTestSignals.delayed(Self.music, by: 1920.6), taps: taps)
        let take = AlignTestSignals.take(voice: Self.voice, bleed: bleed, bleedDB: -30, noiseDB: -25)
        guard let a = aligned(try align(reference: Self.music, take: take)) else { return }
        #expect(abs(a.latencySamples - 1920.6) < 0.1 * 48, "latency \(a.latencySamples)")  // 0.1 ms
        #expect(abs(a.latencySamples - 1920.6) < 0.25)  // what it actually achieves
    }

    @Test func referenceAt44kTakeAt48k() throws {
        // The bleed is the 44.1 kHz reference delayed there, then converted to 48 kHz (best
        // quality); the aligner gets the reference converted on its own (medium quality).
        let ref44 = AlignTestSignals.music(seconds: 5, rate: 44100, seed: 11)
        let delay44 = 2205.3  // 50.007 ms
        let bleed = try Resampler.resample(AlignTestSignals.delayed(ref44, by: delay44), fromRate: 44100, toRate: 48000)
        let ref48 = try Resampler.resample(ref44, fromRate: 44100, toRate: 48000, quality: .medium)
        let voice = Array(Self.voice[0..<bleed.count])
        let take = AlignTestSignals.take(voice: voice, bleed: bleed, bleedDB: -30)
        guard let a = aligned(try align(reference: ref48, take: take)) else { return }
        let expected = delay44 * 48000 / 44100
        #expect(abs(a.latencySamples - expected) < 0.1, "latency \(a.latencySamples) vs \(expected)")
    }

    @Test func clockDriftOf100ppm() throws {
        // 40 s at 16 kHz: the take's clock runs 100 ppm long (4 ms over the take).
        let rate = 16000.0
        let ref = AlignTestSignals.music(seconds: 40, rate: rate, seed: 21)
        let voice = AlignTestSignals.voice(seconds: 40, rate: rate, seed: 22)
        let ratio = 1.0001, tau = 640.3  // 40.02 ms
        let stretched = try Resampler.resample(ref, ratio: ratio)
        let bleed = Array(AlignTestSignals.delayed(stretched, by: tau)[0..<voice.count])
        let take = AlignTestSignals.take(voice: voice, bleed: bleed, bleedDB: -30)
        var settings = BleedAligner.Settings()
        settings.windowSeconds = 5
        guard let a = aligned(try align(reference: ref, take: take, rate: rate, settings: settings)) else { return }
        // take(n) = ref((n − τ)/ratio): offset τ/ratio + n(1 − 1/ratio).
        let expectedDrift = (1 - 1 / ratio) * 1e6
        let expectedLatency = tau / ratio
        #expect(a.windows.count == 7 && a.inlierCount == 7)
        #expect(abs((a.driftPPM ?? 0) - expectedDrift) < 10, "drift \(a.driftPPM ?? .nan)")
        #expect(abs((a.driftPPM ?? 0) - expectedDrift) < 1)  // what it actually achieves
        #expect(abs(a.latencySeconds - expectedLatency / rate) < 0.0001, "latency \(a.latencySamples)")
        #expect(abs(a.takeResampleRatio - 1 / ratio) < 1e-6)  // undoes the stretch
        #expect(abs(a.lagSamples(atTakeFrame: 600_000) - (expectedLatency + 600_000 * (1 - 1 / ratio))) < 0.5)
    }

    @Test func takeWithoutBleedIsRefusedAsNoBleed() throws {
        let unrelated = AlignTestSignals.music(seconds: Self.seconds, rate: Self.rate, seed: 77)
        let take = AlignTestSignals.take(voice: Self.voice, bleed: unrelated, bleedDB: -30, noiseDB: -40)
        let outcome = try align(reference: Self.music, take: take)
        guard case .refused(let r) = outcome else { Issue.record("expected a refusal, got \(outcome)"); return }
        #expect(r.reason == .noBleed)
        #expect(r.reason.errorCode == .noBleed)
        #expect(r.acceptedCount == 0)
        #expect(r.confidence < 0.5)
    }

    @Test func repeatingLoopIsLowConfidence() throws {
        // A 0.5 s loop repeated for 10 s, searched over ±1 s: several equally good offsets.
        let rate = 24000.0
        let one = AlignTestSignals.music(seconds: 0.5, rate: rate, seed: 31)
        var loop: [Float] = []
        while loop.count < 240_000 { loop += one }
        let voice = AlignTestSignals.voice(seconds: 10, rate: rate, seed: 32)
        let take = AlignTestSignals.take(voice: voice, bleed: AlignTestSignals.delayed(loop, by: 250.5), bleedDB: -30)
        let outcome = try align(reference: loop, take: take, rate: rate)
        guard case .refused(let r) = outcome else { Issue.record("expected a refusal, got \(outcome)"); return }
        #expect(r.reason == .lowConfidence)
        #expect(r.reason.errorCode == .lowConfidence)
        #expect(r.bestMetrics.map { $0.detection > 0.5 } == true)  // a trace, but ambiguous
    }

    @Test func windowsSpreadAcrossTheTake() {
        let aligner = BleedAligner(sampleRate: 1000, converter: Resampler.fastest)
        let long = aligner.windowStarts(takeFrames: 600_000)
        #expect(long.count == 7 && long.first?.start == 0 && long.last.map { $0.start + $0.frames } == 600_000)
        #expect(long.allSatisfy { $0.frames == 10_000 })
        let short = aligner.windowStarts(takeFrames: 12_000)
        #expect(short.count == 3 && short.allSatisfy { $0.frames == 4000 })
        #expect(aligner.windowStarts(takeFrames: 2000).map(\.frames) == [2000])
    }

    @Test func peakMetricsMapping() {
        let s = BleedAligner.Settings()
        // 1000 noise lags: expected noise max √(2 ln 1000) ≈ 3.717.
        let clear = BleedAligner.PeakMetrics(peak: 10, secondPeak: 2, noiseRMS: 1, noiseLagCount: 1000, settings: s)
        #expect(abs(clear.expectedNoiseMax - 3.7169) < 1e-3)
        #expect(clear.detection == 1 && abs(clear.uniqueness - 1) < 1e-12 && clear.verdict == .accepted)
        let twin = BleedAligner.PeakMetrics(peak: 10, secondPeak: 9.5, noiseRMS: 1, noiseLagCount: 1000, settings: s)
        #expect(abs(twin.uniqueness - 0.1) < 1e-9 && twin.verdict == .lowConfidence)
        let noise = BleedAligner.PeakMetrics(peak: 4, secondPeak: 3.9, noiseRMS: 1, noiseLagCount: 1000, settings: s)
        #expect(abs(noise.detection - (4 / 3.7169 - 1)) < 1e-3 && noise.verdict == .noBleed)
    }
}
