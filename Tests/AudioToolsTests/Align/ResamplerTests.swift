import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct ResamplerTests {
    static func sine(_ f: Double, rate: Double, count: Int, phase: Double = 0.3, amp: Double = 0.5) -> [Float] {
        (0..<count).map { Float(amp * sin(2 * .pi * f * Double($0) / rate + phase)) }
    }

    /// Output sample j must be the input sine evaluated at input time j / ratio: same frequency,
    /// amplitude and phase (no delay), away from the start/end transients.
    static func expectMatchesSine(_ y: [Float], f: Double, outRate: Double, timeScale: Double = 1,
                                  edge: Int = 200, tolerance: Float = 2e-3) {
        var worst: Float = 0
        for j in edge..<(y.count - edge) {
            let expected = Float(0.5 * sin(2 * .pi * f * Double(j) / outRate / timeScale + 0.3))
            worst = max(worst, abs(y[j] - expected))
        }
        #expect(worst < tolerance, "max deviation \(worst)")
    }

    @Test func upsampling44kTo48kKeepsFrequencyAmplitudeAndTiming() throws {
        let x = Self.sine(1000, rate: 44100, count: 44100)
        let y = try Resampler.resample(x, fromRate: 44100, toRate: 48000)
        #expect(y.count == 48000)
        Self.expectMatchesSine(y, f: 1000, outRate: 48000)
        // A 1-sample delay at 48 kHz would already be an error of ~0.065 at 1 kHz, far over 2e-3.
    }

    @Test func downsamplingAndOddLengths() throws {
        let x = Self.sine(440, rate: 48000, count: 47_999)
        let y = try Resampler.resample(x, fromRate: 48000, toRate: 44100, quality: .medium)
        #expect(y.count == Int((47_999.0 * 44100 / 48000).rounded()))
        Self.expectMatchesSine(y, f: 440, outRate: 44100)
    }

    @Test func streamingInUnevenBlocksMatchesOneShot() throws {
        let x = Self.sine(3000, rate: 44100, count: 30_000)
        let whole = try Resampler.resample(x, fromRate: 44100, toRate: 48000)
        let r = try Resampler(fromRate: 44100, toRate: 48000, channels: 2)
        var left: [Float] = [], right: [Float] = []
        var pos = 0
        let sizes = [1, 777, 4096, 13, 9000]
        var i = 0
        while pos < x.count {
            let n = min(sizes[i % sizes.count], x.count - pos)
            let chunk = Array(x[pos..<(pos + n)])
            let out = try r.process(AudioBlock(channels: [chunk, [Float](repeating: 0, count: n)], frames: n),
                                    endOfInput: false)
            left += out.channels[0][0..<out.frames]; right += out.channels[1][0..<out.frames]
            pos += n; i += 1
        }
        let tail = try r.process(AudioBlock(channels: [[], []], frames: 0), endOfInput: true)
        left += tail.channels[0][0..<tail.frames]; right += tail.channels[1][0..<tail.frames]
        #expect(left.count == whole.count)
        #expect(zip(left, whole).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(right.allSatisfy { abs($0) < 1e-6 })  // channels stay apart
    }

    @Test func tinyRatioForDriftStretchesTime() throws {
        let ratio = 1.0001
        let x = Self.sine(500, rate: 16000, count: 160_000)  // 10 s: 16 extra samples
        let y = try Resampler.resample(x, ratio: ratio)
        #expect(y.count == Int((160_000 * ratio).rounded()))
        #expect(y.count == 160_016)
        // The content runs 100 ppm slower: by the end it is 16 samples (half a period at 500 Hz)
        // behind the input; an unstretched comparison would miss by ~1.
        Self.expectMatchesSine(y, f: 500, outRate: 16000, timeScale: ratio)
    }

    @Test func invalidRatioIsRefused() {
        #expect(throws: ResampleError.badRatio(0, channels: 1)) { _ = try Resampler(ratio: 0, channels: 1) }
        #expect(throws: ResampleError.badRatio(48000.0 / 44100.0, channels: 0)) { _ = try Resampler(fromRate: 44100, toRate: 48000, channels: 0) }
    }
}
