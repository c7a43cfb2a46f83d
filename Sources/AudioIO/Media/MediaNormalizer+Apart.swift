import AudioSignal
import Foundation

extension MediaNormalizer {
    /// The streams encoded apart (MediaStreamEncoder), then muxed: each stream on a thread of its
    /// own is prepared (analysis pass, codec trial), encoded by its own ffmpeg (started before the
    /// preparing, so it is ready when the samples come) and its encoded file decoded again and
    /// measured, while the other streams still run. Once the last stream is encoded, one ffmpeg
    /// copies the encoded streams and every other stream into the output while that stream is
    /// still measured (its output is dropped if the check wants another encode). A stream that
    /// has no plan to wait for starts encoding at once; on several cores the streams encode at once.
    package static func runEncodingApart(input: String, probe: MediaProbe, delivered: [MediaStream]?, jobs sortedJobs: [Job], muxer: String,
                                 destination: String, overwrite: Bool, settings: Settings,
                                 opened: MediaDecoderHandOff?) throws -> (streams: [StreamResult], encodes: Int) {
        try MediaMuxer.makeFolder(for: destination)
        var jobs = sortedJobs
        var rounds: Rounds? = nil
        var prepared: [Prepared]? = nil
        var encodes = 0
        while true {
            encodes += 1
            let first = encodes == 1, current = jobs, kept = prepared
            let ordinals = jobs.map(\.ordinal)
            // Started by the stream that is encoded last, on its thread.
            let set = EncoderSet(jobs.count) { temporaries in
                try MediaMuxer(input: input, probe: probe, delivered: delivered, encodings: [:],
                               copied: Dictionary(uniqueKeysWithValues: zip(ordinals, temporaries)), muxer: muxer,
                               destination: destination, overwrite: overwrite)
            }
            let done: [(prepared: Prepared?, report: NormalizeReport, measured: LoudnessMeasurement)]
            do {
                done = try inParallel(jobs.count) { i in
                    try encodeApart(current[i], index: i, into: set, prepared: kept?[i], input: input, probe: probe, destination: destination,
                                    settings: settings, opened: first ? opened : nil)
                }
            } catch {
                set.abandonAll()
                throw set.firstError ?? error
            }
            if first {
                prepared = done.map { $0.prepared! }
                jobs = prepared!.map(\.job)
                rounds = Rounds(prepared!)
            }
            let reviewed = rounds!.review(&jobs, reports: done.map(\.report), measured: done.map(\.measured), encodes: encodes, settings: settings)
            if reviewed.again { set.abandonAll(); continue }
            defer { set.abandonAll() }
            guard let mux = set.muxer else { throw MediaWriteError.ffmpegFailed(input: input, reason: "ffmpeg was stopped") }
            if let failure = mux.finishEncoding() {
                throw MediaWriteError.failure(input: input, failure)
            }
            try mux.commit()
            return (reviewed.results, encodes)
        }
    }

    /// One stream of `runEncodingApart`: prepared (on the first encode), encoded into its own file
    /// and measured there. On failure every other stream's encoder is stopped at once.
    /// `prepared`: the stream as the first encode prepared it (nil on the first, which prepares it).
    package static func encodeApart(_ job: Job, index i: Int, into set: EncoderSet, prepared kept: Prepared?, input: String, probe: MediaProbe,
                            destination: String, settings: Settings,
                            opened: MediaDecoderHandOff?) throws -> (prepared: Prepared?, report: NormalizeReport, measured: LoudnessMeasurement) {
        let encoder = try set.start(i) { try MediaStreamEncoder(input: input, destination: destination, ordinal: job.ordinal, encoding: job.encoding) }
        do {
            var j = job
            var prepared: Prepared? = nil
            if kept == nil {
                prepared = try prepare(job, input: input, probe: probe, settings: settings, opened: opened)
                j = prepared!.job
                // Another stream failed while this one was prepared.
                if set.stopping { throw MediaMuxerStopped() }
            }
            let source = try (kept ?? prepared!).source(input: input, opened: opened)
            let sink = encoder.sink()
            let report: NormalizeReport
            do {
                report = try NormalizePipeline.run(j.plan, source: source, sink: sink)
                try sink.commit()
            } catch { sink.abandon(); throw error }
            if let failure = encoder.finish() { throw MediaWriteError.failure(input: input, failure) }
            try set.encoded(i)
            let measured = try measureWritten(encoder.temporary, audioStream: 0, j)
            return (prepared, report, measured)
        } catch {
            var e = error
            // The encoder stopped by itself: its own words say why.
            if e is MediaMuxerStopped, !set.stopping, let failure = encoder.finish() {
                e = MediaWriteError.failure(input: input, failure)
            }
            set.fail(e)
            throw e
        }
    }

    /// The encoders of one encode of `runEncodingApart`, one slot per stream, and the muxer the
    /// last one to finish starts; the first failure stops them all (a stream's thread blocked
    /// writing to its encoder then returns at once).
    package final class EncoderSet: @unchecked Sendable {
        private let lock = NSLock()
        package private(set) var encoders: [MediaStreamEncoder?]
        private var failure: Error?
        private var stopped = false
        private var finished = 0
        private let startMuxer: ([String]) throws -> MediaMuxer
        private var mux: MediaMuxer?
        package init(_ n: Int, muxer: @escaping ([String]) throws -> MediaMuxer) {
            encoders = Array(repeating: nil, count: n)
            startMuxer = muxer
        }

        package var muxer: MediaMuxer? { lock.lock(); defer { lock.unlock() }; return mux }

        /// Slot `i`'s file is complete; the last one starts the muxer on the files.
        package func encoded(_ i: Int) throws {
            lock.lock()
            finished += 1
            let last = finished == encoders.count && !stopped
            let files = encoders.map { $0?.temporary ?? "" }
            lock.unlock()
            guard last else { return }
            let m = try startMuxer(files)
            lock.lock()
            let late = stopped
            if !late { mux = m }
            lock.unlock()
            if late { m.abandon() }
        }

        package var stopping: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
        /// The first failure's error (the others are only their encoders being stopped).
        package var firstError: Error? { lock.lock(); defer { lock.unlock() }; return failure }

        /// Starts slot `i`'s encoder; refused (the encoder ended) once another stream failed.
        package func start(_ i: Int, _ make: () throws -> MediaStreamEncoder) throws -> MediaStreamEncoder {
            let e = try make()
            lock.lock()
            encoders[i] = e
            let late = stopped
            lock.unlock()
            if late { e.kill(); throw MediaMuxerStopped() }
            return e
        }

        package func fail(_ error: Error) {
            lock.lock()
            let first = !stopped
            if first { stopped = true; failure = error }
            let all = encoders
            lock.unlock()
            if first { for e in all { e?.kill() } }
        }

        /// Ends the muxer (when still running) and every encoder, and removes their files.
        package func abandonAll() {
            lock.lock()
            let all = encoders, m = mux
            mux = nil
            lock.unlock()
            m?.abandon()
            for e in all { e?.abandon() }
        }
    }
}
