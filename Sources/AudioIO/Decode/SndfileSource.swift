import AudioSignal
import CSndfile
import Foundation

/// What libsndfile says about a file's encoding, in words a record can carry.
public struct SndfileDescription: Equatable, Sendable {
    /// Container: "wav", "aiff", "flac", "ogg", "mp3", "caf", "w64", "rf64", ...
    public var container: String
    /// Codec: "pcm_s16", "pcm_s24", "pcm_f32", "vorbis", "opus", "flac", "mp3", ...
    public var codec: String
    /// Bits per sample for PCM-like codecs, nil for lossy ones.
    public var bitDepth: Int?
    public var isFloat: Bool
    public var isLossy: Bool
    /// Speaker names from the file's channel map, as the WAVE channel mask names them ("FL",
    /// "FR", "FC", "LFE", "BL", "SL", "TFL", ...), when it has one.
    public var channelNames: [String]?
    /// The raw libsndfile format code, so a writer can reproduce the same format.
    public var formatCode: Int32

    /// Each stored property, as the synthesised initializer takes them (callable from the other targets).
    package init(container: String, codec: String, bitDepth: Int? = nil, isFloat: Bool, isLossy: Bool, channelNames: [String]? = nil, formatCode: Int32) {
        self.container = container
        self.codec = codec
        self.bitDepth = bitDepth
        self.isFloat = isFloat
        self.isLossy = isLossy
        self.channelNames = channelNames
        self.formatCode = formatCode
    }
}

/// Decodes a file through libsndfile in blocks (constant memory). libsndfile's error state for a
/// failed open is global, so opens are serialised (`Libsndfile.openLock`).
public final class SndfileSource: AudioSource {
    public let path: String
    public private(set) var format: AudioFormat
    public let description: SndfileDescription
    /// The frames the container states when fewer than the decoder hands out (a WAV `fact`
    /// count before a GSM or ADPCM block's padding): reading stops there.
    private var statedLimit: Int?
    /// libsndfile can't seek in this encoding (GSM 6.10 in WAV): it is only read straight through.
    public let cannotSeek: Bool
    private var handle: OpaquePointer?
    private var interleaved: [Float] = []
    private var framesRead = 0
    /// Frames the header promised when libsndfile clamped them to what the file holds.
    private let promisedFrames: Int?
    /// The byte range read through virtual I/O (one link of a chained Ogg file), kept alive here.
    private var range: SndfileByteRange?

    /// Opens `path`; throws DecodeError (unrecognised, malformed, truncated, ...) naming the file.
    public convenience init(path: String) throws {
        try self.init(path: path, file: nil)
    }

    /// Opens `path` through the descriptor `file` already holds (a duplicate of it, so the path
    /// is not opened again), or by name without one.
    package init(path: String, file: FileByteSource?, range: SndfileByteRange? = nil) throws {
        self.path = path
        self.range = range
        var info = SF_INFO()
        Libsndfile.openLock.lock()
        var h: OpaquePointer?
        // The system's refusal to give a descriptor (EMFILE under a low `ulimit -n`): said as
        // such, not as a damaged header (libsndfile itself then says "No Error").
        var systemErrno: Int32 = 0
        // libmpg123 (libsndfile's MP3 decoder) prints warnings on stderr as it opens a file: they
        // are caught and said by the tool, once per file.
        LibraryMessages.catching(for: path) {
            if let range {
                var io = SndfileByteRange.callbacks
                h = sf_open_virtual(&io, Int32(SFM_READ), &info, range.userData)
            } else if let file {
                let fd = file.duplicateDescriptor()
                if fd < 0 { systemErrno = errno }
                h = fd < 0 ? nil : sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_TRUE))
                // libsndfile knows some headerless formats only by the name's extension, which a
                // descriptor doesn't carry: those are opened by name, as before.
                if h == nil, SndfileSource.namedByExtension(path) {
                    info = SF_INFO()
                    h = PathBytes.withCString(path) { sf_open($0, Int32(SFM_READ), &info) }
                }
            } else {
                h = PathBytes.withCString(path) { sf_open($0, Int32(SFM_READ), &info) }
                if h == nil { systemErrno = errno }
            }
        }
        let openError = h == nil ? String(cString: sf_strerror(nil)) : ""
        Libsndfile.openLock.unlock()
        if h == nil, let r = ResourceFailure(path, errno: systemErrno) { throw r }
        guard let h else { throw DecodeError(path, SndfileSource.openFailure(libsndfile: openError)) }
        handle = h
        if info.samplerate <= 0 || info.samplerate > 768_000 || info.channels <= 0 || info.channels > 64 || info.frames < 0 {
            sf_close(h); handle = nil
            throw DecodeError(path, .impossibleHeader(channels: Int(info.channels), sampleRate: Int(info.samplerate)))
        }
        cannotSeek = info.seekable == 0
        let log = SndfileSource.logInfo(h)
        promisedFrames = SndfileSource.promisedFrames(log: log, channels: Int(info.channels), format: info.format)
        format = AudioFormat(sampleRate: Int(info.samplerate), channelCount: Int(info.channels),
                             frameCount: info.frames == Int64.max ? nil : Int(info.frames))
        description = SndfileSource.describe(h, info: info)
    }

    deinit { if let handle { sf_close(handle) } }

    /// The file's text tags as libsndfile reads them (INFO chunks, Vorbis comments, ID3, ...).
    public var tags: AudioTags {
        var t = AudioTags()
        guard let h = handle else { return t }
        func get(_ id: Int32) -> String? {
            guard let p = sf_get_string(h, id) else { return nil }
            let v = String(cString: p)
            return v.isEmpty ? nil : v
        }
        t.title = get(Int32(SF_STR_TITLE)); t.artist = get(Int32(SF_STR_ARTIST))
        t.album = get(Int32(SF_STR_ALBUM)); t.genre = get(Int32(SF_STR_GENRE))
        t.date = get(Int32(SF_STR_DATE)); t.comment = get(Int32(SF_STR_COMMENT))
        t.trackNumber = get(Int32(SF_STR_TRACKNUMBER)); t.copyright = get(Int32(SF_STR_COPYRIGHT))
        t.software = get(Int32(SF_STR_SOFTWARE))
        return t
    }

    /// Reads no further than `frames`, the length the container states, when the decoder would
    /// give more by less than a block (the padding that fills a compressed format's last block:
    /// 320 frames for GSM, at most a few thousand for ADPCM). A count short by more is not a
    /// block's padding but a wrong header, and nothing is cut by it.
    package func stopAtStatedLength(_ frames: Int) {
        guard frames > 0, let n = format.frameCount, frames < n, n - frames < 8192 else { return }
        statedLimit = frames
        format.frameCount = frames
    }

    /// `maxFrames`, no further than the stated length.
    private func allowed(_ maxFrames: Int) -> Int {
        guard let limit = statedLimit else { return maxFrames }
        return max(0, min(maxFrames, limit - framesRead))
    }

    /// True when the header promised more audio than the file holds (a cut-off download).
    public var isTruncatedByHeader: Bool { promisedFrames.map { $0 > (format.frameCount ?? 0) } ?? false }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        guard let h = handle else { return 0 }
        let ch = format.channelCount
        if interleaved.count < maxFrames * ch { interleaved = [Float](repeating: 0, count: maxFrames * ch) }
        let want = allowed(maxFrames)
        let n = want == 0 ? 0 : Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_float(h, $0.baseAddress, sf_count_t(want)) })
        if block.channels.count != ch { block.channels = Array(repeating: [], count: ch) }
        for c in 0..<ch where block.channels[c].count < maxFrames {
            block.channels[c] = [Float](repeating: 0, count: maxFrames)
        }
        try checkRead(h, n)
        if n > 0 {
            interleaved.withUnsafeBufferPointer { Self.deinterleave($0.baseAddress!, frames: n, into: &block.channels) }
            if description.isFloat { try checkFinite(block, frames: n) }
        }
        block.frames = max(n, 0)
        return try finishRead(n)
    }

    /// Splits `frames` interleaved frames into the channel arrays. Stereo, the common case, reads
    /// each frame once and writes both channels in the same pass.
    package static func deinterleave(_ src: UnsafePointer<Float>, frames n: Int, into channels: inout [[Float]]) {
        let ch = channels.count
        if ch == 2 {
            channels.withUnsafeMutableBufferPointer { both in
                both[0].withUnsafeMutableBufferPointer { l in
                    both[1].withUnsafeMutableBufferPointer { r in
                        let l = l.baseAddress!, r = r.baseAddress!
                        // Eight frames at a time: one load, the two channels as its even and odd lanes.
                        var i = 0
                        while i + 8 <= n {
                            let v = UnsafeRawPointer(src + 2 * i).loadUnaligned(as: SIMD16<Float>.self)
                            UnsafeMutableRawPointer(l + i).storeBytes(of: v.evenHalf, as: SIMD8<Float>.self)
                            UnsafeMutableRawPointer(r + i).storeBytes(of: v.oddHalf, as: SIMD8<Float>.self)
                            i += 8
                        }
                        while i < n { l[i] = src[2 * i]; r[i] = src[2 * i + 1]; i += 1 }
                    }
                }
            }
            return
        }
        for c in 0..<ch {
            channels[c].withUnsafeMutableBufferPointer { dst in
                var s = c
                for i in 0..<n { dst[i] = src[s]; s += ch }
            }
        }
    }

    /// Integer or float PCM; FLAC, Vorbis, MP3 and the ADPCMs cost several times more to decode.
    public var decodesCheaply: Bool {
        description.isFloat || description.codec.hasPrefix("pcm_")
    }

    /// Whether `readInterleaved(into:)` with 16-bit words gives the file's samples exactly:
    /// 16-bit integer PCM or FLAC, whose float samples are these words × 2⁻¹⁵.
    public var hasExact16BitSamples: Bool {
        description.bitDepth == 16 && !description.isFloat && !description.isLossy
            && (description.codec == "pcm_s16" || description.codec == "flac")
    }

    /// As `read(into:maxFrames:)`, in the decoder's own interleaved layout: `buffer` has room
    /// for `maxFrames` × channels samples. For readers that hash or copy frames as they come.
    public func readInterleaved(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        guard let h = handle else { return 0 }
        let want = allowed(maxFrames)
        let n = want == 0 ? 0 : Int(sf_readf_float(h, buffer, sf_count_t(want)))
        try checkRead(h, n)
        if n > 0, description.isFloat { try checkFinite(interleaved: buffer, frames: n) }
        return try finishRead(n)
    }

    /// As above, as 16-bit integers; only where `hasExact16BitSamples`.
    public func readInterleaved(into buffer: UnsafeMutablePointer<Int16>, maxFrames: Int) throws -> Int {
        precondition(hasExact16BitSamples, "16-bit reads of a file that isn't 16-bit would round")
        guard let h = handle else { return 0 }
        let want = allowed(maxFrames)
        let n = want == 0 ? 0 : Int(sf_readf_short(h, buffer, sf_count_t(want)))
        try checkRead(h, n)
        return try finishRead(n)
    }

    /// A decoder error during a read is a damaged or cut-off file.
    private func checkRead(_ h: OpaquePointer, _ n: Int) throws {
        // An error once every promised frame is in is about bytes after the audio (an ID3v1 tag
        // appended to a FLAC file): nothing is missing.
        if sf_error(h) != 0, let total = format.frameCount, total > 0, framesRead + max(n, 0) >= total { return }
        if sf_error(h) != 0 {
            throw DecodeError(path, .damagedAfter(frames: framesRead + max(n, 0), libsndfile: String(cString: sf_strerror(h))))
        }
    }

    /// Counts what a read gave; at the end, checks the header's promise was kept.
    private func finishRead(_ n: Int) throws -> Int {
        framesRead += max(n, 0)
        if n <= 0 { try checkComplete() }
        return max(n, 0)
    }

    public func seek(toFrame frame: Int) throws {
        guard let h = handle else { return }
        if sf_seek(h, sf_count_t(frame), SEEK_SET) < 0 {
            throw DecodeError(path, .cannotSeek(frame: frame))
        }
        framesRead = frame
    }

    /// A file shorter than its header promised is refused, never measured as if complete.
    private func checkComplete() throws {
        let expected = promisedFrames ?? format.frameCount
        if let e = expected, framesRead < e {
            throw DecodeError(path, .cutOff(promised: e, read: framesRead))
        }
    }

    /// `checkFinite` over interleaved samples, reporting the same sample (the first in the
    /// lowest channel that has one).
    private func checkFinite(interleaved p: UnsafePointer<Float>, frames: Int) throws {
        let ch = format.channelCount
        var i = 0
        while i < frames * ch, p[i].isFinite { i += 1 }
        guard i < frames * ch else { return }
        var block = AudioBlock(channelCount: ch, capacity: frames)
        for c in 0..<ch { for f in 0..<frames { block.channels[c][f] = p[f * ch + c] } }
        try checkFinite(block, frames: frames)
    }

    private func checkFinite(_ block: AudioBlock, frames: Int) throws {
        for c in 0..<block.channels.count {
            let bad: Int? = block.channels[c].withUnsafeBufferPointer { p in
                var i = 0
                while i < frames {
                    if !p[i].isFinite { return i }
                    i += 1
                }
                return nil
            }
            if let i = bad {
                throw DecodeError(path, .nonFiniteSample(channel: c, frame: framesRead + i))
            }
        }
    }

    // MARK: helpers

    /// Extensions libsndfile reads a format from when the bytes don't say (its
    /// `format_from_extension`: raw µ-law, VOX ADPCM and GSM, and MPEG audio without a header).
    package static func namedByExtension(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return ["au", "snd", "vox", "vox8", "vox6", "gsm", "mp3"].contains(path[path.index(after: dot)...].lowercased())
    }

    /// What libsndfile's message for a failed open says went wrong.
    package static func openFailure(libsndfile: String) -> DecodeError.Problem {
        let lower = libsndfile.lowercased()
        if lower.contains("not recognised") || lower.contains("unknown format") || lower.contains("not recognized") {
            return .unrecognisedFormat
        }
        if lower.contains("unsupported") || lower.contains("codec") || lower.contains("encoding") {
            return .unsupportedEncoding(libsndfile: libsndfile)
        }
        if lower.contains("permission") {
            return .permissionDenied(libsndfile: libsndfile)
        }
        return .damagedHeader(libsndfile: libsndfile)
    }

    package static func logInfo(_ h: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 16384)
        _ = sf_command(h, Int32(SFC_GET_LOG_INFO), &buf, Int32(buf.count))
        return String(cString: buf)
    }

    /// libsndfile clamps a data chunk that runs past the end of the file and notes it in its
    /// log as "data : 864000 (should be 299920)"; read the promised length back from there.
    package static func promisedFrames(log: String, channels: Int, format: Int32) -> Int? {
        // Nearly every log has no such note: don't split and trim it line by line then.
        guard log.contains("should be") else { return nil }
        for line in log.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("data") || t.hasPrefix("SSND"), t.contains("should be") else { continue }
            let parts = t.split(whereSeparator: { !$0.isNumber })
            guard parts.count >= 2, let promised = Int(parts[0]), let actual = Int(parts[1]), promised > actual else { continue }
            let bytesPerSample: Int
            switch Int(format) & SF_FORMAT_SUBMASK {
            case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_ULAW, SF_FORMAT_ALAW: bytesPerSample = 1
            case SF_FORMAT_PCM_16: bytesPerSample = 2
            case SF_FORMAT_PCM_24: bytesPerSample = 3
            case SF_FORMAT_PCM_32, SF_FORMAT_FLOAT: bytesPerSample = 4
            case SF_FORMAT_DOUBLE: bytesPerSample = 8
            default: return Int.max // compressed: promised more than present, frames unknown
            }
            return promised / (bytesPerSample * channels)
        }
        return nil
    }

    package static func describe(_ h: OpaquePointer, info: SF_INFO) -> SndfileDescription {
        let major = Int(info.format) & SF_FORMAT_TYPEMASK
        let sub = Int(info.format) & SF_FORMAT_SUBMASK
        let container: String
        switch major {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX: container = "wav"
        case SF_FORMAT_AIFF: container = "aiff"
        case SF_FORMAT_AU: container = "au"
        case SF_FORMAT_RAW: container = "raw"
        case SF_FORMAT_W64: container = "w64"
        case SF_FORMAT_RF64: container = "rf64"
        case SF_FORMAT_FLAC: container = "flac"
        case SF_FORMAT_OGG: container = "ogg"
        case SF_FORMAT_CAF: container = "caf"
        case SF_FORMAT_MPEG: container = "mp3"
        case SF_FORMAT_SD2: container = "sd2"
        default: container = "other"
        }
        var codec: String
        var depth: Int?
        var isFloat = false
        var lossy = false
        switch sub {
        case SF_FORMAT_PCM_S8: codec = "pcm_s8"; depth = 8
        case SF_FORMAT_PCM_U8: codec = "pcm_u8"; depth = 8
        case SF_FORMAT_PCM_16: codec = "pcm_s16"; depth = 16
        case SF_FORMAT_PCM_24: codec = "pcm_s24"; depth = 24
        case SF_FORMAT_PCM_32: codec = "pcm_s32"; depth = 32
        case SF_FORMAT_FLOAT: codec = "pcm_f32"; depth = 32; isFloat = true
        case SF_FORMAT_DOUBLE: codec = "pcm_f64"; depth = 64; isFloat = true
        case SF_FORMAT_ULAW: codec = "pcm_mulaw"; depth = 8; lossy = true
        case SF_FORMAT_ALAW: codec = "pcm_alaw"; depth = 8; lossy = true
        case SF_FORMAT_VORBIS: codec = "vorbis"; lossy = true
        case SF_FORMAT_OPUS: codec = "opus"; lossy = true
        case SF_FORMAT_MPEG_LAYER_III: codec = "mp3"; lossy = true
        case SF_FORMAT_MPEG_LAYER_II: codec = "mp2"; lossy = true
        case SF_FORMAT_MPEG_LAYER_I: codec = "mp1"; lossy = true
        case SF_FORMAT_ALAC_16: codec = "alac"; depth = 16
        case SF_FORMAT_ALAC_20: codec = "alac"; depth = 20
        case SF_FORMAT_ALAC_24: codec = "alac"; depth = 24
        case SF_FORMAT_ALAC_32: codec = "alac"; depth = 32
        // ffmpeg's names, as every record spells codecs.
        case SF_FORMAT_IMA_ADPCM: codec = "adpcm_ima_wav"; lossy = true
        case SF_FORMAT_MS_ADPCM: codec = "adpcm_ms"; lossy = true
        case SF_FORMAT_G721_32, SF_FORMAT_G723_24: codec = "adpcm_g726"; lossy = true
        case SF_FORMAT_GSM610: codec = major == SF_FORMAT_WAV || major == SF_FORMAT_WAVEX ? "gsm_ms" : "gsm"; lossy = true
        default: codec = "other"
        }
        if major == SF_FORMAT_FLAC {
            codec = "flac"
        }
        var names: [String]?
        let ch = Int(info.channels)
        var map = [Int32](repeating: 0, count: ch)
        if sf_command(h, Int32(SFC_GET_CHANNEL_MAP_INFO), &map, Int32(ch * MemoryLayout<Int32>.size)) == Int32(SF_TRUE) {
            names = map.map(channelName)
        }
        return SndfileDescription(container: container, codec: codec, bitDepth: depth, isFloat: isFloat,
                                  isLossy: lossy, channelNames: names, formatCode: info.format)
    }

    /// A libsndfile channel-map code as the WAVE channel mask (and ffmpeg) names the speaker;
    /// ChannelLayout reads these names by the mask's conventions. "?" for none of them.
    package static func channelName(_ code: Int32) -> String {
        switch Int(code) {
        case SF_CHANNEL_MAP_MONO: return "M"
        case SF_CHANNEL_MAP_LEFT, SF_CHANNEL_MAP_FRONT_LEFT: return "FL"
        case SF_CHANNEL_MAP_RIGHT, SF_CHANNEL_MAP_FRONT_RIGHT: return "FR"
        case SF_CHANNEL_MAP_CENTER, SF_CHANNEL_MAP_FRONT_CENTER: return "FC"
        case SF_CHANNEL_MAP_LFE: return "LFE"
        case SF_CHANNEL_MAP_SIDE_LEFT: return "SL"
        case SF_CHANNEL_MAP_SIDE_RIGHT: return "SR"
        case SF_CHANNEL_MAP_REAR_LEFT: return "BL"
        case SF_CHANNEL_MAP_REAR_RIGHT: return "BR"
        case SF_CHANNEL_MAP_REAR_CENTER: return "BC"
        case SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER: return "FLC"
        case SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER: return "FRC"
        case SF_CHANNEL_MAP_TOP_CENTER: return "TC"
        case SF_CHANNEL_MAP_TOP_FRONT_LEFT: return "TFL"
        case SF_CHANNEL_MAP_TOP_FRONT_RIGHT: return "TFR"
        case SF_CHANNEL_MAP_TOP_FRONT_CENTER: return "TFC"
        case SF_CHANNEL_MAP_TOP_REAR_LEFT: return "TBL"
        case SF_CHANNEL_MAP_TOP_REAR_RIGHT: return "TBR"
        case SF_CHANNEL_MAP_TOP_REAR_CENTER: return "TBC"
        default: return "?"
        }
    }
}
