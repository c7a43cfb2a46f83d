import AudioSignal
import Foundation

/// Normalises the audio streams of a media file into a new file of the same container: one
/// decoder per processed audio stream feeds its normaliser chain on its own thread, each into a
/// pipe of one ffmpeg that copies every other stream and re-encodes these. Nothing is staged:
/// memory stays flat whatever the length. The written file is decoded again and measured; when
/// a lossy codec pushed a true peak over the ceiling, the limiter's ceiling is lowered by the
/// excess and the file encoded again.
public enum MediaNormalizer {
    public struct Job {
        /// The audio stream, counted from 0 among the file's audio streams.
        public var ordinal: Int
        public var encoding: MediaAudioEncoding
        public var plan: NormalizePlan
        /// Measuring passes first, so limiting or fades don't take loudness away.
        public var compensate: Bool
        public var targetLUFS: Double
        public var weights: [Double]
        /// The gain planned from the measurement, before any compensation.
        public var plannedGainDB: Double
        /// The source's true peak, dBTP, and integrated loudness, LUFS, when known (to tell what the
        /// encoder was fed, and model a stream without an analysis pass).
        public var sourceTruePeakDBTP: Double?
        public var sourceLUFS: Double?
        public init(ordinal: Int, encoding: MediaAudioEncoding, plan: NormalizePlan, compensate: Bool,
                    targetLUFS: Double, weights: [Double], sourceTruePeakDBTP: Double? = nil, sourceLUFS: Double? = nil) {
            self.ordinal = ordinal; self.encoding = encoding; self.plan = plan
            self.compensate = compensate; self.targetLUFS = targetLUFS; self.weights = weights
            self.plannedGainDB = plan.gainDB; self.sourceTruePeakDBTP = sourceTruePeakDBTP; self.sourceLUFS = sourceLUFS
        }
    }

    public struct StreamResult {
        public var ordinal: Int
        public var report: NormalizeReport
        /// Measured on the written file, decoded again.
        public var measured: LoudnessMeasurement
        /// How far the limiter's ceiling was lowered under the requested one, dB (0: not).
        public var ceilingLoweredDB: Double
        public var passes: Int
        /// The gain planned from the measurement, and what was added to it (for the limiter and
        /// fades, and for the codec), dB.
        public var plannedGainDB: Double = 0
        public var compensationDB: Double = 0
        public var codecCompensationDB: Double = 0
        /// What the trial encode predicted of the codec (lossy streams).
        public var prediction: CodecOvershoot.Prediction?
        /// How the stream landed (CodecLanding.outcome), nil when nothing modelled its limiter.
        public var landing: CodecLanding.Outcome?
        /// Why this stream was encoded again, when it was: "peak" and/or "loudness".
        public var reencodedFor: [String] = []
        /// Each check that sent the file to another encode for this stream: after which encode
        /// (1-based) and why ("peak" and/or "loudness").
        public var corrections: [(afterEncode: Int, reasons: [String])] = []
    }

    public struct Settings {
        public var ceilingDBTP: Double
        public var maxPasses: Int
        public var maxCompensationDB: Double
        /// Encodes at most, the first included, when the codec pushes peaks over the ceiling.
        public var maxEncodes: Int
        /// Which limit gives way where the target and the ceiling can't both hold (`--codec-peak`).
        public var rule: CodecPeakRule
        /// Whether the loudness is steered to the target (false under `--peak reduce`, whose gain
        /// is bound by the peak: there the codec's overshoot comes off the gain).
        public var steersLoudness: Bool
        /// Whether lossy streams get a trial encode first.
        public var predictsCodec: Bool
        public init(ceilingDBTP: Double, maxPasses: Int, maxCompensationDB: Double, maxEncodes: Int = CodecLanding.maxEncodes,
                    steersLoudness: Bool = true, predictsCodec: Bool = true, rule: CodecPeakRule = .hold) {
            self.ceilingDBTP = ceilingDBTP; self.maxPasses = maxPasses; self.rule = rule
            self.maxCompensationDB = maxCompensationDB; self.maxEncodes = maxEncodes
            self.steersLoudness = steersLoudness; self.predictsCodec = predictsCodec
        }
    }

    public static func run(input: String, probe: MediaProbe, delivered: [MediaStream]? = nil, jobs: [Job], muxer: String, destination: String,
                           overwrite: Bool, settings: Settings, opened: MediaDecoderHandOff? = nil) throws -> (streams: [StreamResult], encodes: Int) {
        var jobs = jobs.sorted { $0.ordinal < $1.ordinal }
        if MediaStreamEncoder.applies(encodings: jobs.map(\.encoding), muxer: muxer) {
            return try runEncodingApart(input: input, probe: probe, delivered: delivered, jobs: jobs, muxer: muxer, destination: destination,
                                        overwrite: overwrite, settings: settings, opened: opened)
        }
        let encodings = Dictionary(uniqueKeysWithValues: jobs.map { ($0.ordinal, $0.encoding) })
        // The encoder's ffmpeg doesn't depend on the plans: started now, it opens the input and
        // waits on its pipes while the streams are prepared (abandoned if preparing fails).
        var early: MediaMuxer? = try MediaMuxer(input: input, probe: probe, delivered: delivered, encodings: encodings, muxer: muxer,
                                                destination: destination, overwrite: overwrite)
        // Each stream's analysis pass and codec trials are its own: several streams run at once.
        let sorted = jobs
        let prepared: [Prepared]
        do {
            prepared = try inParallel(jobs.count) { i in try prepare(sorted[i], input: input, probe: probe, settings: settings, opened: opened) }
        } catch { early?.abandon(); throw error }
        jobs = prepared.map(\.job)
        var rounds = Rounds(prepared)
        var encodes = 0
        while true {
            encodes += 1
            let mux = try early ?? MediaMuxer(input: input, probe: probe, delivered: delivered, encodings: encodings, muxer: muxer,
                                              destination: destination, overwrite: overwrite)
            early = nil
            let reports = try encode(input: input, jobs: jobs, prepared: prepared, into: mux, opened: encodes == 1 ? opened : nil)
            if let failure = mux.finishEncoding() {
                throw MediaWriteError.failure(input: input, failure)
            }
            let reviewed: (results: [StreamResult], again: Bool)
            do {
                // The written streams decoded and measured at once, each by its own ffmpeg.
                let written = mux.temporary, encoded = jobs
                let measured = try inParallel(jobs.count) { i in try measureWritten(written, audioStream: encoded[i].ordinal, encoded[i]) }
                reviewed = rounds.review(&jobs, reports: reports, measured: measured, encodes: encodes, settings: settings)
            } catch { mux.abandon(); throw error }
            if reviewed.again { mux.abandon(); continue }
            try mux.commit()
            return (reviewed.results, encodes)
        }
    }

    /// Moves a job's gain and limiter ceiling; the limiter runs once its ceiling is lowered or
    /// the gain raised (under `--peak reduce` it stays as planned).
    package static func apply(_ j: inout Job, gainDB: Double, limiterCeilingDBTP: Double, settings: Settings) {
        if settings.steersLoudness, gainDB > j.plan.gainDB || limiterCeilingDBTP < j.plan.ceilingDBTP { j.plan.limit = true }
        j.plan.gainDB = gainDB
        if j.plan.limit {
            j.plan.ceilingDBTP = limiterCeilingDBTP
            j.plan.limiterTiming.ceilingDBTP = limiterCeilingDBTP
        }
    }

    /// One thread per stream: decoder → normaliser → pipe. The first failure stops ffmpeg, so
    /// the other threads' writes fail at once and every thread ends.
    package static func encode(input: String, jobs: [Job], prepared: [Prepared], into mux: MediaMuxer,
                       opened: MediaDecoderHandOff? = nil) throws -> [NormalizeReport] {
        final class Box: @unchecked Sendable {
            let lock = NSLock()
            var reports: [NormalizeReport?]
            var error: Error?
            init(_ n: Int) { reports = Array(repeating: nil, count: n) }
        }
        let box = Box(jobs.count)
        let group = DispatchGroup()
        nonisolated(unsafe) let muxer = mux
        for (i, j) in jobs.enumerated() {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let sink = muxer.sink(i)
                do {
                    let source = try prepared[i].source(input: input, opened: opened)
                    let r = try NormalizePipeline.run(j.plan, source: source, sink: sink)
                    try sink.commit()
                    box.lock.lock(); box.reports[i] = r; box.lock.unlock()
                } catch {
                    box.lock.lock()
                    let first = box.error == nil
                    if first { box.error = error }
                    box.lock.unlock()
                    if first && !(error is MediaMuxerStopped) { muxer.abandon() }
                    sink.abandon()
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        if let e = box.error {
            if e is MediaMuxerStopped, let failure = mux.finishEncoding() {
                mux.abandon()
                throw MediaWriteError.failure(input: input, failure)
            }
            mux.abandon()
            throw e
        }
        return box.reports.map { $0! }
    }
}
