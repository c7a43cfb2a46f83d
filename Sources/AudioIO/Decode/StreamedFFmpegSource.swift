import AudioSignal
import Foundation

/// A compressed stream (FLAC, Ogg, CAF, W64, AIFF, MP3, ADTS AAC...) decoded by one ffmpeg child that reads it
/// on its stdin: a thread pumps the input (the sniffed bytes first) into the child, and the
/// float WAV it writes is read as StreamedPCMSource reads a piped WAV. The child ends on every
/// path: at the end of the input, when this source is released (killed), and on a stop signal
/// (its input is closed, so it finishes what it was given).
public final class StreamedFFmpegSource: AudioSource, StreamedAudio {
    public let path: String
    public let isPipe: Bool
    private let input: PipeReader
    private var child: ChildProcess?
    private let lock = NSLock()
    private var inputClosed = false
    private var inner: StreamedPCMSource!
    private var framesRead = 0
    private var extraNotes: [String] = []

    /// The frames the stream states (an MP3's LAME tag): what ffmpeg decodes past it is the
    /// encoder's padding, read and dropped.
    private let frameLimit: Int?

    /// `format`: ffmpeg's demuxer for the input when its bytes named it ("mp3", "aac"), so ffmpeg
    /// need not guess from a stream's first frames; `frameLimit`: the length the stream states.
    public init(path: String, input: PipeReader, isPipe: Bool, format: String? = nil, frameLimit: Int? = nil) throws {
        self.path = path
        self.frameLimit = frameLimit
        self.input = input
        self.isPipe = isPipe
        guard let ffmpeg = FFmpegSource.ffmpegPath else { throw DecodeError(path, .ffmpegMissing) }
        let args = ["-v", "error"] + (format.map { ["-f", $0] } ?? []) + ["-i", "pipe:0", "-map", "0:a:0", "-vn", "-sn", "-dn",
                    "-map_metadata", "-1", "-bitexact", "-f", "wav", "-acodec", "pcm_f32le", "-"]
        let c: ChildProcess
        do { c = try ChildProcess(ffmpeg, args, stdin: .pipe) } catch {
            throw ResourceFailure(path, program: "ffmpeg", spawning: error)
        }
        child = c
        let t = Thread { [self] in pump(c) }
        t.start()
        let out = PipeReader(read: { c.read(into: $0, count: $1) })
        let layout: PCMStreamFormat?
        do {
            layout = try StandardInput.header(out, path: path, parse: StreamHeaders.wav)
        } catch {
            throw failure(c)
        }
        guard let layout else { throw failure(c) }
        inner = StreamedPCMSource(path: path, reader: out, layout: layout, isPipe: isPipe, drainsAfter: false)
    }

    deinit { stop() }

    public var format: AudioFormat { inner.format }
    /// Bytes of the input (not of ffmpeg's output) read so far.
    public var bytesRead: UInt64 { input.bytesTaken }
    public var stoppedBySignal: Bool { input.end == .stopped }
    public var streamNotes: [String] { inner.streamNotes.filter { !$0.hasPrefix("The input ended after") } + extraNotes }
    /// Decoding FLAC or Vorbis costs more than reading PCM, but it happens in the child.
    public var decodesCheaply: Bool { true }

    /// Copies the input into the child until either ends; then closes the child's input.
    private func pump(_ c: ChildProcess) {
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { input.readSome(into: $0.baseAddress!, count: 65536) }
            if n == 0 { break }
            lock.lock()
            let ok = !inputClosed && buf.withUnsafeBytes { c.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            lock.unlock()
            if !ok { break }
        }
        lock.lock()
        if !inputClosed { inputClosed = true; c.closeInput() }
        lock.unlock()
    }

    /// Why the child gave no WAV header: its first line of errors.
    private func failure(_ c: ChildProcess) -> Error {
        let t = finish(c), err = t.stderr
        if let r = ResourceFailure(path, program: "ffmpeg", status: t.status, stderr: err) { return r }
        let first = err.split(separator: "\n").first.map(Self.withoutPipeName) ?? "ffmpeg could not read the input"
        return DecodeError(path, .undecodable(ffmpeg: first))
    }

    /// A line of ffmpeg's errors without the name it gives its input ("pipe:0: "): the sentence
    /// already names the input as the person gave it (`-`, or the followed file).
    package static func withoutPipeName(_ line: Substring) -> String {
        line.hasPrefix("pipe:0: ") ? String(line.dropFirst(8)) : String(line)
    }

    /// Waits for the child, whose output has ended: its input is closed here if the pump hasn't
    /// (the pump may be waiting on a stalled input; it stops at its next write).
    private func finish(_ c: ChildProcess) -> ChildProcess.Termination {
        lock.lock()
        if !inputClosed { inputClosed = true; c.closeInput() }
        lock.unlock()
        let t = c.wait()
        child = nil
        return t
    }

    /// Kills the child: the pump's next write fails, so it ends too (unless still waiting on the input).
    private func stop() {
        guard let c = child else { return }
        kill(c.pid, SIGKILL)
        lock.lock()
        inputClosed = true
        c.end()
        lock.unlock()
        child = nil
    }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        var n: Int
        if let limit = frameLimit, framesRead + maxFrames > limit {
            n = limit > framesRead ? try inner.read(into: &block, maxFrames: limit - framesRead) : 0
            if n == 0 {
                // Past the stated length: the padding is decoded to the end and dropped.
                var scratch = AudioBlock(channelCount: format.channelCount, capacity: 8192)
                while try inner.read(into: &scratch, maxFrames: 8192) > 0 {}
                block.frames = 0
            }
        } else {
            n = try inner.read(into: &block, maxFrames: maxFrames)
        }
        framesRead += n
        if n == 0, let c = child {
            let t = finish(c)
            if t.status != 0 || !t.stderr.isEmpty, !stoppedBySignal {
                let first = t.stderr.split(separator: "\n").first.map(Self.withoutPipeName) ?? "ffmpeg stopped with status \(t.status)"
                if let r = ResourceFailure(path, program: "ffmpeg", status: t.status, stderr: t.stderr) { throw r }
                guard framesRead > 0 else { throw DecodeError(path, .undecodable(ffmpeg: first)) }
                extraNotes.append("ffmpeg stopped decoding the input with an error after \(framesRead) frames (“\(first)”); what was decoded is measured.")
            }
        }
        return n
    }

    public func seek(toFrame frame: Int) throws {
        throw DecodeError(path, .cannotSeek(frame: frame))
    }
}
