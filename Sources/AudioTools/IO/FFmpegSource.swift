import Foundation

/// Decodes what libsndfile can't (AAC and ALAC in MP4, WMA, audio in Matroska) by running the
/// `ffmpeg` program, when it is installed, as a subprocess that streams 32-bit float PCM.
public final class FFmpegSource: AudioSource {
    public let path: String
    public let format: AudioFormat
    /// The codec ffprobe names (`aac`, `alac`, `wmav2`, ...).
    public let codec: String
    private var process: Process?
    private var pipe: FileHandle?
    private var stderrPipe: Pipe?
    private var pending = Data()
    private var framesRead = 0

    /// The ffmpeg and ffprobe programs on PATH, or nil when not installed.
    public static let ffmpegPath: String? = findProgram("ffmpeg")
    public static let ffprobePath: String? = findProgram("ffprobe")
    public static var isAvailable: Bool { ffmpegPath != nil && ffprobePath != nil }

    static func findProgram(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Asks ffprobe for the first audio stream's rate, channels and codec; throws ToolError when
    /// ffmpeg is missing or finds no decodable audio.
    public init(path: String) throws {
        self.path = path
        let name = ToolError.quoted(path)
        guard let probe = FFmpegSource.ffprobePath, FFmpegSource.ffmpegPath != nil else {
            throw ToolError(.unsupportedCodec, "\(name) needs ffmpeg to be decoded, and ffmpeg is not installed.",
                            suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg), or convert the file to WAV or FLAC.")
        }
        let (status, out, err) = FFmpegSource.capture(probe, ["-v", "error", "-select_streams", "a:0",
            "-show_entries", "stream=codec_name,sample_rate,channels,duration_ts,time_base", "-of", "json", path])
        guard status == 0, let json = try? JSON.parse(out),
              let stream = json["streams"]?.arrayValue?.first else {
            if status == 0 {
                throw ToolError(.noAudio, "\(name) doesn't contain any audio.",
                                suggestion: "Pick a music or voice file — a video file won't work here.")
            }
            throw ToolError(.malformed, "\(name) can't be decoded: \(err.split(separator: "\n").first.map(String.init) ?? "ffmpeg refused it").",
                            suggestion: "The file is damaged; export or download it again.")
        }
        let rate = Int(stream["sample_rate"]?.stringValue ?? "") ?? stream["sample_rate"]?.intValue ?? 0
        let channels = stream["channels"]?.intValue ?? 0
        guard rate > 0, channels > 0, channels <= 64 else {
            throw ToolError(.malformed, "\(name) has an audio stream with an impossible format (\(channels) channels at \(rate) Hz).",
                            suggestion: "The file is damaged; export or download it again.")
        }
        codec = stream["codec_name"]?.stringValue ?? "unknown"
        var frames: Int?
        if let ts = stream["duration_ts"]?.intValue, let tb = stream["time_base"]?.stringValue {
            let parts = tb.split(separator: "/").compactMap { Int($0) }
            if parts.count == 2, parts[1] > 0, parts[1] == rate, parts[0] == 1 { frames = ts }
        }
        format = AudioFormat(sampleRate: rate, channelCount: channels, frameCount: frames)
        try start()
    }

    deinit { stop() }

    private func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: FFmpegSource.ffmpegPath!)
        p.arguments = ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-vn", "-sn", "-dn",
                       "-f", "f32le", "-acodec", "pcm_f32le", "-ac", String(format.channelCount), "-ar", String(format.sampleRate), "-"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        process = p
        pipe = out.fileHandleForReading
        stderrPipe = err
        pending = Data()
        framesRead = 0
    }

    private func stop() {
        if let p = process, p.isRunning { p.terminate(); p.waitUntilExit() }
        try? pipe?.close()
        process = nil
        pipe = nil
    }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        guard let h = pipe else { return 0 }
        let ch = format.channelCount
        let want = maxFrames * ch * 4
        while pending.count < want {
            let chunk = h.readData(ofLength: want - pending.count)
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
            pending.removeSubrange(0..<(n * ch * 4))
            for c in 0..<ch {
                if block.channels[c].withUnsafeBufferPointer({ p in (0..<n).contains { !p[$0].isFinite } }) {
                    throw ToolError(.nonFiniteSamples, "\(ToolError.quoted(path)) decodes to samples that are not numbers (NaN or infinity).",
                                    suggestion: "Re-encode the file from its source.")
                }
            }
        }
        block.frames = n
        framesRead += n
        if n == 0 {
            process?.waitUntilExit()
            let status = process?.terminationStatus ?? 0
            let err = String(decoding: stderrPipe?.fileHandleForReading.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            pipe = nil
            if status != 0 || !err.isEmpty {
                let first = err.split(separator: "\n").first.map(String.init) ?? "ffmpeg stopped with status \(status)"
                let cut = err.lowercased().contains("end of file") || err.lowercased().contains("truncat") || err.lowercased().contains("partial file")
                throw ToolError(cut ? .truncated : .malformed,
                    "\(ToolError.quoted(path)) \(cut ? "is cut off" : "is damaged") after \(framesRead) frames (\(first)).",
                    suggestion: "Download or export the file again; a complete copy will work.")
            }
            if let promised = format.frameCount, framesRead + format.sampleRate / 10 < promised {
                throw ToolError(.truncated, "\(ToolError.quoted(path)) is cut off: it promises \(promised) frames but only \(framesRead) decode.",
                                suggestion: "Download or export the file again; a complete copy will work.")
            }
        }
        return n
    }

    /// Restarts the decoder and skips to `frame` exactly (decoding what it skips).
    public func seek(toFrame frame: Int) throws {
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

    static func capture(_ exe: String, _ args: [String]) -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err; p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return (-1, "", "\(error)") }
        var errData = Data()
        let t = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        t.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !t.isFinished { usleep(500) }
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}
