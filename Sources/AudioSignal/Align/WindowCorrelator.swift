import Foundation

/// GCC-PHAT between one window of the take and a longer segment of the reference, with the
/// confidence metrics and bleed gain of that window. Used by `BleedAligner`; FFT plans are
/// cached per size so windows of one size share them.
package final class WindowCorrelator {
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
    package func analyse(take: [Float], takeStart: Int, reference: [Float], referenceStart: Double,
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
        let weights = settings.levelWeighting ? Self.levelWeights(take, sampleRate: sampleRate)
                                              : [Float](repeating: 1, count: w)
        var weighted = take
        for i in 0..<w { weighted[i] *= weights[i] }
        weighted.withUnsafeBufferPointer { src in specT.withUnsafeMutableBufferPointer { plan.forward(src, into: $0) } }
        reference.withUnsafeBufferPointer { src in specR.withUnsafeMutableBufferPointer { plan.forward(src, into: $0) } }

        // Raw cross-spectrum conj(T)·R (kept for the bleed gain) and its whitened, band-limited copy.
        let hiHz = min(settings.bandHighHz, 0.4 * sampleRate)  // inside the analysis resampler's passband
        let kLo = max(1, Int((settings.bandLowHz * Double(n) / sampleRate).rounded(.up)))
        let kHi = min(bins - 1, Int((hiHz * Double(n) / sampleRate).rounded(.down)))
        var raw = [Double](repeating: 0, count: 2 * bins)
        var mags = [Double](repeating: 0, count: bins + 1)  // prefix sums of |C|
        var phat = [Float](repeating: 0, count: n + 2)
        for k in 0..<bins {
            let tr = Double(specT[2 * k]), ti = Double(specT[2 * k + 1])
            let rr = Double(specR[2 * k]), ri = Double(specR[2 * k + 1])
            let cr = tr * rr + ti * ri, ci = tr * ri - ti * rr
            raw[2 * k] = cr
            raw[2 * k + 1] = ci
            mags[k + 1] = mags[k] + (cr * cr + ci * ci).squareRoot()
        }
        if kHi >= kLo {
            let meanMag = (mags[kHi + 1] - mags[kLo]) / Double(kHi - kLo + 1)
            let eps = settings.whiteningFloor * meanMag + Double.leastNormalMagnitude
            let beta = settings.whiteningExponent
            // Divide by |C| averaged over ±smoothing Hz: flattens the spectral envelope (what
            // makes the peak sharp) but keeps fine structure, so a repeating loop's line spectrum
            // still shows up as repeating peaks instead of being evened out.
            let half = max(0, Int((settings.whiteningSmoothingHz * Double(n) / sampleRate).rounded()))
            for k in kLo...kHi {
                let lo = max(0, k - half), hi = min(bins - 1, k + half)
                let mag = (mags[hi + 1] - mags[lo]) / Double(hi - lo + 1) + eps
                let scale = beta == 1 ? 1 / mag : pow(mag, -beta)
                phat[2 * k] = Float(raw[2 * k] * scale)
                phat[2 * k + 1] = Float(raw[2 * k + 1] * scale)
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
        var x = Self.refine(spectrum, from: kLo, to: kHi, n: n, start: kPeak, polarity: polarity)
        if abs(x - Double(kPeak)) > 1 {
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

        // Noise statistics outside the exclusion zone around the peak; the second peak is the
        // best of the three highest local maxima there, refined like the main one (a peak between
        // samples would otherwise look up to a third lower than it is).
        let exclusion = max(2, min(Int(settings.exclusionSeconds * sampleRate), maxLag / 2))
        var sumSq = 0.0, count = 0
        var candidates: [(Float, Int)] = []
        if kMax >= kMin {
            for k in kMin...kMax where abs(k - kPeak) > exclusion {
                let v = Double(corr[k]) / Double(n)
                sumSq += v * v
                count += 1
                let a = abs(corr[k])
                if k > kMin && k < kMax && a >= abs(corr[k - 1]) && a > abs(corr[k + 1]) {
                    if candidates.count < 3 { candidates.append((a, k)); candidates.sort { $0.0 > $1.0 } }
                    else if a > candidates[2].0 { candidates[2] = (a, k); candidates.sort { $0.0 > $1.0 } }
                }
            }
        }
        var second = Double(candidates.first?.0 ?? 0) / Double(n)
        for (_, k) in candidates {
            let sign: Double = corr[k] < 0 ? -1 : 1
            let xs = Self.refine(spectrum, from: kLo, to: kHi, n: n, start: k, polarity: sign)
            if abs(xs - Double(k)) <= 1 {
                second = max(second, sign * Self.evaluate(spectrum, from: kLo, to: kHi, n: n, at: xs).value)
            }
        }
        let rms = count > 0 ? (sumSq / Double(count)).squareRoot() : 0
        let metrics = BleedAligner.PeakMetrics(peak: peak, secondPeak: second, noiseRMS: rms,
                                               noiseLagCount: count, settings: settings)

        // Bleed gain by least squares at the refined lag, weighted like the correlation (1/local
        // energy, so the voice's loud stretches add less scatter): weighted correlation at the
        // three integer lags around the peak, interpolated by a parabola. Energies unweighted.
        let kRound = min(max(Int(x.rounded()), 1), reference.count - w - 1)
        var cw = [0.0, 0.0, 0.0], cu = [0.0, 0.0, 0.0]
        var eRefW = 0.0, eRef = 0.0, eTake = 0.0
        take.withUnsafeBufferPointer { t in
            reference.withUnsafeBufferPointer { r in
                for i in 0..<w {
                    let tv = Double(t[i]), wt = Double(weights[i]) * Double(weights[i])
                    let r0 = Double(r[kRound - 1 + i]), r1 = Double(r[kRound + i]), r2 = Double(r[kRound + 1 + i])
                    cu[0] += tv * r0; cu[1] += tv * r1; cu[2] += tv * r2
                    cw[0] += wt * tv * r0; cw[1] += wt * tv * r1; cw[2] += wt * tv * r2
                    eRefW += wt * r1 * r1
                    eRef += r1 * r1
                    eTake += tv * tv
                }
            }
        }
        let u = x - Double(kRound)
        func interpolate(_ c: [Double]) -> Double {
            c[1] + 0.5 * u * (c[2] - c[0]) + 0.5 * u * u * (c[0] - 2 * c[1] + c[2])
        }
        let gain = eRefW > 0 ? interpolate(cw) / eRefW : 0
        let bleedEnergy = gain * gain * eRef
        let residual = max(eTake - 2 * gain * interpolate(cu) + bleedEnergy,
                           1e-12 * eTake + Double.leastNormalMagnitude)

        return BleedAligner.WindowEstimate(
            takeStart: takeStart, frames: w, lagSamples: d - x, metrics: metrics,
            gain: gain, bleedEnergy: bleedEnergy, residualEnergy: residual)
    }

    /// Newton's method for the maximum of polarity·c(x) near the integer `start`; returns a value
    /// more than one sample away when it fails (the caller then falls back).
    package static func refine(_ s: [Double], from lo: Int, to hi: Int, n: Int, start: Int, polarity: Double) -> Double {
        var x = Double(start)
        for _ in 0..<12 {
            let e = evaluate(s, from: lo, to: hi, n: n, at: x)
            let d1 = polarity * e.d1, d2 = polarity * e.d2
            guard d2 < 0 else { return .infinity }
            let step = max(-0.5, min(0.5, -d1 / d2))
            x += step
            if abs(step) < 1e-7 { break }
        }
        return x
    }

    /// Per-sample weights 1/local RMS (centred ~20 ms moving average of x²): multiplying the take
    /// by them makes quiet stretches — the voice's pauses, where the bleed is clearest — weigh as
    /// much in the correlation as loud ones. A smooth positive weight does not move the peak.
    package static func levelWeights(_ x: [Float], sampleRate: Double) -> [Float] {
        let n = x.count
        guard n > 0 else { return [] }
        let half = max(1, Int(0.010 * sampleRate))
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + Double(x[i]) * Double(x[i]) }
        let floor = max(prefix[n] / Double(n) * 1e-8, Double.leastNormalMagnitude)
        var out = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n, i + half + 1)
            let local = (prefix[hi] - prefix[lo]) / Double(hi - lo)
            out[i] = Float(1 / (local + floor).squareRoot())
        }
        return out
    }

    /// Value and first two derivatives in x of c(x) = (1/n)·Σ m_k·Re(S_k·e^{i2πkx/n}) over bins
    /// `from...to` of an interleaved half spectrum (m_k = 1 at DC and Nyquist, 2 elsewhere).
    package static func evaluate(_ s: [Double], from lo: Int, to hi: Int, n: Int, at x: Double)
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
