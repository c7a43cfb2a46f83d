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
        public init(ordinal: Int, encoding: MediaAudioEncoding, plan: NormalizePlan, compensate: Bool,
                    targetLUFS: Double, weights: [Double]) {
            self.ordinal = ordinal; self.encoding = encoding; self.plan = plan
            self.compensate = compensate; self.targetLUFS = targetLUFS; self.weights = weights
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
    }

    public struct Settings {
        public var ceilingDBTP: Double
        public var maxPasses: Int
        public var maxCompensationDB: Double
        /// Encodes at most, the first included, when the codec pushes peaks over the ceiling.
        public var maxEncodes: Int
        public init(ceilingDBTP: Double, maxPasses: Int, maxCompensationDB: Double, maxEncodes: Int = 3) {
            self.ceilingDBTP = ceilingDBTP; self.maxPasses = maxPasses
            self.maxCompensationDB = maxCompensationDB; self.maxEncodes = maxEncodes
        }
    }

    public static func run(input: String, probe: MediaProbe, delivered: [MediaStream]? = nil, jobs: [Job], muxer: String, destination: String,
                           overwrite: Bool, settings: Settings) throws -> (streams: [StreamResult], encodes: Int) {
        var jobs = jobs.sorted { $0.ordinal < $1.ordinal }
        var passes = [Int](repeating: 0, count: jobs.count)
        var lowered = [Double](repeating: 0, count: jobs.count)
        // The compensation is predicted by one analysis pass before the encoder starts, so it
        // never waits on a pipe.
        for (i, j) in jobs.enumerated() where j.compensate {
            let source = try FFmpegSource(path: input, audioStream: j.ordinal)
            jobs[i].plan = try NormalizePipeline.predict(j.plan, targetLUFS: j.targetLUFS, source: source, weights: j.weights,
                                                         maxCompensationDB: settings.maxCompensationDB).plan
            passes[i] = 1
        }
        let encodings = Dictionary(uniqueKeysWithValues: jobs.map { ($0.ordinal, $0.encoding) })
        var encodes = 0
        while true {
            encodes += 1
            let mux = try MediaMuxer(input: input, probe: probe, delivered: delivered, encodings: encodings, muxer: muxer,
                                     destination: destination, overwrite: overwrite)
            let reports = try encode(input: input, jobs: jobs, into: mux)
            if let failure = mux.finishEncoding() {
                throw MediaWriteError.ffmpegFailed(input: input, reason: failure)
            }
            var results: [StreamResult] = []
            var over = false
            do {
                for (i, j) in jobs.enumerated() {
                    let decoded = try FFmpegSource(path: mux.temporary, audioStream: j.ordinal)
                    let meter = LoudnessMeter(sampleRate: decoded.format.sampleRate,
                                              weights: decoded.format.channelCount == j.weights.count ? j.weights
                                                  : ChannelLayout.standard(channelCount: decoded.format.channelCount).weights)
                    try Decoder.forEachBlock(decoded) { meter.add($0) }
                    let m = meter.finish()
                    results.append(StreamResult(ordinal: j.ordinal, report: reports[i], measured: m,
                                                ceilingLoweredDB: lowered[i], passes: passes[i] + encodes))
                    if j.encoding.isLossy, j.plan.limit || j.plan.gainDB > -60, let tp = m.truePeakDBTP,
                       (tp * 100).rounded() / 100 > settings.ceilingDBTP, encodes < settings.maxEncodes {
                        // The codec's overshoot, plus a little, comes off the limiter's ceiling.
                        let excess = tp - settings.ceilingDBTP + 0.1
                        jobs[i].plan.ceilingDBTP -= excess
                        jobs[i].plan.limiterTiming.ceilingDBTP = jobs[i].plan.ceilingDBTP
                        jobs[i].plan.limit = true
                        lowered[i] += excess
                        over = true
                    }
                }
            } catch { mux.abandon(); throw error }
            if over { mux.abandon(); continue }
            try mux.commit()
            return (results, encodes)
        }
    }

    /// One thread per stream: decoder → normaliser → pipe. The first failure stops ffmpeg, so
    /// the other threads' writes fail at once and every thread ends.
    static func encode(input: String, jobs: [Job], into mux: MediaMuxer) throws -> [NormalizeReport] {
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
                    let source = try FFmpegSource(path: input, audioStream: j.ordinal)
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
                throw MediaWriteError.ffmpegFailed(input: input, reason: failure)
            }
            mux.abandon()
            throw e
        }
        return box.reports.map { $0! }
    }
}
