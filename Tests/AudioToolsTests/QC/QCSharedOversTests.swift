import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// QC's overs counted by the meter's true-peak oversamplers (lufs-measure --qc) are the overs QC
/// counts itself, and the meter's own figures do not change for it.
@Suite struct QCSharedOversTests {
    /// A loud noise with spikes, float samples over full scale and over bursts at scattered places,
    /// ringing over after its last sample: overs everywhere, and stretches the skip rules must keep.
    static func overs(rate: Int, seconds: Int = 3, seed: UInt64 = 5) -> [Float] {
        var x = QCAnalyserTests.noise(rate * seconds, amplitude: 0.7, seed: seed)
        var s: UInt64 = 12345 &+ seed
        func next(_ n: Int) -> Int { s = s &* 6364136223846793005 &+ 1442695040888963407; return Int(s >> 33) % n }
        for _ in 0..<80 {
            let at = 20 + next(x.count - 100)
            switch next(4) {
            case 0: x[at] = 0.999; x[at + 1] = -0.999
            case 1: for k in 0..<(1 + next(40)) { x[at + k] = Float(1.1 * sin(Double.pi / 2 * Double(k) + Double.pi / 4)) }
            case 2: x[at] = 1.02
            default: x[at] = 0.98; x[at + 1] = 0.98; x[at + 2] = -0.5
            }
        }
        x[x.count - 2] = 0.999; x[x.count - 1] = -0.999
        return x
    }

    /// QC and the meter fed the same blocks; `shared`: the meter counts QC's overs. `split`: the
    /// meter's first channel's peaks are fed apart from the rest, as on two threads.
    static func run(_ channels: [[Float]], rate: Int, block: Int, shared: Bool, split: Bool = false)
        -> (qc: QCAnalyser.Result, meter: LoudnessMeasurement, sharedTaken: Bool) {
        let a = QCAnalyser(sampleRate: rate, channelCount: channels.count, frontPair: channels.count > 1 ? (0, 1) : nil)
        let meter = LoudnessMeter(sampleRate: rate, weights: channels.map { _ in 1 })
        let taken = shared ? a.sharesOversampling(with: meter) : false
        let n = channels[0].count
        var i = 0
        while i < n {
            let m = min(block, n - i)
            let b = AudioBlock(channels: channels.map { Array($0[i..<(i + m)]) }, frames: m)
            if split {
                meter.addPeaks(b, channels: 0..<1, timeline: true)
                meter.addPeaks(b, channels: 1..<channels.count, timeline: false)
                meter.addLoudness(b)
            } else {
                meter.add(b)
            }
            a.add(b)
            i += m
        }
        let m = meter.finish()
        return (a.finish(programmeBlocks: meter.blocks.momentary), m, taken)
    }

    @Test(arguments: [44100, 48000, 96000])
    func theMeterCountsTheOversQCCounts(rate: Int) {
        let x = Self.overs(rate: rate), y = Self.overs(rate: rate, seed: 9)
        let quiet = QCAnalyserTests.noise(x.count, amplitude: 0.2, seed: 3)
        for (channels, split) in [([x], false), ([x, y], true), ([quiet, x], false), ([quiet, y, x], false)] {
            for block in [4096, 333, 64, 7] {
                let own = Self.run(channels, rate: rate, block: block, shared: false)
                let shared = Self.run(channels, rate: rate, block: block, shared: true, split: split)
                #expect(shared.sharedTaken)
                #expect(own.qc.overs > 20, "the material has overs to find")
                #expect(shared.qc.overs == own.qc.overs && shared.qc.overTimes == own.qc.overTimes,
                        "\(rate) Hz, \(channels.count) ch, blocks of \(block): \(shared.qc.overs) vs \(own.qc.overs)")
                #expect(shared.qc == own.qc && shared.qc.clippedRunTimes == own.qc.clippedRunTimes)
                #expect(shared.meter == own.meter, "the meter's figures are the same bits")
            }
        }
    }

    /// A loud master whose true peak passes 0 dBTP early: the meter's own rule would then skip
    /// later stretches that are over full scale but under that maximum; shared, it must not.
    @Test func oversUnderAnEarlierHigherPeakAreStillFound() {
        let rate = 48000
        var x = QCAnalyserTests.noise(rate * 2, amplitude: 0.5, seed: 4)
        for k in 100..<400 { x[k] = Float(1.4 * sin(Double.pi / 2 * Double(k) + Double.pi / 4)) }   // up to 1.4
        for k in rate..<(rate + 200) { x[k] = Float(1.05 * sin(Double.pi / 2 * Double(k) + Double.pi / 4)) }
        let own = Self.run([x], rate: rate, block: 1024, shared: false)
        let shared = Self.run([x], rate: rate, block: 1024, shared: true)
        #expect(own.qc.overs == 2 && abs(own.qc.overTimes[1] - 1) < 0.001)
        #expect(shared.qc.overs == own.qc.overs && shared.qc.overTimes == own.qc.overTimes)
        #expect(shared.meter == own.meter)
    }

    /// From 192 kHz the meter does not oversample: QC keeps the check, with the same answer.
    @Test func withoutOversamplingQCCountsItself() {
        let rate = 192_000
        var x = QCAnalyserTests.noise(rate, amplitude: 0.5, seed: 6)
        x[5000] = 1.2; x[90_000] = -1.1
        let own = Self.run([x], rate: rate, block: 4096, shared: false)
        let shared = Self.run([x], rate: rate, block: 4096, shared: true)
        #expect(!shared.sharedTaken)
        #expect(own.qc.overs == 2 && shared.qc.overs == 2 && shared.qc.overTimes == own.qc.overTimes)
        let quiet = LoudnessMeter(sampleRate: 48000, weights: [1], measuresTruePeak: false)
        #expect(!quiet.countOvers(into: [TruePeakOverCounter(hold: 480, kept: 20)]), "no true peak, nothing to share")
    }
}
