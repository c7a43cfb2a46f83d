import CSndfile
import Dispatch
import Foundation

/// Temporary files still being written; removed if the process is interrupted (SIGINT, SIGTERM,
/// SIGHUP), so a killed run leaves neither a partial output nor its temporary file behind.
public enum TemporaryFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: Set<String> = []
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    public static func register(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        if sources.isEmpty { installHandlers() }
        paths.insert(path)
    }

    public static func unregister(_ path: String) {
        lock.lock(); paths.remove(path); lock.unlock()
    }

    private static func installHandlers() {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler {
                lock.lock()
                for p in paths { unlink(p) }
                lock.unlock()
                // This handler replaces ChildProcess's: end the children here too.
                ChildProcess.killAll()
                signal(sig, SIG_DFL)
                kill(getpid(), sig)
            }
            s.resume()
            sources.append(s)
        }
    }
}

/// Tags a sink can carry over, by libsndfile's string ids.
public struct AudioTags: Equatable, Sendable {
    public var title, artist, album, genre, date, comment, trackNumber, software, copyright: String?
    public init() {}
    public var isEmpty: Bool { [title, artist, album, genre, date, comment, trackNumber, copyright].allSatisfy { $0 == nil } }
}

/// Writes audio through libsndfile atomically: into a temporary file next to the destination,
/// renamed into place by `commit` only when complete. Without `overwrite`, an existing
/// destination is refused (`exists`) and the final link is exclusive, so a file that appears
/// meanwhile is not replaced either.
public final class SndfileSink: AudioSink {
    public let path: String
    public let channelCount: Int
    private let temporary: String
    private let overwrite: Bool
    private var handle: OpaquePointer?
    private var interleaved: [Float] = []
    public private(set) var framesWritten = 0

    /// `formatCode` is a libsndfile format (major | subtype), e.g. from SndfileDescription.
    public init(path: String, formatCode: Int32, sampleRate: Int, channelCount: Int,
                overwrite: Bool, tags: AudioTags = AudioTags()) throws {
        self.path = path
        self.channelCount = channelCount
        self.overwrite = overwrite
        let name = ToolError.quoted(path)
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw ToolError(.exists, "\(name) already exists; it was left as it is.",
                            suggestion: "Pass --overwrite to replace it, or choose another --out-dir or --output-template.")
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw ToolError(.unreadable, "The folder for \(name) can't be created: \(error.localizedDescription)",
                                suggestion: "Check that the output folder is on a writable disk.")
            }
        }
        temporary = dir + "/." + url.lastPathComponent + ".partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = formatCode
        guard sf_format_check(&info) == SF_TRUE else {
            throw ToolError(.unsupportedCodec, "\(name) can't be written in the requested format (\(channelCount) channels at \(sampleRate) Hz).",
                            suggestion: "Choose another --format or --sample-rate (WAV and FLAC take most combinations).")
        }
        TemporaryFiles.register(temporary)
        SndfileSource.openLock.lock()
        let h = sf_open(temporary, Int32(SFM_WRITE), &info)
        let err = h == nil ? String(cString: sf_strerror(nil)) : ""
        SndfileSource.openLock.unlock()
        guard let h else {
            unlink(temporary); TemporaryFiles.unregister(temporary)
            throw ToolError(.unreadable, "\(name) can't be written: \(err)",
                            suggestion: "Check that the output folder is writable and the disk has space.")
        }
        handle = h
        _ = sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        func set(_ id: Int32, _ v: String?) { if let v { _ = sf_set_string(h, id, v) } }
        set(Int32(SF_STR_TITLE), tags.title); set(Int32(SF_STR_ARTIST), tags.artist)
        set(Int32(SF_STR_ALBUM), tags.album); set(Int32(SF_STR_GENRE), tags.genre)
        set(Int32(SF_STR_DATE), tags.date); set(Int32(SF_STR_COMMENT), tags.comment)
        set(Int32(SF_STR_TRACKNUMBER), tags.trackNumber); set(Int32(SF_STR_COPYRIGHT), tags.copyright)
        set(Int32(SF_STR_SOFTWARE), tags.software)
    }

    deinit { if handle != nil { abandon() } }

    public func write(_ block: AudioBlock) throws {
        guard let h = handle else { return }
        let n = block.frames
        let ch = channelCount
        if interleaved.count < n * ch { interleaved = [Float](repeating: 0, count: n * ch) }
        interleaved.withUnsafeMutableBufferPointer { dst in
            for c in 0..<ch {
                block.channels[c].withUnsafeBufferPointer { src in
                    var d = c
                    for i in 0..<n { dst[d] = src[i]; d += ch }
                }
            }
        }
        let w = interleaved.withUnsafeBufferPointer { sf_writef_float(h, $0.baseAddress, sf_count_t(n)) }
        if w != n {
            let why = String(cString: sf_strerror(h))
            abandon()
            throw ToolError(.unreadable, "\(ToolError.quoted(path)) could not be written completely (\(why)); nothing was left behind.",
                            suggestion: "Free disk space or choose another output folder.")
        }
        framesWritten += n
    }

    public func commit() throws {
        guard let h = handle else { return }
        sf_write_sync(h)
        let closeStatus = sf_close(h)
        handle = nil
        defer { TemporaryFiles.unregister(temporary) }
        let name = ToolError.quoted(path)
        guard closeStatus == 0 else {
            unlink(temporary)
            throw ToolError(.unreadable, "\(name) could not be finished (the disk may be full); nothing was left behind.",
                            suggestion: "Free disk space or choose another output folder.")
        }
        if overwrite {
            guard rename(temporary, path) == 0 else {
                let e = String(cString: strerror(errno)); unlink(temporary)
                throw ToolError(.unreadable, "\(name) can't be put in place: \(e).", suggestion: "Check that the output folder is writable.")
            }
        } else {
            // link() fails if the destination exists: an exclusive, atomic "create".
            if link(temporary, path) != 0 {
                let e = errno; unlink(temporary)
                if e == EEXIST {
                    throw ToolError(.exists, "\(name) appeared while it was being written; it was left as it is.",
                                    suggestion: "Pass --overwrite to replace it, or choose another output folder.")
                }
                throw ToolError(.unreadable, "\(name) can't be put in place: \(String(cString: strerror(e))).",
                                suggestion: "Check that the output folder is writable.")
            }
            unlink(temporary)
        }
    }

    public func abandon() {
        if let h = handle { sf_close(h); handle = nil }
        unlink(temporary)
        TemporaryFiles.unregister(temporary)
    }
}

extension SndfileSink {
    /// libsndfile format codes for common outputs, for tests and `--format`.
    public static func formatCode(container: String, codec: String) -> Int32? {
        let major: Int
        switch container {
        case "wav": major = SF_FORMAT_WAV
        case "aiff": major = SF_FORMAT_AIFF
        case "flac": major = SF_FORMAT_FLAC
        case "ogg": major = SF_FORMAT_OGG
        case "caf": major = SF_FORMAT_CAF
        case "w64": major = SF_FORMAT_W64
        case "rf64": major = SF_FORMAT_RF64
        case "mp3": major = SF_FORMAT_MPEG
        default: return nil
        }
        let sub: Int
        switch codec {
        case "pcm_s8": sub = SF_FORMAT_PCM_S8
        case "pcm_u8": sub = SF_FORMAT_PCM_U8
        case "pcm_s16": sub = SF_FORMAT_PCM_16
        case "pcm_s24": sub = SF_FORMAT_PCM_24
        case "pcm_s32": sub = SF_FORMAT_PCM_32
        case "pcm_f32": sub = SF_FORMAT_FLOAT
        case "pcm_f64": sub = SF_FORMAT_DOUBLE
        case "vorbis": sub = SF_FORMAT_VORBIS
        case "opus": sub = SF_FORMAT_OPUS
        case "mp3": sub = SF_FORMAT_MPEG_LAYER_III
        default: return nil
        }
        return Int32(major | sub)
    }
}
