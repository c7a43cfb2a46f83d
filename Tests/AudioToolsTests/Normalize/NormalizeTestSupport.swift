import Foundation
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Test-only reference meters: BS.1770 K-weighted gated loudness and a long-filter 4× true peak.
enum NormTestMeter {
    /// BS.1770-4 integrated loudness (LUFS) of planar channels; 5.1 order L R C LFE Ls Rs.
    static func integratedLoudness(_ channels: [[Float]], sampleRate: Int) -> Double? {
        let fs = Double(sampleRate)
        // Stage 1: high shelf; stage 2: high pass (coefficients from the analog prototypes).
        var k = tan(Double.pi * 1681.974450955533 / fs)
        let vh = pow(10, 3.999843853973347 / 20), vb = pow(vh, 0.4996667741545416)
        var q = 0.7071752369554196
        var a0 = 1 + k / q + k * k
        let s1b = [(vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0]
        let s1a = [2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0]
        k = tan(Double.pi * 38.13547087602444 / fs)
        q = 0.5003270373238773
        a0 = 1 + k / q + k * k
        let s2b = [1.0, -2.0, 1.0]
        let s2a = [2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0]

        let frames = channels[0].count
        let block = Int((0.4 * fs).rounded()), step = Int((0.1 * fs).rounded())
        guard frames >= block else { return nil }
        let blockCount = (frames - block) / step + 1
        let weights: [Double] = channels.count == 6 ? [1, 1, 1, 0, 1.41, 1.41] : Array(repeating: 1, count: channels.count)
        var power = [Double](repeating: 0, count: blockCount)
        for (c, x) in channels.enumerated() where weights[c] > 0 {
            // Squared K-weighted signal, then per-step sums so each block is 4 steps.
            var stepSums = [Double](repeating: 0, count: frames / step + 1)
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0, z1 = 0.0, z2 = 0.0
            x.withUnsafeBufferPointer { xb in
                for i in 0..<frames {
                    let v = Double(xb[i])
                    let y = s1b[0] * v + s1b[1] * x1 + s1b[2] * x2 - s1a[0] * y1 - s1a[1] * y2
                    x2 = x1; x1 = v
                    let z = s2b[0] * y + s2b[1] * y1 + s2b[2] * y2 - s2a[0] * z1 - s2a[1] * z2
                    y2 = y1; y1 = y
                    z2 = z1; z1 = z
                    stepSums[i / step] += z * z
                }
            }
            for b in 0..<blockCount {
                var s = 0.0
                for j in 0..<(block / step) { s += stepSums[b + j] }
                power[b] += weights[c] * s / Double(block)
            }
        }
        func lufs(_ p: Double) -> Double { -0.691 + 10 * log10(p) }
        let absolute = power.filter { $0 > 0 && lufs($0) > -70 }
        guard !absolute.isEmpty else { return nil }
        let relativeGate = lufs(absolute.reduce(0, +) / Double(absolute.count)) - 10
        let gated = absolute.filter { lufs($0) > relativeGate }
        guard !gated.isEmpty else { return nil }
        return lufs(gated.reduce(0, +) / Double(gated.count))
    }

    /// Coefficients of an independent 4× interpolator: 48 taps per phase, Kaiser β = 8.
    static let referencePhases: [[Double]] = {
        let half = 24, beta = 8.0
        func i0(_ x: Double) -> Double {
            var s = 1.0, t = 1.0, i = 1.0
            while t > 1e-14 * s { t *= (x / (2 * i)) * (x / (2 * i)); s += t; i += 1 }
            return s
        }
        return (1...3).map { p in
            let h = (0..<(2 * half)).map { j -> Double in
                let t = Double(j - half + 1) - Double(p) / 4
                let r = t / Double(half)
                return sin(Double.pi * t) / (Double.pi * t) * i0(beta * max(0, 1 - r * r).squareRoot()) / i0(beta)
            }
            let dc = h.reduce(0, +)
            return h.map { $0 / dc }
        }
    }()

    /// Largest |value| of the samples and their 4× interpolated points, linear.
    static func truePeak(_ channels: [[Float]]) -> Double {
        let half = 24
        var peak = 0.0
        for x in channels {
            let n = x.count
            var padded = [Double](repeating: 0, count: n + 2 * half)
            for i in 0..<n { padded[i + half] = Double(x[i]) }
            padded.withUnsafeBufferPointer { pb in
                for p in referencePhases {
                    p.withUnsafeBufferPointer { h in
                        // Interpolate between frames m and m+1 for m in −1..<n.
                        for m in -1..<n {
                            let base = m + half - half + 1   // index of sample m − half + 1
                            var s = 0.0
                            for j in 0..<(2 * half) { s += pb[base + j] * h[j] }
                            if abs(s) > peak { peak = abs(s) }
                        }
                    }
                }
                for v in pb where abs(v) > peak { peak = abs(v) }
            }
        }
        return peak
    }

    static func truePeakDB(_ channels: [[Float]]) -> Double { 20 * log10(truePeak(channels)) }

    /// True peak as lufs-measure reads it: the loudness meter's own oversampler, dBTP.
    static func meterTruePeakDB(_ channels: [[Float]], sampleRate: Int) -> Double {
        let meter = LoudnessMeter(sampleRate: sampleRate, weights: Array(repeating: 1, count: channels.count))
        meter.add(AudioBlock(channels: channels, frames: channels[0].count))
        return meter.finish().truePeakDBTP ?? -.infinity
    }

    /// A probe that collects the pipeline's output and measures it with `integratedLoudness`.
    static func probe(channelCount: Int, sampleRate: Int) -> NormalizePipeline.LoudnessProbe {
        final class Store { var channels: [[Float]] = [] }
        let store = Store()
        store.channels = Array(repeating: [], count: channelCount)
        return NormalizePipeline.LoudnessProbe(
            add: { b in for c in 0..<channelCount { store.channels[c].append(contentsOf: b.channels[c][0..<b.frames]) } },
            integrated: { integratedLoudness(store.channels, sampleRate: sampleRate) })
    }
}

/// Synthetic programme material, deterministic.
enum NormTestSignals {
    /// Speech-like: glottal pulse trains through moving formant resonators, syllables and pauses.
    static func speech(sampleRate: Int, seconds: Double, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        let fs = Double(sampleRate), n = Int(seconds * fs)
        var out = [Float](repeating: 0, count: n)
        var i = 0
        var phase = 0.0
        // Resonator states for three formants.
        var ys = [[Double]](repeating: [0, 0], count: 3)
        while i < n {
            let syllable = Int((0.12 + 0.18 * rng.uniform()) * fs)
            let pause = rng.uniform() < 0.3 ? Int((0.1 + 0.3 * rng.uniform()) * fs) : Int(0.02 * fs)
            let f0 = 95 + 50 * rng.uniform()
            let formants = [300 + 500 * rng.uniform(), 900 + 1200 * rng.uniform(), 2300 + 800 * rng.uniform()]
            let coeffs = formants.map { f -> (Double, Double) in
                let r = exp(-Double.pi * 90 / fs), w = 2 * Double.pi * f / fs
                return (2 * r * cos(w), -r * r)
            }
            let level = 0.4 + 0.6 * rng.uniform()
            for j in 0..<syllable where i + j < n {
                let env = sin(Double.pi * Double(j) / Double(syllable))
                phase += f0 * (1 + 0.05 * sin(Double(j) / fs * 9)) / fs
                var excitation = 0.0
                if phase >= 1 { phase -= 1; excitation = 1 }
                excitation += 0.02 * rng.bipolar()
                var s = 0.0
                for k in 0..<3 {
                    let y = excitation + coeffs[k].0 * ys[k][0] + coeffs[k].1 * ys[k][1]
                    ys[k][1] = ys[k][0]; ys[k][0] = y
                    s += y / Double(k + 1)
                }
                out[i + j] = Float(0.02 * level * env * s)
            }
            i += syllable + pause
        }
        return out
    }

    /// Music-like: chords of harmonic tones plus noise, with decaying noise-burst "drums".
    static func music(sampleRate: Int, seconds: Double, channels: Int, seed: UInt64) -> [[Float]] {
        var rng = SplitMix64(seed: seed)
        let fs = Double(sampleRate), n = Int(seconds * fs)
        var out = [[Float]](repeating: [Float](repeating: 0, count: n), count: channels)
        let chordLength = Int(0.5 * fs), beat = Int(0.25 * fs)
        var roots: [Double] = []
        for _ in 0...(n / chordLength) { roots.append(110 * pow(2, Double(Int(rng.uniform() * 12)) / 12)) }
        var drum = 0.0, w1 = 0.0, w2 = 0.0
        for i in 0..<n {
            let t = Double(i) / fs
            let root = roots[i / chordLength]
            var tone = 0.0
            for (m, ratio) in [1.0, 1.26, 1.5].enumerated() {
                for h in 1...6 {
                    tone += sin(2 * Double.pi * root * ratio * Double(h) * t + Double(m)) / Double(h * 3)
                }
            }
            if i % beat == 0 { drum = 1 }
            drum *= exp(-1 / (0.03 * fs))
            // Drum noise through 1-2-1 smoothing: like real programme, little energy at Nyquist.
            let white = rng.bipolar()
            let hit = drum * (white + 2 * w1 + w2) * 1.25
            w2 = w1; w1 = white
            for c in 0..<channels {
                let pan = channels == 1 ? 1 : 0.6 + 0.4 * Double((c * 7) % 5) / 4
                out[c][i] = Float(0.1 * (tone * pan + hit + 0.05 * rng.bipolar()))
            }
        }
        return out
    }

    /// Scales every channel by `gain`.
    static func scaled(_ x: [[Float]], by gain: Double) -> [[Float]] {
        x.map { $0.map { Float(Double($0) * gain) } }
    }
}
