import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A running meter's values so far are the measurement of the prefix read so far.
@Suite struct LoudnessSoFarTests {
    @Test(arguments: [44100, 48000, 96000])
    func soFarEqualsMeasuringThePrefix(rate: Int) {
        // A tone that steps up, with a transient between samples, so true peak and gating both move.
        let n = rate * 5
        let l: [Float] = (0..<n).map { i in Float((i < 2 * rate ? 0.05 : 0.6) * sin(Double(i) * 2 * .pi * 997 / Double(rate) + 0.3)) }
        let r: [Float] = l.enumerated().map { $0.offset % 7919 == 0 ? 0.9 : $0.element * 0.5 }
        let running = LoudnessMeter(sampleRate: rate, weights: [1, 1])
        var done = 0
        for cut in [rate / 3, rate, 2 * rate + 17, 3 * rate + 4410, n] {
            var pos = done
            while pos < cut {  // odd block sizes, as a pipe gives them
                let k = min(777, cut - pos)
                running.add(AudioBlock(channels: [Array(l[pos..<pos + k]), Array(r[pos..<pos + k])], frames: k))
                pos += k
            }
            done = cut
            let prefix = LoudnessMeter(sampleRate: rate, weights: [1, 1])
            prefix.add(AudioBlock(channels: [Array(l[0..<cut]), Array(r[0..<cut])], frames: cut))
            #expect(running.soFar() == prefix.finish(), "at frame \(cut)")
        }
        #expect(running.finish() == running.soFar())
    }
}
