import Foundation

/// BS.1770-4 Annex 2 true-peak estimation for one channel: a polyphase windowed-sinc interpolator
/// that oversamples 4× below 96 kHz, 2× below 192 kHz and not at all from 192 kHz up.
///
/// Two ways to use it, one per instance: `add` + `finish` keep the running maximum of
/// |interpolated signal| (skipping stretches that provably cannot raise it), while
/// `interSamplePeaks` returns every frame's inter-sample peak for a true-peak limiter.
package final class TruePeakOversampler {
    /// Oversampling factor used at this rate (4, 2 or 1).
    public let factor: Int
    /// Input samples each polyphase branch reads.
    public let tapsPerPhase: Int
    /// Frames between an input sample and the interpolated values around it in
    /// `interSamplePeaks`' output (the filter's group delay).
    public var latency: Int { factor == 1 ? 0 : tapsPerPhase / 2 }

    /// The branches' taps folded over their mirror symmetry (h_{f−p}[k] = h_p[t−1−k]), each
    /// broadcast to a vector: `Folded.half` taps of the middle branch (h_{f/2}[k]), then at 4× as
    /// many of (h_1[k] + h_3[k]) / 2 and of (h_1[k] − h_3[k]) / 2. See `kernel`.
    private let folded: [SIMD8<Float>]
    /// The same taps as scalars, for the AVX2 kernel.
    private let foldedScalars: [Float]
    /// Whether `kernel` runs its vector loop through the AVX2 kernel (the same bits as the
    /// SIMD8 loop, in half the instructions): on CPUs that have AVX2, unless the instance was
    /// made inside `VectorKernels.portableOnly`. Tests set it to compare the two.
    package var usesAVX2: Bool
    package enum Folded {
        /// Tap pairs per branch.
        package static let half = 8
    }
    /// Branch p's taps, unfolded: `taps[p * tapsPerPhase + k]` multiplies x[n − k].
    package let taps: [Float]
    /// max over branches p ≥ 1 of Σ|h_p|, widened to cover Float rounding: no interpolated value can
    /// exceed it times the largest |input| in the branch's window.
    package let gainBound: Float

    /// Samples gathered per skip decision in `add` mode.
    package static let chunk = 64
    /// `history` samples of the past followed by the chunk being gathered.
    private var work: [Float]
    private var filled = 0
    private var previousChunkMax: Float = 0
    private var interpolatedMax: Float = 0
    private var finished = false
    /// Past input for `interSamplePeaks` mode.
    private var frameWork: [Float]
    /// `add` mode, with a counter of overs (QC's, sharing this oversampler's work): every stretch
    /// whose values could pass full scale is interpolated too, and its per-frame peaks handed to
    /// the counter in frame order. Set before the first `add`; nil when nothing is shared.
    public var overCounter: TruePeakOverCounter? {
        didSet { precondition(framesAdded == 0 && (overCounter == nil || factor > 1), "an over counter needs oversampling, before any add") }
    }
    /// Frames handed to `add` before the current call, and the first frame of the chunk gathered in `work`.
    private var framesAdded = 0
    private var gatheredStart = 0
    /// Per-frame peaks of a stretch interpolated for the over counter.
    private var framePeakScratch: [Float] = []

    /// The largest |sample| seen by `add`.
    public private(set) var samplePeak: Float = 0
    /// The largest |interpolated value| seen by `add`, never below `samplePeak`. Complete after `finish`.
    public var truePeak: Float { max(samplePeak, interpolatedMax) }

    /// The oversampling factor BS.1770-4 asks for at `sampleRate`.
    public static func factor(forSampleRate sampleRate: Int) -> Int {
        sampleRate < 96_000 ? 4 : (sampleRate < 192_000 ? 2 : 1)
    }

    /// An oversampler for `sampleRate`; with `oversampling` false it only tracks the sample peak.
    public init(sampleRate: Int, oversampling: Bool = true) {
        let f = oversampling ? Self.factor(forSampleRate: sampleRate) : 1
        factor = f
        tapsPerPhase = f == 1 ? 1 : 2 * Folded.half
        let t = tapsPerPhase
        var h = [Float](repeating: 0, count: f * t)
        var bound: Double = 0
        if f > 1 {
            h = Self.design(factor: f, tapsPerPhase: t)
            for p in 1..<f {
                var s = 0.0
                for k in 0..<t { s += Double(abs(h[p * t + k])) }
                bound = max(bound, s)
            }
        } else {
            h[0] = 1
        }
        taps = h
        var fold: [Float] = []
        if f > 1 {
            let m = f / 2
            fold = (0..<Folded.half).map { h[m * t + $0] }
            if f == 4 {
                fold += (0..<Folded.half).map { (h[t + $0] + h[3 * t + $0]) / 2 }
                fold += (0..<Folded.half).map { (h[t + $0] - h[3 * t + $0]) / 2 }
            }
        }
        folded = fold.map { SIMD8<Float>(repeating: $0) }
        foldedScalars = fold
        usesAVX2 = VectorKernels.hasAVX2 && !VectorKernels.portableOnly
        gainBound = Float(bound * (1 + 1e-4))
        work = [Float](repeating: 0, count: t - 1 + Self.chunk)
        frameWork = [Float](repeating: 0, count: t - 1)
    }

    /// Kaiser-windowed sinc (β = 7) cut off at the input Nyquist frequency, split into `factor`
    /// branches of `tapsPerPhase` taps; branch 0 is a pure delay of `tapsPerPhase / 2` samples, and
    /// every branch is scaled to unit gain at DC. The prototype is symmetric about its centre, so
    /// branch f − p is branch p reversed; that is made exact in Float (the kernel relies on it).
    package static func design(factor f: Int, tapsPerPhase t: Int) -> [Float] {
        let length = f * t
        let centre = Double(length / 2)
        let beta = 7.0
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-17 * sum { term *= (x / (2 * k)) * (x / (2 * k)); sum += term; k += 1 }
            return sum
        }
        var proto = [Double](repeating: 0, count: length)
        for n in 0..<length {
            let u = (Double(n) - centre) / Double(f)
            let sinc = u == 0 ? 1 : sin(Double.pi * u) / (Double.pi * u)
            let r = (Double(n) - centre) / centre
            let w = besselI0(beta * max(0, 1 - r * r).squareRoot()) / besselI0(beta)
            proto[n] = sinc * w
        }
        var out = [Float](repeating: 0, count: length)
        for p in 0...(f / 2) {
            var branch = (0..<t).map { proto[p + f * $0] }
            let sum = branch.reduce(0, +)
            branch = branch.map { $0 / sum }
            if p > 0 && 2 * p == f { branch = (0..<t).map { (branch[$0] + branch[t - 1 - $0]) / 2 } }
            for k in 0..<t { out[p * t + k] = Float(branch[k]) }
            if p > 0 && 2 * p < f { for k in 0..<t { out[(f - p) * t + k] = Float(branch[t - 1 - k]) } }
        }
        return out
    }

    /// Feeds the next samples of the channel (max-tracking mode).
    public func add(_ samples: UnsafeBufferPointer<Float>) {
        precondition(!finished, "add after finish")
        guard let src = samples.baseAddress else { return }
        let h = tapsPerPhase - 1, c = Self.chunk, count = samples.count
        var i = 0
        work.withUnsafeMutableBufferPointer { wb in
            let w = wb.baseAddress!
            while i < count {
                if filled == 0 && i >= h && count - i >= c {
                    // Whole chunks whose history lies in `samples` are read where they are, and a
                    // run of chunks that all need interpolating is interpolated in one call.
                    var run = -1
                    while count - i >= c {
                        if needsInterpolation(src + i, count: c) {
                            if run < 0 { run = i }
                        } else if run >= 0 {
                            interpolate(src + run, count: i - run, firstFrame: framesAdded + run); run = -1
                        }
                        i += c
                    }
                    if run >= 0 { interpolate(src + run, count: i - run, firstFrame: framesAdded + run) }
                    w.update(from: src + i - h, count: h)
                    continue
                }
                // Otherwise gathered in `work`, behind the history kept there.
                if filled == 0 { gatheredStart = framesAdded + i }
                let n = min(c - filled, count - i)
                (w + h + filled).update(from: src + i, count: n)
                filled += n
                i += n
                if filled == c { processGathered(w) }
            }
        }
        framesAdded += count
    }

    /// Convenience for arrays: feeds the first `count` samples.
    public func add(_ samples: [Float], count: Int? = nil) {
        samples.withUnsafeBufferPointer { add(UnsafeBufferPointer(rebasing: $0[0..<(count ?? $0.count)])) }
    }

    /// Flushes the partial chunk and the filter tail (as if the signal were followed by silence),
    /// so `truePeak` covers the last samples. Further `add` calls are an error.
    public func finish() {
        guard !finished else { return }
        finished = true
        work.withUnsafeMutableBufferPointer { wb in
            let w = wb.baseAddress!
            guard factor > 1 else { processChunk(w, count: filled); filled = 0; return }
            if filled == 0 { gatheredStart = framesAdded }
            // Silence after the end, only as far as the branch windows still reach the last sample.
            var zerosNeeded = latency
            while zerosNeeded > 0 {
                let n = min(Self.chunk - filled, zerosNeeded)
                (w + tapsPerPhase - 1 + filled).update(repeating: 0, count: Self.chunk - filled)
                zerosNeeded -= n
                filled += n
                processGathered(w)
            }
        }
    }

    /// Handles the `filled` samples gathered at `w + history`, then keeps the chunk's last
    /// samples as the next history.
    private func processGathered(_ w: UnsafeMutablePointer<Float>) {
        let h = tapsPerPhase - 1
        processChunk(w + h, count: filled, firstFrame: gatheredStart)
        w.update(from: w + Self.chunk, count: h)
        gatheredStart += filled
        filled = 0
    }

    /// Handles the `count` samples at `chunk` (all of a chunk except at the end of the stream;
    /// `chunk[-history ..< 0]` are the samples before them).
    private func processChunk(_ chunk: UnsafePointer<Float>, count: Int, firstFrame: Int = 0) {
        if needsInterpolation(chunk, count: count) { interpolate(chunk, count: count, firstFrame: firstFrame) }
    }

    /// Takes the sample peak of the `count` samples at `chunk`, and says whether their
    /// interpolated values could raise the maximum found so far.
    ///
    /// The skip rule: every interpolated value here is Σ h_p[k]·x[n−k] over a window inside this
    /// chunk and its history, which lies inside the previous chunk, so |value| ≤ Σ|h_p| ·
    /// max(this chunk's max, the previous chunk's max) ≤ `gainBound` · `windowMax` (`gainBound`
    /// is widened past Float rounding). When that is at most the maximum found so far, nothing
    /// here can raise it, and the result is exactly what evaluating every value gives. The
    /// maximum may lag (chunks of a run are interpolated together after their decisions): a lower
    /// maximum only makes the rule skip less, never wrongly. With an over counter, a chunk whose
    /// values could pass full scale is interpolated as well (the bound is then 1 if lower), so a
    /// chunk left out has no over; the extra chunks can't raise the maximum, so it is the same.
    private func needsInterpolation(_ chunk: UnsafePointer<Float>, count: Int) -> Bool {
        let chunkMax = Self.absMax(chunk, count: count)
        if chunkMax > samplePeak { samplePeak = chunkMax }
        guard factor > 1 else { return false }
        let windowMax = max(previousChunkMax, chunkMax)
        previousChunkMax = chunkMax
        let reached = max(interpolatedMax, samplePeak)
        return windowMax * gainBound > (overCounter == nil ? reached : min(reached, 1))
    }

    /// Interpolates `count` positions at `base` (with their history before it) into the maximum;
    /// with an over counter, hands it their per-frame peaks (`firstFrame`: base[0]'s input frame).
    /// Those peaks also hold the samples themselves, which are never above `samplePeak`, so the
    /// maximum's rule and `truePeak` come out the same.
    private func interpolate(_ base: UnsafePointer<Float>, count: Int, firstFrame: Int) {
        guard let counter = overCounter else {
            let m = kernel(base: base, count: count, framePeaks: nil)
            if m > interpolatedMax { interpolatedMax = m }
            return
        }
        if framePeakScratch.count < count { framePeakScratch = [Float](repeating: 0, count: count) }
        framePeakScratch.withUnsafeMutableBufferPointer { pb in
            let p = pb.baseAddress!
            let m = kernel(base: base, count: count, framePeaks: p)
            if m > interpolatedMax { interpolatedMax = m }
            if m > 1 { counter.add(p, from: 0, to: count, start: firstFrame, latency: latency) }
        }
    }

    /// Per-frame inter-sample peaks (limiter mode): for each input frame n, writes the largest
    /// |value| of the oversampled signal over the `factor` instants in
    /// [n − latency, n − latency + 1) frames. Streaming; `out` must hold `input.count` values.
    public func interSamplePeaks(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        precondition(out.count >= input.count)
        guard let src = input.baseAddress, input.count > 0 else { return }
        let h = tapsPerPhase - 1
        if frameWork.count < h + input.count { frameWork += [Float](repeating: 0, count: h + input.count - frameWork.count) }
        frameWork.withUnsafeMutableBufferPointer { wb in
            let w = wb.baseAddress!
            (w + h).update(from: src, count: input.count)
            if factor == 1 {
                for i in 0..<input.count { out[i] = abs(src[i]) }
            } else {
                _ = kernel(base: w + h, count: input.count, framePeaks: out.baseAddress!)
            }
            w.update(from: w + input.count, count: h)
        }
    }

    /// Interpolates outputs for input positions base[0..<count] (base[-history...] is valid past),
    /// returning the largest |value| over branches ≥ 1, or with `framePeaks` also branch 0 and
    /// storing each frame's largest. Lanes and the scalar tail use identical arithmetic order, so
    /// a value never depends on where a call or a chunk begins.
    ///
    /// The branches come in mirror images (see `Folded`), so each tap pair is read once: with
    /// u_k = x[n−k] + x[n−(t−1)+k] and v_k = x[n−k] − x[n−(t−1)+k] for k < t/2, the middle branch
    /// is Σ mid_k·u_k, and at 4× branches 1 and 3 come as their half sum Σ sum_k·u_k and half
    /// difference Σ diff_k·v_k, whose larger magnitude is |half sum| + |half difference|. That is
    /// 3·t/2 products where the plain form takes 3·t, and the three sums run side by side.
    package func kernel(base: UnsafePointer<Float>, count: Int, framePeaks: UnsafeMutablePointer<Float>?) -> Float {
        typealias V = SIMD8<Float>
        let width = V.scalarCount
        let last = tapsPerPhase - 1, half = Folded.half, delay = latency
        let paired = factor == 4
        var best: Float = 0
        var n = 0
        if usesAVX2 && tapsPerPhase == 2 * Folded.half {
            // The vector loop below on AVX2 (same operations, same order); the tail stays here.
            (best, n) = foldedScalars.withUnsafeBufferPointer {
                VectorKernels.truePeakAVX2(base: base, count: count, coefficients: $0.baseAddress!,
                                           paired: paired, delay: delay, framePeaks: framePeaks)
            }
        }
        folded.withUnsafeBufferPointer { fb in
            let midC = fb.baseAddress!, sumC = midC + half, diffC = sumC + half
            @inline(__always) func load(_ i: Int) -> V { UnsafeRawPointer(base + i).loadUnaligned(as: V.self) }
            /// |v|: the sign bit cleared.
            @inline(__always) func magnitude(_ v: V) -> V {
                unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: V.self)
            }
            var vbest = V(repeating: 0)
            while n + width <= count {
                // Tap pair 0 starts each sum (no add to zero), then pairs 1 ..< half in order.
                var peak: V
                var a = load(n), b = load(n &- last)
                var u = a + b
                if paired {
                    var v = a - b
                    var mid = midC[0] * u, sum = sumC[0] * u, diff = diffC[0] * v
                    for k in 1..<half {
                        a = load(n &- k); b = load(n &- last &+ k)
                        u = a + b; v = a - b
                        mid += midC[k] * u
                        sum += sumC[k] * u
                        diff += diffC[k] * v
                    }
                    peak = magnitude(mid)
                    let outer = magnitude(sum) + magnitude(diff)
                    peak = peak.replacing(with: outer, where: outer .> peak)
                } else {
                    var mid = midC[0] * u
                    for k in 1..<half { mid += midC[k] * (load(n &- k) + load(n &- last &+ k)) }
                    peak = magnitude(mid)
                }
                if framePeaks != nil {
                    let x = magnitude(load(n &- delay))
                    peak = peak.replacing(with: x, where: x .> peak)
                }
                vbest = vbest.replacing(with: peak, where: peak .> vbest)
                if let fp = framePeaks { UnsafeMutableRawPointer(fp + n).storeBytes(of: peak, as: V.self) }
                n += width
            }
            for l in 0..<width where vbest[l] > best { best = vbest[l] }
            // The same arithmetic, one lane at a time.
            while n < count {
                var peak: Float
                var a = base[n], b = base[n - last]
                var u = a + b
                if paired {
                    var v = a - b
                    var mid = midC[0][0] * u, sum = sumC[0][0] * u, diff = diffC[0][0] * v
                    for k in 1..<half {
                        a = base[n - k]; b = base[n - last + k]
                        u = a + b; v = a - b
                        mid += midC[k][0] * u
                        sum += sumC[k][0] * u
                        diff += diffC[k][0] * v
                    }
                    peak = abs(mid)
                    let outer = abs(sum) + abs(diff)
                    if outer > peak { peak = outer }
                } else {
                    var mid = midC[0][0] * u
                    for k in 1..<half { mid += midC[k][0] * (base[n - k] + base[n - last + k]) }
                    peak = abs(mid)
                }
                if framePeaks != nil, abs(base[n - delay]) > peak { peak = abs(base[n - delay]) }
                if peak > best { best = peak }
                framePeaks?[n] = peak
                n += 1
            }
        }
        return best
    }

    /// Largest |x| over `count` samples.
    package static func absMax(_ p: UnsafePointer<Float>, count: Int) -> Float {
        var v = SIMD8<Float>(repeating: 0)
        var i = 0
        while i + 8 <= count {
            // |x| by clearing the sign bit: for every value that can win the comparison below
            // the same as negating the negative ones (−0 and NaN never win either way).
            let x = unsafeBitCast(UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<UInt32>.self) & 0x7fff_ffff,
                                  to: SIMD8<Float>.self)
            v = v.replacing(with: x, where: x .> v)
            i += 8
        }
        var m: Float = 0
        for l in 0..<8 where v[l] > m { m = v[l] }
        while i < count { let a = abs(p[i]); if a > m { m = a }; i += 1 }
        return m
    }
}

extension TruePeakOversampler {
    /// What `samplePeak` and `truePeak` would be if the audio ended after what was added so far
    /// (a copy of the state is finished; this one keeps running), for a live meter's peaks so far.
    public func peaksIfEnded(sampleRate: Int) -> (sample: Float, truePeak: Float) {
        let c = TruePeakOversampler(sampleRate: sampleRate, oversampling: factor > 1)
        c.work = work
        c.filled = filled
        c.previousChunkMax = previousChunkMax
        c.interpolatedMax = interpolatedMax
        c.samplePeak = samplePeak
        c.finished = finished
        c.usesAVX2 = usesAVX2
        c.finish()
        return (c.samplePeak, c.truePeak)
    }
}
