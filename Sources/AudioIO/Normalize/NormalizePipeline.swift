import AudioSignal
import Foundation

/// Streams source → gain → fades → limiter → (dither) → sink in blocks. It measures nothing
/// itself: `onOutputBlock` sees the exact samples written, for the caller's meter.
public enum NormalizePipeline {
    /// A loudness meter as two closures, so the pipeline needs no meter type.
    public struct LoudnessProbe {
        public var add: (AudioBlock) -> Void
        public var integrated: () -> Double?
        public init(add: @escaping (AudioBlock) -> Void, integrated: @escaping () -> Double?) {
            self.add = add
            self.integrated = integrated
        }
    }

    /// Things a plan and a source can disagree on.
    public enum Failure: Error, Equatable {
        /// A fade-out needs the stream's length and neither the plan nor the source gives it.
        case unknownLength
        /// The source has a different channel count from the one the sink was made for.
        case channelMismatch
    }

    /// Where a pass that may turn out to be the written one goes: a sink, and the hook that meters
    /// what reaches it. `runCompensated(_:targetLUFS:source:makeOutput:...)` makes one for each
    /// such pass and abandons the sink of a pass that missed the target.
    public struct Output {
        public var sink: AudioSink
        /// Sees the exact samples written.
        public var onOutputBlock: ((AudioBlock) -> Void)?
        /// The integrated loudness of what `onOutputBlock` saw, when its meter K-weights like the
        /// measuring one: with no dither the written samples are the measured ones, so this number
        /// stands in for a second meter.
        public var integrated: (() -> Double?)?

        public init(sink: AudioSink, onOutputBlock: ((AudioBlock) -> Void)? = nil, integrated: (() -> Double?)? = nil) {
            self.sink = sink
            self.onOutputBlock = onOutputBlock
            self.integrated = integrated
        }
    }

    /// One pass from the source's current position to its end. `sink` nil: process without
    /// writing (a measuring pass). Neither commits nor abandons the sink: the caller decides.
    /// `decodeAhead`: decode on a thread of its own (ReadAhead) while this one processes, for a
    /// caller with a core to spare; the samples are the same bits either way.
    public static func run(_ plan: NormalizePlan, source: AudioSource, sink: AudioSink?, decodeAhead: Bool = false,
                           onOutputBlock: ((AudioBlock) -> Void)? = nil) throws -> NormalizeReport {
        try runPass(plan, source: source, sink: sink, decodeAhead: decodeAhead, beforeQuantise: nil, onOutputBlock: onOutputBlock)
    }

    /// `run`, with a second hook on the samples before they are quantised (what a measuring pass,
    /// which doesn't dither, would have seen).
    package static func runPass(_ plan: NormalizePlan, source: AudioSource, sink: AudioSink?, decodeAhead: Bool,
                        beforeQuantise: ((AudioBlock) -> Void)?,
                        onOutputBlock: ((AudioBlock) -> Void)?,
                        afterFades: ((AudioBlock) -> Void)? = nil) throws -> NormalizeReport {
        let format = source.format
        let channels = format.channelCount
        let needsLength = plan.fadeOutFrames > 0
        let total = plan.totalFrames ?? format.frameCount
        if needsLength && total == nil { throw Failure.unknownLength }
        var fades = NormalizeFades(fadeInFrames: plan.fadeInFrames, fadeOutFrames: plan.fadeOutFrames,
                                   totalFrames: total ?? Int.max, curve: plan.fadeCurve)
        var timing = plan.limiterTiming
        timing.ceilingDBTP = plan.ceilingDBTP
        let limiter = plan.limit ? TruePeakLimiter(settings: timing, sampleRate: format.sampleRate,
                                                   channelCount: channels) : nil
        var quantizer = plan.ditherBitDepth.map {
            TPDFDitherQuantizer(bitDepth: $0, channelCount: channels, dither: true, seed: plan.ditherSeed)
        }
        let gain = Float(pow(10, plan.gainDB / 20))
        let blockFrames = max(1, plan.blockFrames)
        var block = AudioBlock(channelCount: channels, capacity: blockFrames)
        var framesRead = 0, framesWritten = 0

        func emit(_ out: inout AudioBlock) throws {
            guard out.frames > 0 else { return }
            beforeQuantise?(out)
            quantizer?.process(&out)
            if let sink { try sink.write(out) }
            onOutputBlock?(out)
            framesWritten += out.frames
        }
        /// Gain (into `block`, from the decoded samples), fades, limiter, then out, in blocks of
        /// `blockFrames`.
        func process(_ decoded: AudioBlock) throws {
            if decoded.channels.count != channels { throw Failure.channelMismatch }
            var start = 0
            while start < decoded.frames {
                let n = min(blockFrames, decoded.frames - start)
                framesRead += n
                copy(decoded, from: start, count: n, scaledBy: gain, into: &block)
                if !fades.isIdentity { fades.apply(to: &block) }
                afterFades?(block)
                limiter?.process(&block)
                try emit(&block)
                start += n
            }
        }

        if decodeAhead {
            // Every stage is a state machine sequential in time: decoding on a thread of its own
            // changes no sample.
            try ReadAhead.forEachBlock(source) { try process($0) }
        } else {
            var decoded = AudioBlock(channelCount: channels, capacity: blockFrames)
            while true {
                let n = try source.read(into: &decoded, maxFrames: blockFrames)
                if n == 0 { break }
                try process(decoded)
            }
        }
        if let limiter {
            limiter.flush(into: &block)
            try emit(&block)
        }
        return NormalizeReport(gainDB: plan.gainDB, compensationDB: 0,
                               framesLimited: limiter?.stats.framesLimited ?? 0,
                               maxReductionDB: limiter?.stats.maxReductionDB ?? 0,
                               passes: 1, clampedSamples: quantizer?.clampedSamples ?? 0,
                               framesRead: framesRead, framesWritten: framesWritten, measuredLUFS: nil)
    }

    /// Normalises so the integrated loudness lands on `targetLUFS` despite limiting: measuring
    /// passes (nothing written) run the plan and meter the output, each adding the shortfall to
    /// the gain, until it is within `toleranceLU` or only the written pass is left of `maxPasses`;
    /// then the written pass (also metered when `meterWrittenPass`, so the report holds the
    /// loudness actually written). The source must seek to frame 0 between passes.
    public static func runCompensated(_ plan: NormalizePlan, targetLUFS: Double,
                                      source: AudioSource, sink: AudioSink,
                                      makeMeter: () -> LoudnessProbe,
                                      toleranceLU: Double = 0.05, maxPasses: Int = 3,
                                      maxCompensationDB: Double = 6, meterWrittenPass: Bool = true,
                                      onOutputBlock: ((AudioBlock) -> Void)? = nil) throws -> NormalizeReport {
        let settled = try settle(plan, targetLUFS: targetLUFS, source: source, makeMeter: makeMeter,
                                 toleranceLU: toleranceLU, maxPasses: maxPasses, maxCompensationDB: maxCompensationDB)
        try source.seek(toFrame: 0)
        let finalMeter = meterWrittenPass ? makeMeter() : nil
        let hook: ((AudioBlock) -> Void)?
        if let finalMeter {
            hook = { block in finalMeter.add(block); onOutputBlock?(block) }
        } else {
            hook = onOutputBlock
        }
        var report = try run(settled.plan, source: source, sink: sink, onOutputBlock: hook)
        report.passes = settled.passes + 1
        report.compensationDB = settled.plan.gainDB - plan.gainDB
        report.measuredLUFS = finalMeter?.integrated() ?? settled.measuredLUFS
        return report
    }

    /// The same search for the gain as `runCompensated(_:targetLUFS:source:sink:...)`, and the
    /// same written samples, in fewer passes: a pass likely to be the last measuring one (the
    /// first when `firstPassMayLand`, or one after a small step) is written as it runs, into an output from `makeOutput`,
    /// and kept when it lands, so it needn't run again; one that misses is abandoned. The
    /// returned output's sink is neither committed nor abandoned: the caller decides.
    public static func runCompensated(_ plan: NormalizePlan, targetLUFS: Double, source: AudioSource,
                                      makeOutput: () throws -> Output, makeMeter: () -> LoudnessProbe,
                                      toleranceLU: Double = 0.05, maxPasses: Int = 3,
                                      maxCompensationDB: Double = 6, firstPassMayLand: Bool = true,
                                      decodeAhead: Bool = false) throws -> (report: NormalizeReport, output: Output) {
        var search = CompensationSearch(plan: plan, targetLUFS: targetLUFS, toleranceLU: toleranceLU,
                                        maxPasses: maxPasses, maxCompensationDB: maxCompensationDB,
                                        firstPassMayLand: firstPassMayLand)
        var settled = false
        while true {
            try source.seek(toFrame: 0)
            let written = settled || !search.mayMeasure
            guard written || search.worthWriting else {
                // A measuring pass: nothing written, nothing quantised.
                let meter = makeMeter()
                var measuring = search.current
                measuring.ditherBitDepth = nil
                _ = try runPass(measuring, source: source, sink: nil, decodeAhead: decodeAhead, beforeQuantise: nil, onOutputBlock: meter.add)
                settled = search.record(meter.integrated())
                continue
            }
            let output = try makeOutput()
            // The measuring meter, unless the output's own gives the same number.
            let sameSamples = search.current.ditherBitDepth == nil && output.integrated != nil
            let meter = written || sameSamples ? nil : makeMeter()
            var report: NormalizeReport
            do {
                report = try runPass(search.current, source: source, sink: output.sink, decodeAhead: decodeAhead,
                                     beforeQuantise: meter?.add, onOutputBlock: output.onOutputBlock)
            } catch {
                output.sink.abandon()
                throw error
            }
            var landed = written
            if !written {
                landed = search.record(meter.map { $0.integrated() } ?? output.integrated!())
            }
            if landed {
                report.passes = search.passes + (written ? 1 : 0)
                report.compensationDB = search.current.gainDB - plan.gainDB
                report.measuredLUFS = search.measured
                return (report, output)
            }
            output.sink.abandon()
        }
    }

    /// The measuring passes of `runCompensated` on their own: the plan whose gain makes up for
    /// what limiting and fades take, the passes it took, and the loudness of the last one. For a
    /// written pass that runs elsewhere (an encoder fed through a pipe, which must not wait).
    public static func settle(_ plan: NormalizePlan, targetLUFS: Double, source: AudioSource,
                              makeMeter: () -> LoudnessProbe, toleranceLU: Double = 0.05, maxPasses: Int = 3,
                              maxCompensationDB: Double = 6) throws -> (plan: NormalizePlan, passes: Int, measuredLUFS: Double?) {
        var search = CompensationSearch(plan: plan, targetLUFS: targetLUFS, toleranceLU: toleranceLU,
                                        maxPasses: maxPasses, maxCompensationDB: maxCompensationDB)
        while search.mayMeasure {
            try source.seek(toFrame: 0)
            let meter = makeMeter()
            var measuring = search.current
            measuring.ditherBitDepth = nil   // a measuring pass needs no quantising
            _ = try run(measuring, source: source, sink: nil, onOutputBlock: meter.add)
            if search.record(meter.integrated()) { break }
        }
        return (search.current, search.passes, search.measured)
    }

    /// `block` becomes frames `start..<start + n` of `decoded` times `gain` (a plain copy for a
    /// gain of 1): the decoded block stays the decoder's, so nothing is copied twice.
    package static func copy(_ decoded: AudioBlock, from start: Int, count n: Int, scaledBy gain: Float, into block: inout AudioBlock) {
        let gv = SIMD8<Float>(repeating: gain)
        for c in 0..<decoded.channels.count {
            if block.channels[c].count < n { block.channels[c] = [Float](repeating: 0, count: n) }
            decoded.channels[c].withUnsafeBufferPointer { sb in
                block.channels[c].withUnsafeMutableBufferPointer { xb in
                    let s = sb.baseAddress! + start, x = xb.baseAddress!
                    if gain == 1 { x.update(from: s, count: n); return }
                    var i = 0
                    while i + 8 <= n {
                        let v = UnsafeRawPointer(s + i).loadUnaligned(as: SIMD8<Float>.self)
                        UnsafeMutableRawPointer(x + i).storeBytes(of: v * gv, as: SIMD8<Float>.self)
                        i += 8
                    }
                    while i < n { x[i] = s[i] * gain; i += 1 }
                }
            }
        }
        block.frames = n
    }

    /// Multiplies every channel by `gain`.
    package static func applyGain(_ gain: Float, to block: inout AudioBlock) {
        let n = block.frames
        let gv = SIMD8<Float>(repeating: gain)
        for c in 0..<block.channels.count {
            block.channels[c].withUnsafeMutableBufferPointer { xb in
                let x = xb.baseAddress!
                var i = 0
                while i + 8 <= n {
                    let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(x + i).storeBytes(of: v * gv, as: SIMD8<Float>.self)
                    i += 8
                }
                while i < n { x[i] *= gain; i += 1 }
            }
        }
    }
}
