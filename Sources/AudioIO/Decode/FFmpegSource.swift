import AudioSignal
import Foundation

/// Decodes what libsndfile can't (AAC and ALAC in MP4, WMA, audio in Matroska) by running the
/// `ffmpeg` program, when it is installed, as one subprocess that streams a float WAV on its
/// stdout: the WAV header tells the rate and channels, so no separate ffprobe run is needed.
/// The subprocess is a ChildProcess: it is killed and reaped when the source is released, on
/// every path (a refusal after the header, an error, a signal).
public final class FFmpegSource: AudioSource {
    public let path: String
    public private(set) var format: AudioFormat
    private var child: ChildProcess?
    private var pending = Data()
    private var framesRead = 0
    /// Which audio stream is decoded, counted from 0 among the file's audio streams (`0:a:N`).
    public let audioStream: Int
    /// Only this stretch of the stream (seconds from its start, length), for a trial encode.
    public let window: (start: Double, length: Double)?
    /// The WAVE_FORMAT_EXTENSIBLE channel mask in the header ffmpeg writes (its channel layout
    /// of the decoded stream), nil when it wrote none.
    public private(set) var channelMask: UInt32?

    /// The ffmpeg program on PATH, or nil when not installed.
    public static let ffmpegPath: String? = findProgram("ffmpeg")
    public static var isAvailable: Bool { ffmpegPath != nil }

    package static func findProgram(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// ffmpeg's demuxer for the file when its bytes chose it (`spdif`: IEC 61937 bursts in a
    /// WAV, so they are never read as PCM), nil to let ffmpeg probe.
    public let inputFormat: String?

    /// Starts decoding the first audio stream of `path`. `expectedFrames`, when the container
    /// states it, lets a decode that stops early be reported as cut off. Throws DecodeError when
    /// ffmpeg is missing or finds no decodable audio.
    public init(path: String, expectedFrames: Int? = nil, audioStream: Int = 0, window: (start: Double, length: Double)? = nil,
                inputFormat: String? = nil) throws {
        self.path = path
        self.inputFormat = inputFormat
        self.audioStream = audioStream
        self.window = window
        guard FFmpegSource.ffmpegPath != nil else {
            throw DecodeError(path, .ffmpegMissing)
        }
        format = AudioFormat(sampleRate: 0, channelCount: 0, frameCount: expectedFrames)
        try start()
    }

    deinit { stop() }

    private func start() throws {
        // No -ss at 0: seeking there decodes the codec's first frame differently.
        let seek = window.map { ($0.start > 0 ? ["-ss", String(format: "%.3f", $0.start)] : []) + ["-t", String(format: "%.3f", $0.length)] } ?? []
        let demuxer = inputFormat.map { ["-f", $0] } ?? []
        let args = ["-nostdin", "-v", "error"] + seek + demuxer + ["-i", "file:" + path, "-map", "0:a:\(audioStream)", "-vn", "-sn", "-dn",
                    "-map_metadata", "-1", "-bitexact", "-f", "wav", "-acodec", "pcm_f32le", "-"] as [String]
        do {
            child = try ChildProcess(FFmpegSource.ffmpegPath!, args)
        } catch {
            throw ResourceFailure(path, program: "ffmpeg", spawning: error)
        }
        pending = Data()
        framesRead = 0
        do { try readHeader() } catch { stop(); throw error }
    }

    /// Reads the RIFF/WAVE header ffmpeg writes ahead of the samples (sizes unknown on a pipe).
    private func readHeader() throws {
        func fill(_ n: Int) -> Bool {
            while pending.count < n {
                guard let c = child else { return false }
                let chunk = c.readData(upTo: max(4096, n - pending.count))
                if chunk.isEmpty { return false }
                pending.append(chunk)
            }
            return true
        }
        func u32(_ o: Int) -> UInt32 { pending.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: o, as: UInt32.self)) } }
        func u16(_ o: Int) -> UInt16 { pending.withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(fromByteOffset: o, as: UInt16.self)) } }
        guard fill(12), pending.prefix(4) == Data("RIFF".utf8) else { throw startFailure() }
        var offset = 12
        var rate = 0, channels = 0
        while true {
            guard fill(offset + 8) else { throw startFailure() }
            let id = String(decoding: pending[pending.startIndex + offset ..< pending.startIndex + offset + 4], as: UTF8.self)
            let size = Int(u32(offset + 4))
            if id == "data" { offset += 8; break }
            guard size < 1 << 20, fill(offset + 8 + size) else { throw startFailure() }
            if id == "fmt " {
                channels = Int(u16(offset + 10))
                rate = Int(u32(offset + 12))
                if size >= 24, u16(offset + 8) == 0xFFFE { channelMask = u32(offset + 28) }
            }
            offset += 8 + size + (size & 1)
        }
        pending.removeSubrange(pending.startIndex ..< pending.startIndex + offset)
        guard rate > 0, channels > 0, channels <= 64 else {
            throw DecodeError(path, .impossibleStream(channels: channels, sampleRate: rate))
        }
        format.sampleRate = rate
        format.channelCount = channels
    }

    /// Why ffmpeg produced no header: no audio stream, or a file it can't read.
    private func startFailure() -> Error {
        let end = child?.wait()
        let err = end?.stderr ?? ""
        if let end, let r = ResourceFailure(path, program: "ffmpeg", status: end.status, stderr: err) { return r }
        if err.contains("matches no streams") || err.contains("does not contain any stream") {
            return DecodeError(path, .noAudioStream)
        }
        let first = err.split(separator: "\n").first.map(String.init) ?? "ffmpeg refused it"
        return DecodeError(path, .undecodable(ffmpeg: first))
    }

    /// Ends the decoder whatever it is doing (it may be blocked writing samples nobody will read).
    private func stop() {
        child?.end()
        child = nil
    }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        guard let c = child else { return 0 }
        let ch = format.channelCount
        let want = maxFrames * ch * 4
        while pending.count < want {
            let chunk = c.readData(upTo: want - pending.count)
            if chunk.isEmpty { break }
            pending.append(chunk)
        }
        let n = min(maxFrames, pending.count / (ch * 4))
        if block.channels.count != ch { block.channels = Array(repeating: [], count: ch) }
        for c in 0..<ch where block.channels[c].count < maxFrames { block.channels[c] = [Float](repeating: 0, count: maxFrames) }
        if n > 0 {
            pending.withUnsafeBytes { raw in
                for c in 0..<ch {
                    block.channels[c].withUnsafeMutableBufferPointer { dst in
                        for i in 0..<n {
                            dst[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: (i * ch + c) * 4, as: UInt32.self)))
                        }
                    }
                }
            }
            pending.removeSubrange(pending.startIndex ..< pending.startIndex + n * ch * 4)
            for c in 0..<ch {
                if block.channels[c].withUnsafeBufferPointer({ p in (0..<n).contains { !p[$0].isFinite } }) {
                    throw DecodeError(path, .nonFiniteDecoded)
                }
            }
        }
        block.frames = n
        framesRead += n
        if n == 0 { try finishDecoding() }
        return n
    }

    /// At the end of the stream: ffmpeg's status and messages tell a complete decode from a
    /// damaged or cut-off one.
    private func finishDecoding() throws {
        guard let c = child else { return }
        let end = c.wait()
        child = nil
        let status = end.status, err = end.stderr
        if status != 0 || !err.isEmpty {
            if let r = ResourceFailure(path, program: "ffmpeg", status: status, stderr: err) { throw r }
            let first = err.split(separator: "\n").first.map(String.init) ?? "ffmpeg stopped with status \(status)"
            let lower = err.lowercased()
            let cut = lower.contains("end of file") || lower.contains("truncat") || lower.contains("partial file")
            throw DecodeError(path, .stoppedAfter(frames: framesRead, cutOff: cut, ffmpeg: first))
        }
        if let promised = format.frameCount, framesRead + FFmpegSource.paddingAllowance(rate: format.sampleRate) < promised {
            throw DecodeError(path, .decodedShort(promised: promised, decoded: framesRead))
        }
    }

    /// How many frames short of the container's stated length a complete decode may be:
    /// containers count encoder priming and padding (AAC's 1024 + up to 1024 frames) in their
    /// length, so a tenth of a second is allowed before a short decode is called cut off.
    public static func paddingAllowance(rate: Int) -> Int { rate / 10 }

    /// Whether the decoder is running and has handed out no samples yet (a reader may take it over).
    public var isUnread: Bool { child != nil && framesRead == 0 && window == nil }

    /// Restarts the decoder and skips to `frame` exactly (decoding what it skips); a seek to where
    /// the running decoder already is (a pass starting at 0 on a fresh decoder) restarts nothing.
    public func seek(toFrame frame: Int) throws {
        if child != nil, frame == framesRead { return }
        stop()
        try start()
        var scratch = AudioBlock(channelCount: format.channelCount, capacity: 8192)
        var left = frame
        while left > 0 {
            let n = try read(into: &scratch, maxFrames: min(8192, left))
            if n == 0 { break }
            left -= n
        }
        framesRead = frame
    }
}
