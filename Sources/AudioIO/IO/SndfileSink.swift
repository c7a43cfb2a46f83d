import AudioSignal
import CSndfile
import Dispatch
import Foundation

/// Tags a sink can carry over, by libsndfile's string ids.
public struct AudioTags: Equatable, Sendable {
    public var title, artist, album, genre, date, comment, trackNumber, software, copyright: String?
    public init() {}
    public var isEmpty: Bool { [title, artist, album, genre, date, comment, trackNumber, copyright].allSatisfy { $0 == nil } }
}

/// Writes audio through libsndfile atomically (see AtomicOutput): into a file that has no name
/// until `commit` links it into place complete, so an interrupted or killed run leaves nothing in
/// the output folder. Without `overwrite`, an existing destination is refused (`exists`) and the
/// final link is exclusive, so a file that appears meanwhile is not replaced either.
public final class SndfileSink: AudioSink {
    public let path: String
    public let channelCount: Int
    private let output: AtomicOutput
    /// What libsndfile writes goes through this to the output's descriptor.
    private let file: SndfileWriteBuffer
    private var handle: OpaquePointer?
    private var interleaved: [Float] = []
    /// The encoder's thread, after `encodeBehind`.
    private var behind: WriteBehind?
    public private(set) var framesWritten = 0
    /// An Ogg container (Vorbis, Opus): renumbered once closed, see OggSerial.
    private let isOgg: Bool
    /// The encoder is closed and the file complete, not yet committed (`finishEncoding`).
    private var encoded = false

    /// `formatCode` is a libsndfile format (major | subtype), e.g. from SndfileDescription.
    public init(path: String, formatCode: Int32, sampleRate: Int, channelCount: Int,
                overwrite: Bool, tags: AudioTags = AudioTags()) throws {
        self.path = path
        self.channelCount = channelCount
        isOgg = formatCode & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_OGG)
        if !overwrite, PathBytes.exists(path) { throw WriteError(path, .exists) }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = formatCode
        guard sf_format_check(&info) == SF_TRUE else {
            throw WriteError(path, .formatRejected(channels: channelCount, sampleRate: sampleRate))
        }
        output = try AtomicOutput(path: path, overwrite: overwrite)
        file = SndfileWriteBuffer(fd: output.fd)
        Libsndfile.openLock.lock()
        var io = SndfileWriteBuffer.callbacks
        let h = sf_open_virtual(&io, Int32(SFM_WRITE), &info, file.userData)
        let err = h == nil ? String(cString: sf_strerror(nil)) : ""
        Libsndfile.openLock.unlock()
        guard let h else {
            output.abandon()
            throw WriteError(path, .encoderRefused(libsndfile: err))
        }
        handle = h
        _ = sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // A float WAV/AIFF would get a PEAK chunk stamped with the time of writing: the same
        // audio written a second later would differ in its header. Outputs are reproducible.
        _ = sf_command(h, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        func set(_ id: Int32, _ v: String?) { if let v { _ = sf_set_string(h, id, v) } }
        set(Int32(SF_STR_TITLE), tags.title); set(Int32(SF_STR_ARTIST), tags.artist)
        set(Int32(SF_STR_ALBUM), tags.album); set(Int32(SF_STR_GENRE), tags.genre)
        set(Int32(SF_STR_DATE), tags.date); set(Int32(SF_STR_COMMENT), tags.comment)
        set(Int32(SF_STR_TRACKNUMBER), tags.trackNumber); set(Int32(SF_STR_COPYRIGHT), tags.copyright)
        set(Int32(SF_STR_SOFTWARE), tags.software)
    }

    deinit { if handle != nil { abandon() } }

    /// The open encoder, for settings made before the first write (SndfileSink+Rate).
    var handleForSettings: OpaquePointer? { handle }

    public func write(_ block: AudioBlock) throws {
        guard let h = handle else { return }
        let n = block.frames
        let ch = channelCount
        if let behind {
            guard n > 0 else { return }
            if let problem = behind.fill(frames: n, channels: ch, { block.interleave(channels: ch, to: $0) }) {
                abandon()
                throw WriteError(path, problem)
            }
            framesWritten += n
            return
        }
        block.interleave(channels: ch, into: &interleaved)
        if let problem = interleaved.withUnsafeBufferPointer({ Self.write(h, $0.baseAddress!, frames: n, file: file) }) {
            abandon()
            throw WriteError(path, problem)
        }
        framesWritten += n
    }

    /// Encodes `frames` interleaved frames; nil, or why it stopped short.
    private static func write(_ h: OpaquePointer, _ samples: UnsafePointer<Float>, frames n: Int, file: SndfileWriteBuffer) -> WriteError.Problem? {
        let w = sf_writef_float(h, samples, sf_count_t(n))
        guard w != n else { return nil }
        let e = file.failure
        return .incomplete(errno: e, libsndfile: e != 0 ? "" : String(cString: sf_strerror(h)))
    }

    /// From here on, encoding runs on a thread of its own (`WriteBehind`), for a caller with a
    /// core to spare; `write` only interleaves. The file's bytes are the same. Before any write.
    public func encodeBehind() {
        guard let h = handle, behind == nil, framesWritten == 0 else { return }
        let file = self.file
        nonisolated(unsafe) let handle = h
        let channels = channelCount
        behind = WriteBehind { buffer in
            buffer.samples.withUnsafeBufferPointer { all in
                var start = 0
                for n in buffer.pieces {
                    if let problem = Self.write(handle, all.baseAddress! + start * channels, frames: n, file: file) { return problem }
                    start += n
                }
                return nil
            }
        }
    }

    public func commit() throws {
        if handle != nil { try finishEncoding() }
        guard encoded else { return }
        encoded = false
        try output.commit()
    }

    /// Closes the encoder, so the file is complete (a lossy codec's last frames flushed) but
    /// still unnamed: it can be decoded through `readablePath` and then committed or abandoned.
    public func finishEncoding() throws {
        guard let h = handle else { return }
        if let problem = behind?.finish() {
            abandon()
            throw WriteError(path, problem)
        }
        let closeStatus = sf_close(h)
        handle = nil
        // sf_close wrote the header's final lengths into the buffer: send it before anything
        // reads the file, and let the first failed write, if any, be the reason given.
        let e = file.flush()
        guard closeStatus == 0, e == 0 else {
            output.abandon()
            throw WriteError(path, .unfinished(errno: e))
        }
        if isOgg {
            do { _ = try OggSerial.makeReproducible(fd: output.fd) } catch {
                output.abandon()
                throw WriteError(path, .failed(.writing, errno: error.errno))
            }
        }
        // On disk before it is named (what sf_write_sync did when libsndfile held the descriptor).
        if fsync(output.fd) != 0 && errno != EINVAL {
            let e = errno
            output.abandon()
            throw WriteError(path, .unfinished(errno: e))
        }
        encoded = true
    }

    /// A path that opens the file written so far (this process's descriptor of it, through
    /// /proc), for decoding it before it is committed; nil where /proc can't be used.
    public var readablePath: String? {
        AtomicOutput.procFDLinks ? "/proc/self/fd/\(output.fd)" : nil
    }

    public func abandon() {
        behind?.finish(discarding: true)
        if let h = handle { sf_close(h); handle = nil }
        encoded = false
        output.abandon()
    }
}

/// libsndfile as a whole.
package enum Libsndfile {
    /// libsndfile keeps the error of a failed open in one global, so every open (to read or to
    /// write) takes this lock; each open handle then has its own error state.
    package static let openLock = NSLock()
}

extension SndfileSink {
    /// Sets libsndfile's channel map (SF_CHANNEL_MAP_* codes, one a channel); before `commit`.
    package func setChannelMap(_ codes: [Int32]) {
        guard let h = handle else { return }
        var codes = codes
        _ = sf_command(h, Int32(SFC_SET_CHANNEL_MAP_INFO), &codes, Int32(codes.count * MemoryLayout<Int32>.size))
    }

    /// libsndfile format codes for common outputs, for tests and `--format`.
    /// The same encoding in RF64 (WAV with 64-bit sizes): `code` with its container replaced.
    public static func rf64(formatCode code: Int32) -> Int32 {
        (code & ~Int32(SF_FORMAT_TYPEMASK)) | Int32(SF_FORMAT_RF64)
    }

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
