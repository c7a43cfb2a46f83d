import Foundation
import Testing
@testable import AudioSignal

/// `LoudnessMeter(timelinePeaksSoFar:)`: the timeline's true peak as the largest up to each
/// entry, skipping what can't raise it, is exactly the running maximum of the full per-entry peaks.
@Suite struct TimelinePeaksSoFarTests {
    typealias S = LoudnessTestSignals

    /// The timelines with every value evaluated and with the peak so far only; the measurement
    /// (each channel's true peak from the peak-so-far work) must be the same either way.
    func timelines(_ channels: [[Float]], rate: Int, blockSize: Int) -> (full: LoudnessTimeline, soFar: LoudnessTimeline) {
        func run(_ soFar: Bool) -> (LoudnessTimeline, LoudnessMeasurement) {
            let meter = LoudnessMeter(sampleRate: rate, weights: Array(repeating: 1, count: channels.count),
                                      collectsTimeline: true, timelinePeaksSoFar: soFar)
            S.feed(meter, channels, blockSize: blockSize)
            let m = meter.finish()
            return (meter.timeline!, m)
        }
        let (full, m) = run(false), (soFar, ms) = run(true)
        #expect(ms == m, "\(ms.truePeaks) vs \(m.truePeaks)")
        #expect(ms.truePeaks == S.measure(channels, rate: rate, blockSize: blockSize).truePeaks)
        return (full, soFar)
    }

    func runningMax(_ a: [Double?]) -> [Double?] {
        var best: Double?
        return a.map { v in
            if let v, v > (best ?? -.infinity) { best = v }
            return best
        }
    }

    @Test func equalsTheRunningMaximumOfThePerEntryPeaks() {
        // Rising, falling and rising again, a quiet second channel, silence at the start.
        let a = S.tones([.init(seconds: 0.35, dBFS: nil), .init(seconds: 0.8, dBFS: -30), .init(seconds: 0.7, dBFS: -6),
                         .init(seconds: 1.1, dBFS: -24), .init(seconds: 0.6, dBFS: -1)], rate: 48000, frequency: 11025)
        let b = S.tones([.init(seconds: 2.0, dBFS: -40), .init(seconds: 1.55, dBFS: -3)], rate: 48000, frequency: 3000)
        for (rate, channels) in [(48000, [a, b]), (48000, [b]), (44100, [Array(a.prefix(150_000))]), (192000, [a])] {
            for blockSize in [4096, 1000, 77] {
                let (full, soFar) = timelines(channels, rate: rate, blockSize: blockSize)
                #expect(soFar.count == full.count)
                #expect(soFar.truePeakDBTP == runningMax(full.truePeakDBTP), "\(rate) Hz, \(channels.count) ch, block \(blockSize)")
                #expect(soFar.momentaryLUFS == full.momentaryLUFS && soFar.shortTermLUFS == full.shortTermLUFS)
            }
        }
    }

    @Test func silenceHasNoPeakSoFar() {
        let z = [Float](repeating: 0, count: 24000)
        let (_, soFar) = timelines([z, z], rate: 48000, blockSize: 4096)
        #expect(soFar.truePeakDBTP.allSatisfy { $0 == nil })
    }
}
