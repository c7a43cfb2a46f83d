import AudioSignal
import Foundation

/// One audio stream encoded by an ffmpeg of its own, fed raw float samples on its pipe 3, into a
/// temporary audio-only file next to the destination, which the muxer then copies packet for
/// packet. Each stream so has its own encoder: on several cores the streams are encoded at once
/// (one ffmpeg encodes its streams one after the other), a stream starts encoding as soon as its
/// own plan is ready, and it is decoded again and measured while the others still encode.
/// The temporary file is an MP4 (seekable, so it keeps the codec's priming and the last packet's
/// length exactly as an encode straight into the output would: the muxed file is the same bytes).
/// ffmpeg is ended and the file removed on every path (`abandon`, release, a signal).
package final class MediaStreamEncoder: @unchecked Sendable {
    package let temporary: String
    package let channels: Int
    private let lock = NSLock()
    private var child: ChildProcess?
    private var kept = false

    /// Whether a file written by `muxer` takes its streams encoded this way: AAC (its encoder's
    /// priming and padding travel in an MP4 exactly) into an MP4, MOV or M4A.
    package static func applies(encodings: [MediaAudioEncoding], muxer: String) -> Bool {
        !encodings.isEmpty && ["mp4", "mov", "ipod"].contains(muxer) && encodings.allSatisfy { $0.encoder == "aac" }
    }

    /// The ffmpeg arguments (exposed for tests).
    package static func arguments(encoding e: MediaAudioEncoding, output: String) -> [String] {
        var args = ["-nostdin", "-v", "error", "-y", "-f", "f32le", "-ar", String(e.sampleRate), "-ac", String(e.channels)]
        if let l = e.channelLayout { args += ["-ch_layout", l] }
        args += ["-i", "pipe:3", "-map", "0:a:0", "-c:a", e.encoder]
        args += e.rateArguments("a")
        if let f = e.sampleFormat { args += ["-sample_fmt", f] }
        return args + ["-f", "mp4", "file:" + output]
    }

    /// Starts the encoder (it waits on its pipe until fed). `destination`: the output file, whose
    /// folder (already made by the caller) holds the temporary file.
    package init(input: String, destination: String, ordinal: Int, encoding e: MediaAudioEncoding) throws {
        let url = URL(fileURLWithPath: destination)
        AtomicOutput.removeAbandonedPartials(in: url.deletingLastPathComponent().path)
        temporary = url.deletingLastPathComponent().path + "/." + url.lastPathComponent
            + ".audio\(ordinal)" + TemporaryFiles.nameSuffix() + ".m4a"
        channels = e.channels
        guard let ffmpeg = FFmpegSource.ffmpegPath else { throw MediaWriteError.noFFmpeg(input: input) }
        TemporaryFiles.register(temporary)
        do {
            child = try ChildProcess(ffmpeg, Self.arguments(encoding: e, output: temporary), stdin: .null, stdout: .null, extraInputs: 1)
        } catch {
            TemporaryFiles.unregister(temporary)
            throw ResourceFailure(input, program: "ffmpeg", spawning: error)
        }
    }

    deinit { abandon() }

    private func current() -> ChildProcess? { lock.lock(); defer { lock.unlock() }; return child }
    private func take() -> ChildProcess? { lock.lock(); defer { lock.unlock() }; let c = child; child = nil; return c }

    /// The sink feeding the encoder (closing its pipe on commit), written from one thread.
    package func sink() -> AudioSink { Sink(encoder: self) }

    /// Waits for ffmpeg to finish (its pipe must be closed). Returns ffmpeg's first message when it
    /// failed (the file is then removed), nil when the file is complete.
    package func finish() -> ChildProcess.Termination? {
        guard let c = take() else { return .init(status: -1, stderr: "ffmpeg was stopped") }
        let t = c.wait()
        guard t.status == 0 else {
            remove()
            return t
        }
        return nil
    }

    /// Kills ffmpeg (when running) and removes the file.
    package func abandon() {
        take()?.end()
        remove()
    }

    /// Stops ffmpeg without closing its pipe, so a thread blocked writing to it returns at once
    /// (the file is removed by `abandon`).
    package func kill() {
        if let c = current() { _ = Glibc.kill(c.pid, SIGKILL) }
    }

    /// Removes the file (once it was copied into the output, or given up).
    package func remove() {
        lock.lock()
        let done = kept
        kept = true
        lock.unlock()
        guard !done else { return }
        unlink(temporary)
        TemporaryFiles.unregister(temporary)
    }

    fileprivate func write(_ bytes: UnsafeRawBufferPointer) -> Bool { current()?.write(bytes, toExtra: 0) ?? false }
    fileprivate func close() { current()?.closeExtra(0) }

    /// Interleaves blocks into raw float samples on the encoder's pipe.
    package final class Sink: AudioSink {
        package let encoder: MediaStreamEncoder
        private var buffer: [Float] = []
        package init(encoder: MediaStreamEncoder) { self.encoder = encoder }

        package func write(_ block: AudioBlock) throws {
            let n = block.frames, ch = encoder.channels
            guard block.channels.count == ch else { throw NormalizePipeline.Failure.channelMismatch }
            block.interleave(channels: ch, into: &buffer)
            let ok = buffer.withUnsafeBytes { encoder.write(UnsafeRawBufferPointer(rebasing: $0[0 ..< n * ch * 4])) }
            if !ok { throw MediaMuxerStopped() }
        }
        package func commit() throws { encoder.close() }
        package func abandon() { encoder.close() }
    }
}
