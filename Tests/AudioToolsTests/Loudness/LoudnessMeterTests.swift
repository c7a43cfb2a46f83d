import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LoudnessMeterTests {
    typealias S = LoudnessTestSignals

    @Test func kWeightingMatchesBS1770TableAt48k() {
        let k = KWeighting(sampleRate: 48000)
        let shelf = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585]
        let got = [k.shelf.b0, k.shelf.b1, k.shelf.b2, k.shelf.a1, k.shelf.a2]
        for (a, b) in zip(got, shelf) { #expect(abs(a - b) < 1e-8, "shelf \(a) vs \(b)") }
        #expect(k.highPass.b0 == 1 && k.highPass.b1 == -2 && k.highPass.b2 == 1)
        #expect(abs(k.highPass.a1 - -1.99004745483398) < 1e-8, "\(k.highPass.a1)")
        #expect(abs(k.highPass.a2 - 0.99007225036621) < 1e-8, "\(k.highPass.a2)")
    }

    /// −0.691 + 10·log10(Σ G·A²/2) + 20·log10|H_K(1 kHz)|, with |H_K| from the coefficients.
    func closedForm(amplitudes: [Double], weights: [Double], rate: Int) -> Double {
        let h = KWeighting(sampleRate: rate).magnitude(at: 1000)
        let power = zip(amplitudes, weights).reduce(0) { $0 + $1.1 * $1.0 * $1.0 / 2 }
        return -0.691 + 10 * log10(power) + 20 * log10(h)
    }

    @Test func sineMatchesClosedForm() {
        let configurations: [([Double], [Double])] = [
            ([0.25, 0], [1, 1]),                  // one channel of a stereo pair
            ([0.1, 0.1], [1, 1]),                 // both channels
            ([0.3], [2]),                         // dual mono
            ([0.05, 0.05, 0.1, 0, 0.07, 0.07], ChannelLayout.standard(channelCount: 6).weights),
        ]
        for rate in [44100, 48000, 96000] {
            for (amplitudes, weights) in configurations {
                let channels: [[Float]] = amplitudes.map { a in
                    a == 0 ? [Float](repeating: 0, count: 3 * rate)
                        : S.tones([.init(seconds: 3, dBFS: 20 * log10(a))], rate: rate)
                }
                let meter = LoudnessMeter(sampleRate: rate, weights: weights, measuresTruePeak: false)
                S.feed(meter, channels, blockSize: 4000)
                let m = meter.finish()
                let expected = closedForm(amplitudes: amplitudes, weights: weights, rate: rate)
                #expect(m.integratedLUFS != nil && abs(m.integratedLUFS! - expected) <= 0.01,
                        "\(rate) Hz \(amplitudes): \(m.integratedLUFS as Any) vs \(expected)")
            }
        }
    }

    @Test func dualMonoEqualsIdenticalStereo() {
        let x = S.tones([.init(seconds: 1, dBFS: -20)], rate: 48000)
        let mono = S.measure([x], rate: 48000, weights: ChannelLayout.dualMono.weights)
        let stereo = S.measure([x, x], rate: 48000)
        #expect(mono.integratedLUFS == stereo.integratedLUFS)
        #expect(mono.momentaryMaxLUFS == stereo.momentaryMaxLUFS)
    }

    /// Music-like test noise: two filtered noises under a beat envelope.
    static func noise(seconds: Double, rate: Int, seed: UInt64) -> [[Float]] {
        var rng = SplitMix64(seed: seed)
        let n = Int(seconds * Double(rate))
        var l = [Float](repeating: 0, count: n), r = l
        var p = 0.0, q = 0.0
        for i in 0..<n {
            let t = Double(i) / Double(rate)
            let env = 0.3 + 0.7 * exp(-6 * t.truncatingRemainder(dividingBy: 0.5))
            let u = rng.bipolar(), v = rng.bipolar()
            p = 0.9 * p + 0.3 * u; q = 0.9 * q + 0.3 * v
            l[i] = Float(env * (p + 0.4 * u) * 0.4)
            r[i] = Float(env * (q + 0.4 * v) * 0.4)
        }
        return [l, r]
    }

    @Test func identicalBitsWhateverTheBlockSize() {
        let x = Self.noise(seconds: 3.2, rate: 48000, seed: 7)
        let reference = S.measure(x, rate: 48000, blockSize: 4096)
        for size in [1, 997] {
            #expect(S.measure(x, rate: 48000, blockSize: size) == reference, "block size \(size)")
        }
        #expect(reference.integratedLUFS != nil && reference.shortTermMaxLUFS != nil && reference.loudnessRangeLU != nil)
        #expect(reference.truePeaks[0] >= reference.samplePeaks[0] && reference.truePeaks[1] >= reference.samplePeaks[1])
    }

    @Test func undefinedValuesComeWithNotes() {
        let silence = [[Float](repeating: 0, count: 48000 * 4)]
        let s = S.measure(silence, rate: 48000)
        #expect(s.integratedLUFS == nil && s.loudnessRangeLU == nil && s.momentaryMaxLUFS == nil && s.shortTermMaxLUFS == nil)
        #expect(s.samplePeakDBFS == nil && s.truePeakDBTP == nil)
        #expect(s.sentences.count == 5, "\(s.sentences)")
        #expect(s.undefined == [.integratedSilent, .rangeSilent, .momentarySilent, .shortTermSilent, .peaksSilent])
        #expect(s.sentences.contains { $0.contains("Integrated") && $0.contains("absolute gate") })

        let short = S.tones([.init(seconds: 0.3, dBFS: -20)], rate: 48000)
        let m = S.measure([short], rate: 48000)
        #expect(m.integratedLUFS == nil && m.momentaryMaxLUFS == nil && m.shortTermMaxLUFS == nil && m.loudnessRangeLU == nil)
        #expect(m.sentences.contains { $0.contains("shorter than one 400 ms") })
        #expect(m.sentences.contains { $0.contains("shorter than 3 s") })
        #expect(m.undefined == [.integratedTooShort, .rangeTooShort, .momentaryTooShort, .shortTermTooShort])
        #expect(m.samplePeakDBFS != nil && abs(m.samplePeakDBFS! + 20) < 0.01)

        let oneSecond = S.tones([.init(seconds: 1, dBFS: -20)], rate: 48000)
        let n = S.measure([oneSecond], rate: 48000)
        #expect(n.integratedLUFS != nil && n.momentaryMaxLUFS != nil && n.shortTermMaxLUFS == nil)
    }

    @Test func finishIsRepeatable() {
        let meter = LoudnessMeter(sampleRate: 48000, weights: [1])
        S.feed(meter, [S.tones([.init(seconds: 0.5, dBFS: -10)], rate: 48000)], blockSize: 1000)
        #expect(meter.finish() == meter.finish())
    }
}

@Suite struct TruePeakOversamplerTests {
    @Test func factorsFollowBS1770() {
        #expect(TruePeakOversampler.factor(forSampleRate: 44100) == 4)
        #expect(TruePeakOversampler.factor(forSampleRate: 95999) == 4)
        #expect(TruePeakOversampler.factor(forSampleRate: 96000) == 2)
        #expect(TruePeakOversampler.factor(forSampleRate: 176400) == 2)
        #expect(TruePeakOversampler.factor(forSampleRate: 192000) == 1)
    }

    /// Skipping must be exact: the max from `add` equals the max over every frame's peak.
    @Test func skippingNeverChangesTheResult() {
        for rate in [48000, 96000] {
            let x = LoudnessMeterTests.noise(seconds: 1, rate: rate, seed: 3)[0]
            let skipping = TruePeakOversampler(sampleRate: rate)
            skipping.add(x)
            skipping.finish()
            let full = TruePeakOversampler(sampleRate: rate)
            let padded = x + [Float](repeating: 0, count: full.latency)
            var peaks = [Float](repeating: 0, count: padded.count)
            padded.withUnsafeBufferPointer { src in
                peaks.withUnsafeMutableBufferPointer { full.interSamplePeaks(src, into: $0) }
            }
            #expect(skipping.truePeak == max(peaks.max()!, skipping.samplePeak), "\(rate) Hz")
            #expect(skipping.truePeak > skipping.samplePeak)
        }
    }

    @Test func framePeaksAreDelayedByLatency() {
        let o = TruePeakOversampler(sampleRate: 48000)
        var x = [Float](repeating: 0, count: 64)
        x[10] = 1
        var out = [Float](repeating: 0, count: 64)
        // Fed in two pieces to exercise the streaming history.
        x.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                o.interSamplePeaks(UnsafeBufferPointer(rebasing: src[0..<5]), into: UnsafeMutableBufferPointer(rebasing: dst[0..<5]))
                o.interSamplePeaks(UnsafeBufferPointer(rebasing: src[5...]), into: UnsafeMutableBufferPointer(rebasing: dst[5...]))
            }
        }
        let peakAt = out.indices.max { out[$0] < out[$1] }!
        #expect(peakAt == 10 + o.latency)
        #expect(out[peakAt] == 1)
    }

    @Test func passbandIsFlat() {
        // Sines up to 0.4·fs at random phases: the 4× estimate is within 0.1 dB of the amplitude, less
        // the unavoidable loss of sampling a crest on a 4× grid.
        var rng = SplitMix64(seed: 11)
        for f in stride(from: 0.02, through: 0.4, by: 0.02) {
            let phase = (rng.bipolar() + 1) * Double.pi
            // Raised-cosine ends: an abrupt start would itself overshoot when band-limited.
            let x = (0..<2000).map { i in
                let edge = min(i, 1999 - i)
                let taper = edge < 300 ? 0.5 - 0.5 * cos(Double.pi * Double(edge) / 300) : 1
                return Float(taper * 0.5 * sin(2 * Double.pi * f * Double(i) + phase))
            }
            let o = TruePeakOversampler(sampleRate: 48000)
            o.add(x)
            o.finish()
            let db = 20 * log10(Double(o.truePeak) / 0.5)
            // 4 points per input period can miss the crest by at most half a step (π·f/4 radians).
            let sampling = 20 * log10(cos(Double.pi * f / 4))
            #expect(db > sampling - 0.1 && db < 0.1, "f = \(f)·fs: \(db) dB")
        }
    }
}
