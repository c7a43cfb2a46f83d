import Foundation

/// Loudness over time, one entry per 100 ms hop: what a meter collects when created with
/// `collectsTimeline`, and what the report pictures draw.
///
/// Entry `i` covers [i·hop, (i+1)·hop) frames. `momentaryLUFS[i]` and `shortTermLUFS[i]` are the
/// 400 ms and 3 s windows ending at (i+1)·hop (the gating and short-term blocks of BS.1770-4 and
/// Tech 3342), nil while the window is not yet full, under the −70 LUFS absolute gate, or for a
/// last hop cut short by the end of the file. `truePeakDBTP[i]` is the largest true peak of any
/// channel inside the hop, nil for digital silence (or, from a meter made with
/// `timelinePeaksSoFar`, the largest up to the end of the hop).
public struct LoudnessTimeline: Equatable, Sendable {
    /// Sample rate of the measured audio, Hz.
    public var sampleRate: Int
    /// Frames per entry (100 ms, rounded as the meter's hop).
    public var hopFrames: Int
    /// Frames measured.
    public var frames: Int
    /// Momentary (400 ms) loudness at each entry, LUFS.
    public var momentaryLUFS: [Double?]
    /// Short-term (3 s) loudness at each entry, LUFS.
    public var shortTermLUFS: [Double?]
    /// Largest true peak of any channel inside each entry's hop, dBTP.
    public var truePeakDBTP: [Double?]
    /// The 10th and 95th percentiles of the gated short-term loudness, whose difference is the
    /// loudness range (EBU Tech 3342); nil where the range is undefined.
    public var rangeLowLUFS: Double?
    /// The 95th percentile (see `rangeLowLUFS`).
    public var rangeHighLUFS: Double?

    /// A timeline from its values (a meter made with `collectsTimeline` makes them).
    public init(sampleRate: Int, hopFrames: Int, frames: Int, momentaryLUFS: [Double?], shortTermLUFS: [Double?],
                truePeakDBTP: [Double?], rangeLowLUFS: Double? = nil, rangeHighLUFS: Double? = nil) {
        self.sampleRate = sampleRate; self.hopFrames = hopFrames; self.frames = frames
        self.momentaryLUFS = momentaryLUFS; self.shortTermLUFS = shortTermLUFS; self.truePeakDBTP = truePeakDBTP
        self.rangeLowLUFS = rangeLowLUFS; self.rangeHighLUFS = rangeHighLUFS
    }

    /// Entries per second.
    public var rateHz: Double { Double(sampleRate) / Double(hopFrames) }
    /// The number of entries.
    public var count: Int { truePeakDBTP.count }
    /// Duration in seconds.
    public var seconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
    /// Where entry `i`'s loudness windows end, seconds (never past the end of the file).
    public func endSeconds(_ i: Int) -> Double {
        Double(min((i + 1) * hopFrames, frames)) / Double(sampleRate)
    }

    /// The Tech 3342 percentiles over short-term block energies: blocks above −70 LUFS, then above
    /// their energy mean − 20 LU; nearest rank at round((n − 1)·p) as in LoudnessMeter.loudnessRange.
    package static func rangeBounds(_ blocks: [Double]) -> (low: Double, high: Double)? {
        let absolute = LoudnessMeter.energy(ofLUFS: LoudnessMeter.absoluteGateLUFS)
        var sum = 0.0, count = 0
        for z in blocks where z > absolute { sum += z; count += 1 }
        guard count > 0 else { return nil }
        let relative = sum / Double(count) * pow(10, LoudnessMeter.rangeRelativeGateLU / 10)
        let kept = blocks.filter { $0 > absolute && $0 > relative }.sorted()
        guard !kept.isEmpty else { return nil }
        func percentile(_ p: Double) -> Double {
            let i = Int((Double(kept.count - 1) * p).rounded(.toNearestOrAwayFromZero))
            return -0.691 + 10 * log10(kept[i])
        }
        return (percentile(0.10), percentile(0.95))
    }
}

/// What a meter fills while it runs when asked for a timeline: the window energies at every hop
/// (handed over by the meter) and per-hop true peaks from its own oversamplers, which evaluate
/// every interpolated value (the meter's own peak tracking skips what cannot raise the maximum).
package final class LoudnessTimelineCollector {
    package let sampleRate: Int
    package let hop: Int
    private var momentary: [Double] = []
    private var shortTerm: [Double] = []
    private var peaks: [Float] = []
    private let oversamplers: [TruePeakOversampler]
    private let latency: Int
    private var scratch: [Float] = []
    /// Oversampler outputs produced so far (the same count for every channel).
    private var produced = 0
    /// Whether only the running maximum of the peaks is wanted (`timelinePeaksSoFar`): values
    /// that can't raise it are not interpolated (RunningPeaks, below).
    private let soFar: Bool
    /// For `soFar`: each channel's last `tapsPerPhase − 1` samples, then the block being added.
    private var works: [[Float]] = []
    /// For `soFar`: each channel's largest value found so far, at instants up to the piece being
    /// handled; after `finish`, its true peak (every value that could raise it evaluated).
    package private(set) var channelPeaks: [Float] = []
    /// For `soFar`: each channel's largest |sample| so far; after `finish`, its sample peak.
    package private(set) var channelSamplePeaks: [Float] = []

    package init(sampleRate: Int, hop: Int, channelCount: Int, truePeak: Bool, peaksSoFar: Bool = false) {
        self.sampleRate = sampleRate
        self.hop = hop
        oversamplers = (0..<channelCount).map { _ in TruePeakOversampler(sampleRate: sampleRate, oversampling: truePeak) }
        latency = oversamplers.first?.latency ?? 0
        soFar = peaksSoFar
        if peaksSoFar {
            let history = (oversamplers.first?.tapsPerPhase ?? 1) - 1
            works = (0..<channelCount).map { _ in [Float](repeating: 0, count: history) }
            channelPeaks = [Float](repeating: 0, count: channelCount)
            channelSamplePeaks = channelPeaks
        }
    }

    /// A completed hop: mean-square energies of the 400 ms and 3 s windows ending here (−1 when
    /// the window is not full yet).
    package func hopCompleted(momentary m: Double, shortTerm s: Double) {
        momentary.append(m)
        shortTerm.append(s)
    }

    package func add(_ block: AudioBlock) {
        addPeaks(block.channels, frames: block.frames)
    }

    private func addPeaks(_ channels: [[Float]], frames: Int) {
        guard frames > 0 else { return }
        if soFar { addPeaksSoFar(channels, frames: frames); return }
        if scratch.count < frames { scratch = [Float](repeating: 0, count: frames) }
        let start = produced
        let needed = max(0, start + frames - 1 - latency) / hop + 1
        if peaks.count < needed { peaks += [Float](repeating: 0, count: needed - peaks.count) }
        for (c, o) in oversamplers.enumerated() {
            channels[c].withUnsafeBufferPointer { input in
                scratch.withUnsafeMutableBufferPointer { out in
                    o.interSamplePeaks(UnsafeBufferPointer(rebasing: input[0..<frames]), into: out)
                    // Output n is the instant (start + n − latency); instants before 0 (the
                    // filter's ringing ahead of the first sample) count in the first hop.
                    peaks.withUnsafeMutableBufferPointer { pk in
                        var n = 0
                        while n < frames {
                            let t = max(0, start + n - latency)
                            let h = t / hop
                            let end = min(frames, n + (h + 1) * hop - t)
                            var m = pk[h]
                            for k in n..<end where out[k] > m { m = out[k] }
                            pk[h] = m
                            n = end
                        }
                    }
                }
            }
        }
        produced += frames
    }

    /// `addPeaks` when only the running maximum is wanted. The outputs are taken hop by hop, in
    /// time order, each channel's in pieces of at most 64 frames. A piece whose values can't pass the largest its channel has reached so far (every value is a
    /// sum of taps over the piece's samples and the `tapsPerPhase − 1` before, so at most
    /// `gainBound` times their largest |sample|) is not interpolated: it can't raise the maximum
    /// at the end of its hop or after. A hop's peak is then below its true one where skipped, but
    /// the maximum up to any hop is exactly the one evaluating every value gives (`finish` makes
    /// the series that), and so is each channel's maximum (`channelPeaks`, its true peak).
    private func addPeaksSoFar(_ channels: [[Float]], frames: Int) {
        let h = (oversamplers.first?.tapsPerPhase ?? 1) - 1
        for c in works.indices {
            if works[c].count < h + frames { works[c] += [Float](repeating: 0, count: h + frames - works[c].count) }
            channels[c].withUnsafeBufferPointer { src in
                works[c].withUnsafeMutableBufferPointer { w in (w.baseAddress! + h).update(from: src.baseAddress!, count: frames) }
            }
        }
        let start = produced
        let needed = max(0, start + frames - 1 - latency) / hop + 1
        if peaks.count < needed { peaks += [Float](repeating: 0, count: needed - peaks.count) }
        var n = 0
        while n < frames {
            // The outputs of one hop (or of its part in this block), channel by channel.
            let t = max(0, start + n - latency)
            let hopIndex = t / hop
            let end = min(frames, n + (hopIndex + 1) * hop - t)
            for (c, o) in oversamplers.enumerated() {
                works[c].withUnsafeBufferPointer { wb in
                    let w = wb.baseAddress!
                    // Branch 0, every time: the samples themselves, `latency` late (all of them
                    // over the stream and its tail, so also the channel's sample peak). Without
                    // oversampling (192 kHz and up) they are all there is.
                    var m = TruePeakOversampler.absMax(w + h + n - latency, count: end - n)
                    if m > channelSamplePeaks[c] { channelSamplePeaks[c] = m }
                    guard o.factor > 1 else { return record(m, channel: c, hop: hopIndex) }
                    // Pieces of `chunk` outputs that could pass what is reached; a run of them
                    // interpolated in one call.
                    let reached = max(m, channelPeaks[c])
                    var k = n, run = -1
                    while k < end {
                        let e = min(end, k + TruePeakOversampler.chunk)
                        if TruePeakOversampler.absMax(w + k, count: e - k + h) * o.gainBound > reached {
                            if run < 0 { run = k }
                        } else if run >= 0 {
                            m = max(m, o.kernel(base: w + h + run, count: k - run, framePeaks: nil))
                            run = -1
                        }
                        k = e
                    }
                    if run >= 0 { m = max(m, o.kernel(base: w + h + run, count: end - run, framePeaks: nil)) }
                    record(m, channel: c, hop: hopIndex)
                }
            }
            n = end
        }
        for c in works.indices {
            works[c].withUnsafeMutableBufferPointer { w in w.baseAddress!.update(from: w.baseAddress! + frames, count: h) }
        }
        produced += frames
    }

    /// The largest value found among channel `c`'s outputs in hop `hop` (`soFar`).
    private func record(_ m: Float, channel c: Int, hop: Int) {
        if m > peaks[hop] { peaks[hop] = m }
        if m > channelPeaks[c] { channelPeaks[c] = m }
    }

    package func finish(frames: Int) -> LoudnessTimeline {
        // The filter tail: the last `latency` instants come out only after as many zeros.
        if latency > 0 {
            let zeros = [[Float]](repeating: [Float](repeating: 0, count: latency), count: oversamplers.count)
            addPeaks(zeros, frames: latency)
        }
        let count = (frames + hop - 1) / hop
        if peaks.count > count { peaks.removeLast(peaks.count - count) }
        if soFar { for i in peaks.indices.dropFirst() where peaks[i - 1] > peaks[i] { peaks[i] = peaks[i - 1] } }
        func lufs(_ e: Double) -> Double? {
            guard e >= 0, let l = LoudnessMeter.lufs(e), l > LoudnessMeter.absoluteGateLUFS else { return nil }
            return l
        }
        func padded(_ a: [Double]) -> [Double?] {
            a.prefix(count).map(lufs) + [Double?](repeating: nil, count: max(0, count - a.count))
        }
        let bounds = LoudnessTimeline.rangeBounds(shortTerm.filter { $0 >= 0 })
        return LoudnessTimeline(sampleRate: sampleRate, hopFrames: hop, frames: frames,
                                momentaryLUFS: padded(momentary), shortTermLUFS: padded(shortTerm),
                                truePeakDBTP: peaks.map { $0 > 0 ? 20 * log10(Double($0)) : nil },
                                rangeLowLUFS: bounds?.low, rangeHighLUFS: bounds?.high)
    }
}
