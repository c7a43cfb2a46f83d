import Foundation

/// GCC-PHAT between one window of the take and a longer segment of the reference, with the
/// confidence metrics and bleed gain of that window. Used by `BleedAligner`; FFT plans are
/// cached per size so windows of one size share them.
final class WindowCorrelator {
    private var ffts: [Int: RealFFT] = [:]

    private func fft(_ n: Int) -> RealFFT {
        if let f = ffts[n] { return f }
        let f = RealFFT(size: n)
        ffts[n] = f
        return f
    }

    /// Correlates `take` (a window starting at take frame `takeStart`) with `reference`, whose
    /// first sample sits at take-time coordinate `referenceStart` (fractional when the
    /// reference was warped). Lags searched: [−maxLag, maxLag] samples, positive = take late.
    /// The reference must cover `take.count + 2·maxLag` samples around the window.
    func analyse(take: [Float], takeStart: Int, reference: [Float], referenceStart: Double,
                 maxLag: Int, sampleRate: Double, settings: BleedAligner.Settings)
        -> BleedAligner.WindowEstimate
    {
        let w = take.count
        // Correlation index k pairs take[n] with reference[n + k]; lag = d − k.
        let d = Double(takeStart) - referenceStart
        let dInt = Int(d.rounded(.down))
        let kMin = max(0, dInt - maxLag)
        let kMax = min(reference.count - w, dInt + maxLag + 1)
        let n = RealFFT.fastSize(atLeast: max(reference.count, w) + 2)
        let plan = fft(n)
        let bins = plan.binCount

        var specT = [Float](repeating: 0, count: n + 2)
        var specR = [Float](repeating: 0, count: n + 2)
        take.withUnsafeBufferPointer { src in specT.withUnsafeMutableBufferPointer { plan.forward(src, into: $0) } }
        reference.withUnsafeBufferPointer { src in specR.withUnsafeMutableBufferPointer { plan.forward(src, into: $0) } }

        // Raw cross-spectrum conj(T)·R (kept for the bleed gain) and its whitened, band-limited copy.
        let hiHz = min(settings.bandHighHz, 0.45 * sampleRate)
        let kLo = max(1, Int((settings.bandLowHz * Double(n) / sampleRate).rounded(.up)))
        let kHi = min(bins - 1, Int((hiHz * Double(n) / sampleRate).rounded(.down)))
        var raw = [Double](repeating: 0, count: 2 * bins)
        var phat = [Float](repeating: 0, count: n + 2)
        var meanMag = 0.0
        for k in 0..<bins {
            let tr = Double(specT[2 * k]), ti = Double(specT[2 * k + 1])
            let rr = Double(specR[2 * k]), ri = Double(specR[2 * k + 1])
            let cr = tr * rr + ti * ri, ci = tr * ri - ti * rr
            raw[2 * k] = cr
            raw[2 * k + 1] = ci
            if k >= kLo && k <= kHi { meanMag += (cr * cr + ci * ci).squareRoot() }
        }
        meanMag /= Double(max(1, kHi - kLo + 1))
        let eps = settings.whiteningFloor * meanMag + Double.leastNormalMagnitude
        let beta = settings.whiteningExponent
        if kHi >= kLo {
            for k in kLo...kHi {
                let cr = raw[2 * k], ci = raw[2 * k + 1]
                let mag = (cr * cr + ci * ci).squareRoot() + eps
                let scale = beta == 1 ? 1 / mag : pow(mag, -beta)
                phat[2 * k] = Float(cr * scale)
                phat[2 * k + 1] = Float(ci * scale)
            }
        }
        var corr = [Float](repeating: 0, count: n)
        phat.withUnsafeBufferPointer { s in corr.withUnsafeMutableBufferPointer { plan.inverse(s, into: $0) } }

        // Integer peak of |c| in the searched range.
        var kPeak = kMin
        var best: Float = -1
        if kMax >= kMin {
            for k in kMin...kMax where abs(corr[k]) > best { best = abs(corr[k]); kPeak = k }
        }
        let polarity: Double = corr[kPeak] < 0 ? -1 : 1

        // Sub-sample refinement: Newton on the band-limited correlation evaluated exactly from the
        // whitened spectrum (no interpolation bias), starting at the integer peak.
        let spectrum = phat.map(Double.init)
        var x = Double(kPeak)
        var refined = true
        for _ in 0..<12 {
            let e = Self.evaluate(spectrum, from: kLo, to: kHi, n: n, at: x)
            let d1 = polarity * e.d1, d2 = polarity * e.d2
            guard d2 < 0 else { refined = false; break }
            let step = max(-0.5, min(0.5, -d1 / d2))
            x += step
            if abs(step) < 1e-7 { break }
        }
        if !refined || abs(x - Double(kPeak)) > 1 {
            // Fallback: parabola through the three integer samples.
            x = Double(kPeak)
            if kPeak > 0 && kPeak + 1 < n {
                let a = polarity * Double(corr[kPeak - 1]), b = polarity * Double(corr[kPeak])
                let c = polarity * Double(corr[kPeak + 1])
                let den = a - 2 * b + c
                if den < 0 { x += max(-0.5, min(0.5, 0.5 * (a - c) / den)) }
            }
        }
        let peak = max(polarity * Self.evaluate(spectrum, from: kLo, to: kHi, n: n, at: x).value,
                       Double(best) / Double(n))

        // Noise statistics outside the exclusion zone around the peak.
        let exclusion = max(2, min(Int(settings.exclusionSeconds * sampleRate), maxLag / 2))
        var sumSq = 0.0, count = 0, second = 0.0
        if kMax >= kMin {
            for k in kMin...kMax where abs(k - kPeak) > exclusion {
                let v = Double(corr[k]) / Double(n)
                sumSq += v * v
                count += 1
                second = max(second, abs(v))
            }
        }
        let rms = count > 0 ? (sumSq / Double(count)).squareRoot() : 0
        let metrics = BleedAligner.PeakMetrics(peak: peak, secondPeak: second, noiseRMS: rms,
                                               noiseLagCount: count, settings: settings)

        // Bleed gain by least squares at the refined lag, from the raw cross-spectrum.
        let cross = Self.evaluate(raw, from: 0, to: bins - 1, n: n, at: x).value
        let kRound = min(max(Int(x.rounded()), 0), reference.count - w)
        var eRef = 0.0, eTake = 0.0
        for i in 0..<w {
            let r = Double(reference[kRound + i]); eRef += r * r
            let t = Double(take[i]); eTake += t * t
        }
        let gain = eRef > 0 ? cross / eRef : 0
        let bleedEnergy = gain * gain * eRef
        let residual = max(eTake - gain * cross, 1e-12 * eTake + Double.leastNormalMagnitude)

        return BleedAligner.WindowEstimate(
            takeStart: takeStart, frames: w, lagSamples: d - x, metrics: metrics,
            gain: gain, bleedEnergy: bleedEnergy, residualEnergy: residual)
    }

    /// Value and first two derivatives in x of c(x) = (1/n)·Σ m_k·Re(S_k·e^{i2πkx/n}) over bins
    /// `from...to` of an interleaved half spectrum (m_k = 1 at DC and Nyquist, 2 elsewhere).
    static func evaluate(_ s: [Double], from lo: Int, to hi: Int, n: Int, at x: Double)
        -> (value: Double, d1: Double, d2: Double)
    {
        guard hi >= lo else { return (0, 0, 0) }
        let dw = 2 * Double.pi / Double(n)
        var zr = cos(dw * Double(lo) * x), zi = sin(dw * Double(lo) * x)
        let sr = cos(dw * x), si = sin(dw * x)
        var v = 0.0, d1 = 0.0, d2 = 0.0
        for k in lo...hi {
            let m: Double = (k == 0 || 2 * k == n) ? 1 : 2
            let ar = s[2 * k], ai = s[2 * k + 1]
            let pr = ar * zr - ai * zi, pi = ar * zi + ai * zr
            let om = dw * Double(k)
            v += m * pr
            d1 -= m * om * pi
            d2 -= m * om * om * pr
            let nzr = zr * sr - zi * si
            zi = zr * si + zi * sr
            zr = nzr
            if (k - lo) & 4095 == 4095 {  // renormalise the phasor now and then
                let mag = (zr * zr + zi * zi).squareRoot(); zr /= mag; zi /= mag
            }
        }
        let inv = 1 / Double(n)
        return (v * inv, d1 * inv, d2 * inv)
    }
}
