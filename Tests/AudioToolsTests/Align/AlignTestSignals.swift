import Foundation
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

enum AlignTestSignals {
    static func energy(_ x: [Float]) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

    static func scaled(_ x: [Float], by g: Double) -> [Float] { x.map { Float(Double($0) * g) } }

    static func sum(_ a: [Float], _ b: [Float]) -> [Float] {
        (0..<max(a.count, b.count)).map { i in (i < a.count ? a[i] : 0) + (i < b.count ? b[i] : 0) }
    }

    /// Music-like backing: overlapping harmonic notes with envelopes, a bass line and noise
    /// percussion at irregular-but-rhythmic times. Not periodic.
    static func music(seconds: Double, rate: Double, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        let n = Int(seconds * rate)
        var out = [Double](repeating: 0, count: n)
        let scale = [0, 2, 4, 5, 7, 9, 11].map(Double.init)
        // Notes.
        var t = 0.0
        while t < seconds {
            let dur = rng.uniform(0.2, 0.7)
            let semis = scale[Int(rng.uniform() * 7)] + 12 * Double(Int(rng.uniform() * 2))
            let f0 = 220 * pow(2, semis / 12)
            let amp = rng.uniform(0.05, 0.12)
            let s0 = Int(t * rate), len = Int(dur * rate)
            let phase = rng.uniform(0, 2 * .pi)
            for h in 1...6 where Double(h) * f0 < 0.45 * rate {
                let w = 2 * Double.pi * Double(h) * f0 / rate
                let a = amp / Double(h)
                for i in 0..<len where s0 + i < n {
                    let env = min(Double(i) / (0.01 * rate), 1) * exp(-3 * Double(i) / Double(len))
                    out[s0 + i] += a * env * sin(w * Double(i) + phase * Double(h))
                }
            }
            t += rng.uniform(0.1, 0.4)
        }
        // Bass.
        t = 0
        while t < seconds {
            let dur = rng.uniform(0.3, 0.8)
            let f = 55 * pow(2, scale[Int(rng.uniform() * 7)] / 12)
            let s0 = Int(t * rate), len = Int(dur * rate)
            for i in 0..<len where s0 + i < n {
                let env = min(Double(i) / (0.005 * rate), 1) * exp(-2 * Double(i) / Double(len))
                out[s0 + i] += 0.15 * env * sin(2 * .pi * f * Double(i) / rate)
            }
            t += dur
        }
        // Percussion: decaying noise bursts, high-passed for hats, low-passed for kicks.
        t = 0
        while t < seconds {
            let s0 = Int(t * rate)
            let hat = rng.uniform() < 0.6
            let decay = hat ? 0.03 : 0.09
            let len = Int(5 * decay * rate)
            var lp = 0.0, prev = 0.0
            let amp = hat ? 0.08 : 0.25
            for i in 0..<len where s0 + i < n {
                let x = rng.gaussian()
                lp += 0.05 * (x - lp)
                let y = hat ? x - prev : lp
                prev = x
                out[s0 + i] += amp * exp(-Double(i) / (decay * rate)) * y
            }
            t += [0.125, 0.25, 0.25, 0.375][Int(rng.uniform() * 4)] * rng.uniform(0.95, 1.05)
        }
        return out.map(Float.init)
    }

    /// Speech-like voice: glottal pulse train (gliding f0) through three formant resonators that
    /// change per syllable, syllable envelopes, some fricative noise, pauses between words.
    static func voice(seconds: Double, rate: Double, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        let n = Int(seconds * rate)
        var out = [Double](repeating: 0, count: n)
        let vowels: [[Double]] = [[730, 1090, 2440], [270, 2290, 3010], [530, 1840, 2480],
                                  [570, 840, 2410], [300, 870, 2240], [660, 1720, 2410]]
        var t = rng.uniform(0.1, 0.3)
        var phase = 0.0
        var states = [[Double]](repeating: [0, 0], count: 3)
        while t < seconds - 0.2 {
            let syllables = 2 + Int(rng.uniform() * 4)
            for _ in 0..<syllables {
                let dur = rng.uniform(0.12, 0.28)
                let formants = vowels[Int(rng.uniform() * Double(vowels.count))]
                let f0a = rng.uniform(100, 170), f0b = f0a * rng.uniform(0.85, 1.15)
                let s0 = Int(t * rate), len = Int(dur * rate)
                let fricative = rng.uniform() < 0.3
                // Resonator coefficients for this syllable.
                let coeffs = formants.enumerated().map { (j, f) -> (Double, Double, Double) in
                    let bw = 60.0 + 40 * Double(j)
                    let r = exp(-Double.pi * bw / rate)
                    return (2 * r * cos(2 * .pi * f / rate), -r * r, 1 - r)
                }
                for i in 0..<len where s0 + i < n {
                    let x = Double(i) / Double(len)
                    let f0 = f0a + (f0b - f0a) * x
                    phase += f0 / rate
                    var src = 0.0
                    if phase >= 1 { phase -= 1; src = 1 }
                    var y = 0.0
                    for j in 0..<3 {
                        let c = coeffs[j]
                        let v = c.2 * src + c.0 * states[j][0] + c.1 * states[j][1]
                        states[j][1] = states[j][0]; states[j][0] = v
                        y += v / Double(j + 1)
                    }
                    let env = sin(.pi * x)
                    var s = 3 * y * env
                    if fricative && x < 0.3 { s += 0.05 * rng.gaussian() * sin(.pi * x / 0.3) }
                    out[s0 + i] += s
                }
                t += dur + rng.uniform(0.0, 0.05)
            }
            t += rng.uniform(0.2, 0.6)
        }
        let peak = out.map(abs).max() ?? 1
        return out.map { Float(0.5 * $0 / peak) }
    }

    /// White Gaussian noise of RMS `rms`.
    static func noise(count: Int, rms: Double, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float(rms * rng.gaussian()) }
    }

    /// `x` delayed by `samples` (fractional, may be negative) as an exact band-limited shift,
    /// same length; padded so nothing wraps around.
    static func delayed(_ x: [Float], by samples: Double) -> [Float] {
        let pad = Int(abs(samples).rounded(.up)) + 4096
        let n = RealFFT.fastSize(atLeast: x.count + 2 * pad)
        let fft = RealFFT(size: n)
        var input = [Float](repeating: 0, count: n)
        for i in 0..<x.count { input[pad + i] = x[i] }
        var s = fft.forward(input)
        for k in 0...(n / 2) {
            let w = -2 * Double.pi * Double(k) * samples / Double(n)
            let re = Double(s[2 * k]), im = Double(s[2 * k + 1])
            var c = cos(w), sn = sin(w)
            if 2 * k == n { c = cos(w); sn = 0 }  // keep the Nyquist bin real
            s[2 * k] = Float(re * c - im * sn)
            s[2 * k + 1] = Float(re * sn + im * c)
        }
        let y = fft.inverse(s)
        return (0..<x.count).map { y[pad + $0] / Float(n) }
    }

    /// Convolution with a short impulse response given as (delay in samples, gain) taps.
    static func reverberated(_ x: [Float], taps: [(Int, Double)]) -> [Float] {
        var out = [Float](repeating: 0, count: x.count)
        for (d, g) in taps {
            for i in d..<x.count { out[i] += Float(g) * x[i - d] }
        }
        return out
    }

    /// Take = voice + bleed scaled to `bleedDB` (direct bleed energy / voice energy) + noise.
    static func take(voice: [Float], bleed: [Float], bleedDB: Double, noiseDB: Double = -60,
                     seed: UInt64 = 99) -> [Float] {
        let ev = energy(voice), eb = energy(bleed)
        let g = (ev / eb * pow(10, bleedDB / 10)).squareRoot()
        let rmsVoice = (ev / Double(voice.count)).squareRoot()
        let noiseSig = noise(count: voice.count, rms: rmsVoice * pow(10, noiseDB / 20), seed: seed)
        return sum(sum(voice, scaled(bleed, by: g)), noiseSig)
    }
}
