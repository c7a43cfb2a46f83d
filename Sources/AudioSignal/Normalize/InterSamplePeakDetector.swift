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

/// The loudness meter's own BS.1770 oversampler (`TruePeakOversampler`, in its per-frame mode)
/// behind `InterSamplePeakDetector`, so the limiter holds back exactly the peaks the meter will
/// read. It adds the skip the protocol allows: in 64-frame chunks whose whole input window is
/// under `threshold ÷ Σ|h|` no interpolated value can reach the threshold, so the oversampler is
/// not run there and the frame peak is the (delayed) sample's own |value|.
package struct OversamplerPeakDetector: InterSamplePeakDetector {
    private let oversampler: TruePeakOversampler
    /// Past samples the oversampler's branches read (taps per phase − 1).
    private let history: Int
    /// The last `history` samples of the previous call, then the current block.
    private var work: [Float]
    package static let chunk = 64

    public var latency: Int { oversampler.latency }

    public init(sampleRate: Int) {
        oversampler = TruePeakOversampler(sampleRate: sampleRate)
        history = oversampler.tapsPerPhase - 1
        work = [Float](repeating: 0, count: history)
    }

    public mutating func framePeaks(_ input: UnsafePointer<Float>, count: Int,
                                    into peaks: UnsafeMutablePointer<Float>, threshold: Float) -> Float {
        guard count > 0 else { return 0 }
        let h = history, delay = latency
        if work.count < h + count { work.append(contentsOf: repeatElement(0, count: h + count - work.count)) }
        let skipLevel = threshold / oversampler.gainBound
        var blockMax: Float = 0
        let os = oversampler
        work.withUnsafeMutableBufferPointer { wb in
            let w = wb.baseAddress!
            (w + h).update(from: input, count: count)
            // Input frame i is w[i + h]; its peak depends on w[i ... i + h].
            var runStart = -1
            let interpolates = os.factor > 1
            func flushRun(_ end: Int) {
                guard runStart >= 0 else { return }
                let m: Float
                if interpolates {
                    // The oversampler's kernel straight on `w`, whose samples before the run are
                    // its history whether or not the chunk before was skipped.
                    m = os.kernel(base: w + h + runStart, count: end - runStart, framePeaks: peaks + runStart)
                } else {
                    os.interSamplePeaks(UnsafeBufferPointer(start: w + h + runStart, count: end - runStart),
                                        into: UnsafeMutableBufferPointer(start: peaks + runStart, count: end - runStart))
                    m = TruePeakOversampler.absMax(peaks + runStart, count: end - runStart)
                }
                if m > blockMax { blockMax = m }
                runStart = -1
            }
            var start = 0
            while start < count {
                let end = min(start + Self.chunk, count)
                let windowMax = Self.absMax(w + start, count: end + h - start)
                if windowMax <= skipLevel {
                    flushRun(start)
                    Self.magnitudes(w + start + h - delay, count: end - start, into: peaks + start)
                    blockMax = max(blockMax, windowMax)
                } else if runStart < 0 {
                    runStart = start
                }
                start = end
            }
            flushRun(count)
            w.update(from: w + count, count: h)
        }
        return blockMax
    }

    /// out[i] = |x[i]| for `count` values, eight at a time.
    package static func magnitudes(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>) {
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<UInt32>.self) & 0x7fff_ffff
            UnsafeMutableRawPointer(out + i).storeBytes(of: v, as: SIMD8<UInt32>.self)
            i += 8
        }
        while i < count { out[i] = abs(x[i]); i += 1 }
    }

    /// Largest |x| over `count` values (the same value as `TruePeakOversampler.absMax`): from 8
    /// values on, the last vector overlaps the one before instead of a scalar tail (a maximum
    /// doesn't mind seeing a value twice).
    @inline(__always)
    package static func absMax(_ p: UnsafePointer<Float>, count: Int) -> Float {
        guard count >= 8 else { return TruePeakOversampler.absMax(p, count: count) }
        @inline(__always) func load(_ i: Int) -> SIMD8<Float> {
            unsafeBitCast(UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
        }
        var v = load(count - 8)
        var i = 0
        while i + 8 < count {
            let x = load(i)
            v = v.replacing(with: x, where: x .> v)
            i += 8
        }
        var m: Float = 0
        for l in 0..<8 where v[l] > m { m = v[l] }
        return m
    }

    /// The first index whose |x| equals `m`, which must occur among the `count` values.
    @inline(__always)
    package static func firstIndex(ofMagnitude m: Float, in p: UnsafePointer<Float>, count: Int) -> Int {
        var i = 0
        while i + 8 <= count {
            let x = unsafeBitCast(UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<UInt32>.self) & 0x7fff_ffff,
                                  to: SIMD8<Float>.self)
            if any(x .== m) { break }
            i += 8
        }
        while abs(p[i]) != m { i += 1 }
        return i
    }
}
