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
                for p in paths { _ = PathBytes.unlink(p) }
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

/// Writes audio through libsndfile atomically (see AtomicOutput): into a file that has no name
/// until `commit` links it into place complete, so an interrupted or killed run leaves nothing in
/// the output folder. Without `overwrite`, an existing destination is refused (`exists`) and the
/// final link is exclusive, so a file that appears meanwhile is not replaced either.
public final class SndfileSink: AudioSink {
    public let path: String
    public let channelCount: Int
    private let output: AtomicOutput
    private var handle: OpaquePointer?
    private var interleaved: [Float] = []
    public private(set) var framesWritten = 0

    /// `formatCode` is a libsndfile format (major | subtype), e.g. from SndfileDescription.
    public init(path: String, formatCode: Int32, sampleRate: Int, channelCount: Int,
                overwrite: Bool, tags: AudioTags = AudioTags()) throws {
        self.path = path
        self.channelCount = channelCount
        if !overwrite, PathBytes.exists(path) { throw WriteError(path, .exists) }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = formatCode
        guard sf_format_check(&info) == SF_TRUE else {
            throw WriteError(path, .formatRejected(channels: channelCount, sampleRate: sampleRate))
        }
        output = try AtomicOutput(path: path, overwrite: overwrite)
        SndfileSource.openLock.lock()
        let h = sf_open_fd(output.fd, Int32(SFM_WRITE), &info, 0)
        let err = h == nil ? String(cString: sf_strerror(nil)) : ""
        SndfileSource.openLock.unlock()
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
        errno = 0
        let w = interleaved.withUnsafeBufferPointer { sf_writef_float(h, $0.baseAddress, sf_count_t(n)) }
        if w != n {
            let e = errno
            let libsndfile = e != 0 ? "" : String(cString: sf_strerror(h))
            abandon()
            throw WriteError(path, .incomplete(errno: e, libsndfile: libsndfile))
        }
        framesWritten += n
    }

    public func commit() throws {
        guard let h = handle else { return }
        sf_write_sync(h)
        errno = 0
        let closeStatus = sf_close(h)
        handle = nil
        guard closeStatus == 0 else {
            let e = errno
            output.abandon()
            throw WriteError(path, .unfinished(errno: e))
        }
        try output.commit()
    }

    public func abandon() {
        if let h = handle { sf_close(h); handle = nil }
        output.abandon()
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

extension SndfileSink {
    /// Records the loudspeaker of each channel in the file (a WAVE_FORMAT_EXTENSIBLE channel
    /// mask, a CAF/AIFF channel layout), so a later measurement weighs the channels alike. Call
    /// before `commit`. A layout the format's map can't state exactly (wides, top-middle pair,
    /// LFE2, a back pair without a side pair...) is written as no map at all, rather than the
    /// default for the channel count, which would claim positions the audio doesn't have.
    public func setSpeakers(_ roles: [ChannelRole]) {
        guard let h = handle, roles.count == channelCount, channelCount > 0 else { return }
        var codes = Self.channelMapCodes(roles) ?? [Int32](repeating: Int32(SF_CHANNEL_MAP_INVALID), count: channelCount)
        _ = sf_command(h, Int32(SFC_SET_CHANNEL_MAP_INFO), &codes, Int32(codes.count * MemoryLayout<Int32>.size))
    }

    /// libsndfile's channel-map codes for `roles`, by the WAVE mask's conventions (its "back"
    /// pair is the 5.1 surround pair unless a side pair is there too); nil if any has none.
    static func channelMapCodes(_ roles: [ChannelRole]) -> [Int32]? {
        let sidePair = roles.contains(.leftSideSurround) || roles.contains(.rightSideSurround)
        var codes: [Int32] = []
        for r in roles {
            let code: Int
            switch r {
            case .mono: code = SF_CHANNEL_MAP_MONO
            case .left: code = SF_CHANNEL_MAP_LEFT
            case .right: code = SF_CHANNEL_MAP_RIGHT
            case .centre: code = SF_CHANNEL_MAP_CENTER
            case .lfe: code = SF_CHANNEL_MAP_LFE
            case .leftCentre: code = SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER
            case .rightCentre: code = SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER
            case .backCentre: code = SF_CHANNEL_MAP_REAR_CENTER
            case .leftSideSurround: code = SF_CHANNEL_MAP_SIDE_LEFT
            case .rightSideSurround: code = SF_CHANNEL_MAP_SIDE_RIGHT
            case .leftSurround where !sidePair, .leftBack where sidePair: code = SF_CHANNEL_MAP_REAR_LEFT
            case .rightSurround where !sidePair, .rightBack where sidePair: code = SF_CHANNEL_MAP_REAR_RIGHT
            case .topCentre: code = SF_CHANNEL_MAP_TOP_CENTER
            case .topFrontLeft: code = SF_CHANNEL_MAP_TOP_FRONT_LEFT
            case .topFrontRight: code = SF_CHANNEL_MAP_TOP_FRONT_RIGHT
            case .topFrontCentre: code = SF_CHANNEL_MAP_TOP_FRONT_CENTER
            case .topBackLeft: code = SF_CHANNEL_MAP_TOP_REAR_LEFT
            case .topBackRight: code = SF_CHANNEL_MAP_TOP_REAR_RIGHT
            case .topBackCentre: code = SF_CHANNEL_MAP_TOP_REAR_CENTER
            default: return nil
            }
            codes.append(Int32(code))
        }
        return codes
    }
}

extension SndfileSink {
    /// The sentence for `normalized.losses` when a file written in `formatCode` can't record
    /// `layout`, so that a later measurement, guessing from the channel count, would weigh its
    /// channels differently; nil when nothing is lost. WAV, RF64, CAF and AIFF record the
    /// positions (setSpeakers); FLAC, Ogg and the rest don't through libsndfile.
    public static func positionLoss(_ layout: ChannelLayout, formatCode: Int32) -> String? {
        if layout.isDualMono { return nil }
        let major = Int(formatCode) & SF_FORMAT_TYPEMASK
        let keepsMap = [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64, SF_FORMAT_CAF, SF_FORMAT_AIFF].contains(major)
        if keepsMap, channelMapCodes(layout.roles) != nil { return nil }
        let guess = ChannelLayout.standard(channelCount: layout.channelCount)
        if guess.weights == layout.weights { return nil }
        let container: String
        switch major {
        case SF_FORMAT_FLAC: container = "FLAC"
        case SF_FORMAT_OGG: container = "Ogg"
        case SF_FORMAT_W64: container = "W64"
        case SF_FORMAT_MPEG: container = "MP3"
        default: container = keepsMap ? "this format's channel map" : "this format"
        }
        return "the channel positions (\(layout.description)) can't be recorded in \(container), so a later measurement would weigh the channels as \(guess.description) unless given --layout \(layout.description)"
    }
}
