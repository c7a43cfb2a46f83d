import AudioSignal
import Foundation

/// ffmpeg as encoder and muxer: the input file's streams copied packet for packet, except the
/// audio streams given an encoding, which are read as raw float samples from pipes (one per
/// stream, the child's fds 3, 4, ...) and re-encoded. The output is written under a temporary
/// name next to the destination and put in place by `commit` only when complete; `abandon`
/// (and release) kills ffmpeg and removes it.
public final class MediaMuxer {
    public let destination: String
    public let temporary: String
    private let overwrite: Bool
    /// What is replaced: `destination`, or with `overwrite` the regular file a link there points to.
    private let target: String
    private var child: ChildProcess?
    /// Guards `child`: the stream threads write while one of them may stop everything.
    private let lock = NSLock()
    private func current() -> ChildProcess? { lock.lock(); defer { lock.unlock() }; return child }
    private func take() -> ChildProcess? { lock.lock(); defer { lock.unlock() }; let c = child; child = nil; return c }
    /// Encoded audio streams in the order of their pipes: (ordinal among audio streams, encoding).
    public let encoded: [(ordinal: Int, encoding: MediaAudioEncoding)]

    /// The ffmpeg arguments (exposed for tests).
    /// `delivered`: the streams the output holds, in order (default: all but a chapter track).
    /// `copied`: audio streams (ordinal among audio streams) already encoded into a file of their
    /// own (MediaStreamEncoder), copied from it packet for packet.
    public static func arguments(input: String, probe: MediaProbe, delivered: [MediaStream]? = nil, encodings: [Int: MediaAudioEncoding],
                                 copied: [Int: String] = [:], muxer: String, output: String) -> [String] {
        var args = ["-nostdin", "-v", "error", "-y", "-i", "file:" + input]
        let audio = probe.audioStreams
        let piped = audio.indices.filter { encodings[$0] != nil }
        for k in piped {
            let e = encodings[k]!
            args += ["-f", "f32le", "-ar", String(e.sampleRate), "-ac", String(e.channels)]
            if let l = e.channelLayout { args += ["-ch_layout", l] }
            args += ["-i", "pipe:\(3 + piped.firstIndex(of: k)!)"]
        }
        let files = copied.keys.sorted()
        for k in files { args += ["-i", "file:" + copied[k]!] }
        var maps: [String] = [], codecs: [String] = ["-c", "copy"], meta: [String] = [], timecode = false
        // The MP4 muxer can't copy a timecode track; it writes it again from the video's timecode
        // tag (its handler name then the muxer's own).
        let streams = (delivered ?? probe.deliveredStreams).filter { s in
            let tmcd = muxer == "mp4" && s.type == "data" && s.codec == nil && s.codecTag == "tmcd"
            if tmcd { timecode = true }
            return !tmcd
        }
        for (out, s) in streams.enumerated() {
            let ordinal = s.type == "audio" ? audio.firstIndex(where: { $0.index == s.index }) : nil
            if let k = ordinal, let f = files.firstIndex(of: k) {
                maps += ["-map", "\(1 + piped.count + f):a:0"]
            } else if let k = ordinal, let e = encodings[k] {
                maps += ["-map", "\(1 + piped.firstIndex(of: k)!):a:0"]
                codecs += ["-c:\(out)", e.encoder]
                codecs += e.rateArguments(String(out))
                if let f = e.sampleFormat { codecs += ["-sample_fmt:\(out)", f] }
                if e.encoder == "flac" || e.encoder == "alac", let bits = e.bitDepth, bits > 16 {
                    codecs += ["-bits_per_raw_sample:\(out)", String(bits)]
                }
            } else {
                maps += ["-map", "0:\(s.index)"]
            }
            // Every stream's tags and dispositions stated: once one stream's metadata is mapped by
            // hand ffmpeg copies no other stream's (a mov_text subtitle's language came out `und`).
            meta += ["-map_metadata:s:\(out)", "0:s:\(s.index)"]
            meta += ["-disposition:\(out)", s.disposition.isEmpty ? "0" : s.disposition.joined(separator: "+")]
        }
        args += maps + codecs + ["-map_metadata", "0", "-map_chapters", "0"] + meta + (timecode ? ["-write_tmcd", "1"] : [])
        // Matroska and WebM draw their segment and track ids at random and stamp the time of
        // writing; bit-exact mode derives the ids from the streams and leaves the date out, so
        // unchanged input gives the same bytes (the writing application then reads "Lavf").
        if muxer == "matroska" || muxer == "webm" { args += ["-fflags", "+bitexact"] }
        args += ["-max_muxing_queue_size", "65536", "-max_interleave_delta", "0", "-f", muxer, "file:" + output]
        return args
    }

    /// Makes the destination's folder when missing.
    package static func makeFolder(for destination: String) throws {
        let dir = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: dir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw MediaWriteError.folderUncreatable(destination: destination, reason: error.localizedDescription)
            }
        }
    }

    /// `copied`: streams encoded beforehand into files of their own (not in `encodings`).
    public init(input: String, probe: MediaProbe, delivered: [MediaStream]? = nil, encodings: [Int: MediaAudioEncoding], copied: [Int: String] = [:],
                muxer: String, destination: String, overwrite: Bool) throws {
        self.destination = destination
        self.overwrite = overwrite
        // As AtomicOutput: a link is kept and the file it points to replaced.
        let target = overwrite ? FileAttributes.linkTarget(destination) : destination
        self.target = target
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent().path
        try Self.makeFolder(for: target)
        AtomicOutput.removeAbandonedPartials(in: dir)
        temporary = dir + "/." + url.lastPathComponent + ".partial" + TemporaryFiles.nameSuffix()
        // A file that is replaced stays private until it has the original's attributes (ffmpeg
        // truncates the file made here and keeps its mode).
        if overwrite, FileAttributes(of: target) != nil {
            let fd = PathBytes.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { Glibc.close(fd) }
        }
        encoded = encodings.keys.sorted().map { ($0, encodings[$0]!) }
        guard let ffmpeg = FFmpegSource.ffmpegPath else {
            throw MediaWriteError.noFFmpeg(input: input)
        }
        TemporaryFiles.register(temporary)
        do {
            child = try ChildProcess(ffmpeg, Self.arguments(input: input, probe: probe, delivered: delivered, encodings: encodings, copied: copied,
                                                                    muxer: muxer, output: temporary),
                                     stdin: .null, stdout: .null, extraInputs: encoded.count)
        } catch {
            TemporaryFiles.unregister(temporary)
            throw ResourceFailure(input, program: "ffmpeg", spawning: error)
        }
    }

    deinit { abandon() }

    /// The sink for pipe `i` (the i-th encoded stream), to be written from its own thread.
    public func sink(_ i: Int) -> AudioSink { PipeSink(muxer: self, pipe: i, channels: encoded[i].encoding.channels) }

    fileprivate func write(_ bytes: UnsafeRawBufferPointer, pipe: Int) -> Bool { current()?.write(bytes, toExtra: pipe) ?? false }
    fileprivate func close(pipe: Int) { current()?.closeExtra(pipe) }

    /// Waits for ffmpeg to finish (every pipe must be closed), then checks how it ended.
    /// Returns ffmpeg's messages when it failed (the temporary file is then removed).
    public func finishEncoding() -> ChildProcess.Termination? {
        guard let c = take() else { return .init(status: -1, stderr: "ffmpeg was stopped") }
        let t = c.wait()
        if t.status != 0 {
            unlink(temporary); TemporaryFiles.unregister(temporary)
            return t
        }
        return nil
    }

    /// Puts the finished file in place: renamed over the destination with `overwrite`, else
    /// linked exclusively (a file that appeared meanwhile is not replaced).
    public func commit() throws {
        defer { TemporaryFiles.unregister(temporary) }
        if overwrite, AtomicOutput.isSpecialFile(target) {
            defer { unlink(temporary) }
            let fd = PathBytes.open(temporary, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw MediaWriteError.cantPutInPlace(destination: destination, reason: String(cString: strerror(errno))) }
            defer { Glibc.close(fd) }
            do { try AtomicOutput.copy(from: fd, intoSpecial: target, path: destination) } catch let e as WriteError {
                var n: Int32 = EIO
                if case .failed(_, let code) = e.problem { n = code }
                throw MediaWriteError.cantPutInPlace(destination: destination, reason: String(cString: strerror(n)))
            }
            return
        }
        if overwrite {
            if let kept = FileAttributes(of: target) {
                let fd = PathBytes.open(temporary, O_RDONLY | O_CLOEXEC)
                if fd >= 0 { kept.apply(to: fd); Glibc.close(fd) }
            }
            guard rename(temporary, target) == 0 else {
                let e = String(cString: strerror(errno)); unlink(temporary)
                throw MediaWriteError.cantPutInPlace(destination: destination, reason: e)
            }
        } else {
            if link(temporary, destination) != 0 {
                let e = errno; unlink(temporary)
                if e == EEXIST {
                    throw MediaWriteError.appeared(destination: destination)
                }
                throw MediaWriteError.cantPutInPlace(destination: destination, reason: String(cString: strerror(e)))
            }
            unlink(temporary)
        }
    }

    /// Kills ffmpeg (if running) and removes the temporary file.
    public func abandon() {
        take()?.end()
        unlink(temporary)
        TemporaryFiles.unregister(temporary)
    }

    /// Interleaves blocks into raw float samples on one of the muxer's pipes.
    package final class PipeSink: AudioSink {
        package let muxer: MediaMuxer
        package let pipe: Int
        package let channels: Int
        private var buffer: [Float] = []
        package init(muxer: MediaMuxer, pipe: Int, channels: Int) { self.muxer = muxer; self.pipe = pipe; self.channels = channels }

        package func write(_ block: AudioBlock) throws {
            let n = block.frames, ch = channels
            guard block.channels.count == ch else { throw NormalizePipeline.Failure.channelMismatch }
            block.interleave(channels: ch, into: &buffer)
            let ok = buffer.withUnsafeBytes { muxer.write(UnsafeRawBufferPointer(rebasing: $0[0 ..< n * ch * 4]), pipe: pipe) }
            if !ok { throw MediaMuxerStopped() }
        }
        package func commit() throws { muxer.close(pipe: pipe) }
        package func abandon() { muxer.close(pipe: pipe) }
    }
}

/// The encoder stopped reading a pipe (it failed or was stopped).
public struct MediaMuxerStopped: Error {}

/// Why a media file could not be written back through ffmpeg: facts only (the sentences are the
/// tool's). `input` is the file being normalised, `destination` the output; `reason` the
/// system's or ffmpeg's words.
public enum MediaWriteError: Error, Equatable, Sendable {
    case folderUncreatable(destination: String, reason: String)
    case noFFmpeg(input: String)
    /// ffmpeg ran but failed.
    case ffmpegFailed(input: String, reason: String)

    /// What ffmpeg's end `t` means for `input`: the machine's failure (a full or read-only disk,
    /// no memory, ffmpeg unable to run), else ffmpeg's refusal with its first line of errors.
    package static func failure(input: String, _ t: ChildProcess.Termination) -> Error {
        if let r = ResourceFailure(input, program: "ffmpeg", status: t.status, stderr: t.stderr) { return r }
        return ffmpegFailed(input: input, reason: t.stderr.split(separator: "\n").first.map(String.init) ?? "ffmpeg stopped with status \(t.status)")
    }
    case cantPutInPlace(destination: String, reason: String)
    /// Without overwrite, a file appeared at the destination while it was being written.
    case appeared(destination: String)
}
