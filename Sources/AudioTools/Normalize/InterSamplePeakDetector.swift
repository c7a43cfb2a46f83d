import Foundation

/// What the true-peak limiter needs from an oversampler: for one channel, streaming, the largest
/// |value| of the signal between each frame and the next (the sample and its interpolated points).
/// Any BS.1770-style oversampling true-peak detector can stand behind it.
public protocol InterSamplePeakDetector {
    /// Frames between a sample going in and its peak coming out (the filter's look-ahead).
    var latency: Int { get }
    /// Consumes `count` samples and writes `count` frame peaks, each for the frame `latency`
    /// frames before the matching input (the first `latency` peaks cover the silence before the
    /// stream). Peaks at or below `threshold` need not be exact, only never above it, so a
    /// detector may skip the interpolation where the input is too quiet to reach it.
    /// Returns the largest peak written (or, where skipped, a bound on it no higher than `threshold`).
    mutating func framePeaks(_ input: UnsafePointer<Float>, count: Int,
                             into peaks: UnsafeMutablePointer<Float>, threshold: Float) -> Float
}

/// A compact 4× polyphase windowed-sinc (Kaiser) interpolator, 24 taps per phase. Stands in
/// until the loudness meter's oversampler is wired behind `InterSamplePeakDetector`.
public struct SimpleOversamplingPeakDetector: InterSamplePeakDetector {
    /// Taps either side of the interpolation point; the filter spans 2·halfTaps input samples.
    static let halfTaps = 12
    /// Coefficients of the phases 1/4, 2/4, 3/4 (phase 0 is the sample itself), 2·halfTaps each:
    /// tap j multiplies the sample j − halfTaps + 1 frames from the frame being interpolated.
    static let phases: [[Float]] = {
        let k = halfTaps, beta = 6.0
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, i = 1.0
            while term > 1e-12 * sum { term *= (x / (2 * i)) * (x / (2 * i)); sum += term; i += 1 }
            return sum
        }
        return (1...3).map { p in
            var h = (0..<(2 * k)).map { j -> Double in
                let t = Double(j - k + 1) - Double(p) / 4   // sample time minus interpolation time
                let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
                let r = t / Double(k)
                return sinc * besselI0(beta * (max(0, 1 - r * r)).squareRoot()) / besselI0(beta)
            }
            let dc = h.reduce(0, +)
            h = h.map { $0 / dc }                               // unity gain at DC
            return h.map(Float.init)
        }
    }()
    /// Half sums and half differences of phase 1's tap j and taps−1−j (phase 3 is phase 1 reversed).
    static let mirrorSum: [Float] = (0..<halfTaps).map { (phases[0][$0] + phases[0][2 * halfTaps - 1 - $0]) / 2 }
    static let mirrorDifference: [Float] = (0..<halfTaps).map { (phases[0][$0] - phases[0][2 * halfTaps - 1 - $0]) / 2 }
    /// The most an interpolated value can exceed the largest |input| in its window: max Σ|h|.
    static let boundGain: Float = phases.map { $0.reduce(0) { $0 + abs($1) } }.max()! * 1.001

    public var latency: Int { Self.halfTaps }
    /// The last 2·halfTaps − 1 samples of the previous call, then the current block.
    private var work: [Float]

    public init() {
        work = [Float](repeating: 0, count: 2 * Self.halfTaps - 1)
    }

    public mutating func framePeaks(_ input: UnsafePointer<Float>, count: Int,
                                    into peaks: UnsafeMutablePointer<Float>, threshold: Float) -> Float {
        let taps = 2 * Self.halfTaps, history = taps - 1
        if work.count < history + count {
            work.append(contentsOf: repeatElement(0, count: history + count - work.count))
        }
        let skipLevel = threshold / Self.boundGain
        var blockMax: Float = 0
        work.withUnsafeMutableBufferPointer { wb in
            let w = wb.baseAddress!
            (w + history).update(from: input, count: count)
            Self.mirrorSum.withUnsafeBufferPointer { hsb in
            Self.mirrorDifference.withUnsafeBufferPointer { hdb in
            Self.phases[0].withUnsafeBufferPointer { h1b in
            Self.phases[1].withUnsafeBufferPointer { h2b in
            Self.phases[2].withUnsafeBufferPointer { h3b in
                let h1 = h1b.baseAddress!, h2 = h2b.baseAddress!, h3 = h3b.baseAddress!
                let hs = hsb.baseAddress!, hd = hdb.baseAddress!
                let chunk = 64
                var start = 0
                while start < count {
                    let end = min(start + chunk, count)
                    // Everything interpolated in this chunk comes from w[start ..< end + history].
                    let windowMax = Self.absMax(w + start, count: end + history - start)
                    if windowMax <= skipLevel {
                        for i in start..<end { peaks[i] = abs(w[i + Self.halfTaps - 1]) }
                        blockMax = max(blockMax, windowMax)
                        start = end
                        continue
                    }
                    var i = start
                    // Phase 2 is symmetric and phases 1 and 3 mirror each other, so pair tap j
                    // with tap taps−1−j: sums feed phase 2 and (1 + 3), differences (1 − 3).
                    while i + 8 <= end {
                        var a2 = SIMD8<Float>(), sum13 = SIMD8<Float>(), diff13 = SIMD8<Float>()
                        for j in 0..<Self.halfTaps {
                            let u = UnsafeRawPointer(w + i + j).loadUnaligned(as: SIMD8<Float>.self)
                            let v = UnsafeRawPointer(w + i + taps - 1 - j).loadUnaligned(as: SIMD8<Float>.self)
                            let s = u + v
                            a2 += s * SIMD8(repeating: h2[j])
                            sum13 += s * SIMD8(repeating: hs[j])
                            diff13 += (u - v) * SIMD8(repeating: hd[j])
                        }
                        var a1 = sum13 + diff13, a3 = sum13 - diff13
                        var a2m = a2
                        var m = UnsafeRawPointer(w + i + Self.halfTaps - 1).loadUnaligned(as: SIMD8<Float>.self)
                        m = m.replacing(with: -m, where: m .< 0)
                        a1 = a1.replacing(with: -a1, where: a1 .< 0)
                        a2m = a2m.replacing(with: -a2m, where: a2m .< 0)
                        a3 = a3.replacing(with: -a3, where: a3 .< 0)
                        m = m.replacing(with: a1, where: a1 .> m)
                        m = m.replacing(with: a2m, where: a2m .> m)
                        m = m.replacing(with: a3, where: a3 .> m)
                        UnsafeMutableRawPointer(peaks + i).storeBytes(of: m, as: SIMD8<Float>.self)
                        for l in 0..<8 { blockMax = max(blockMax, m[l]) }
                        i += 8
                    }
                    while i < end {
                        var s1: Float = 0, s2: Float = 0, s3: Float = 0
                        for j in 0..<taps {
                            let v = w[i + j]
                            s1 += v * h1[j]; s2 += v * h2[j]; s3 += v * h3[j]
                        }
                        let m = max(abs(w[i + Self.halfTaps - 1]), abs(s1), abs(s2), abs(s3))
                        peaks[i] = m
                        blockMax = max(blockMax, m)
                        i += 1
                    }
                    start = end
                }
            }}}}}
            (w).update(from: w + count, count: history)
        }
        return blockMax
    }

    /// Largest |x| over `count` samples, eight lanes at a time.
    @inline(__always)
    static func absMax(_ x: UnsafePointer<Float>, count: Int) -> Float {
        var acc = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            var v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
            v = v.replacing(with: -v, where: v .< 0)
            acc = acc.replacing(with: v, where: v .> acc)
            i += 8
        }
        var m: Float = 0
        for l in 0..<8 where acc[l] > m { m = acc[l] }
        while i < count { m = max(m, abs(x[i])); i += 1 }
        return m
    }
}
