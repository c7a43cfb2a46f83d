import AudioSignal
import COpusFile
import CSndfile
import Foundation

/// Decodes Opus in Ogg with libopusfile, the reference decoder: pre-skip and end trimming as
/// RFC 7845 says, every link of a chained file, mapping families 0, 1 and 255, and the header's
/// output gain applied (libopusfile's default). It reads through a duplicate of the descriptor
/// the input was opened with, so the path is opened once. Output is always 48 kHz float.
public final class OpusFileSource: AudioSource {
    public let path: String
    public let format: AudioFormat
    /// The first link's channel mapping family (0 mono/stereo, 1 Vorbis order, 255 unordered).
    public let mappingFamily: Int
    /// The output gain the header asks for, in dB (Q7.8 in the file), applied to the samples.
    public let outputGainDB: Double
    /// How many links (logical streams one after another) the file chains.
    public let linkCount: Int
    private var handle: OpaquePointer?
    /// The decode callback's state (nil when libopusfile decodes every packet itself).
    package let direct: OpusDirectDecode?
    private var interleaved: [Float] = []
    private var framesRead = 0

    /// The sample rate libopusfile always decodes to.
    public static let rate = 48000

    /// Opens `path` through a duplicate of `file`'s descriptor (or by name without one).
    /// `directDecode` false leaves every packet to libopusfile's own call (tests compare the two).
    package init(path: String, file: FileByteSource?, directDecode: Bool = true) throws {
        self.path = path
        var cb = OpusFileCallbacks()
        var stream: UnsafeMutableRawPointer?
        if let file {
            let fd = file.duplicateDescriptor()
            if fd >= 0 {
                stream = op_fdopen(&cb, fd, "rb")
                if stream == nil { close(fd) }
            }
        } else {
            stream = PathBytes.withCString(path) { op_fopen(&cb, $0, "rb") }
        }
        guard let stream else { throw DecodeError(path, .damagedHeader(libsndfile: "the file could not be opened")) }
        if let file {
            do { try Self.checkStart(file, path: path) } catch { _ = cb.close?(stream); throw error }
        }
        var err: Int32 = 0
        guard let h = op_open_callbacks(stream, &cb, nil, 0, &err) else {
            _ = cb.close?(stream)
            throw DecodeError(path, OpusFileSource.openFailure(err))
        }
        handle = h
        let links = Int(op_link_count(h))
        linkCount = links
        direct = directDecode ? OpusDirectDecode(handle: h, linkCount: links) : nil
        let first = op_head(h, 0)!.pointee
        mappingFamily = Int(first.mapping_family)
        outputGainDB = Double(first.output_gain) / 256
        let channels = Int(first.channel_count)
        for li in 1..<max(links, 1) {
            let c = Int(op_head(h, Int32(li))!.pointee.channel_count)
            if c != channels {
                op_free(h); handle = nil
                throw DecodeError(path, .linksDiffer(link: li + 1, what: "\(c) channels where the first link has \(channels)"))
            }
        }
        let total = op_pcm_total(h, -1)
        format = AudioFormat(sampleRate: OpusFileSource.rate, channelCount: channels, frameCount: total >= 0 ? Int(total) : nil)
    }

    deinit { if let handle { op_free(handle) } }

    /// The first link's Vorbis comments, as libsndfile's reader gives them for other formats.
    public var tags: AudioTags {
        var t = AudioTags()
        guard let h = handle, let tags = op_tags(h, 0) else { return t }
        func get(_ name: String) -> String? {
            guard let p = opus_tags_query(tags, name, 0) else { return nil }
            let v = String(cString: p)
            return v.isEmpty ? nil : v
        }
        t.title = get("TITLE"); t.artist = get("ARTIST"); t.album = get("ALBUM"); t.genre = get("GENRE")
        t.date = get("DATE"); t.comment = get("COMMENT") ?? get("DESCRIPTION"); t.trackNumber = get("TRACKNUMBER")
        t.copyright = get("COPYRIGHT"); t.software = get("ENCODER")
        return t
    }

    /// How records and writers describe an Ogg Opus input (as libsndfile described it before,
    /// so lufs-normalize writes Opus back as Opus): float samples from a lossy codec.
    package var sndfileDescription: SndfileDescription {
        SndfileDescription(container: "ogg", codec: "opus", bitDepth: nil, isFloat: false, isLossy: true,
                           channelNames: nil, formatCode: Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS))
    }

    /// Opus costs as much to decode as the rest of a measurement: read ahead on its own thread.
    public var decodesCheaply: Bool { false }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        guard let h = handle else { return 0 }
        let ch = format.channelCount
        if block.channels.count != ch { block.channels = Array(repeating: [], count: ch) }
        for c in 0..<ch where block.channels[c].count < maxFrames {
            block.channels[c] = [Float](repeating: 0, count: maxFrames)
        }
        if interleaved.count < maxFrames * ch { interleaved = [Float](repeating: 0, count: maxFrames * ch) }
        let n = try fill(h, frames: maxFrames)
        if n > 0 {
            interleaved.withUnsafeBufferPointer { SndfileSource.deinterleave($0.baseAddress!, frames: n, into: &block.channels) }
        }
        block.frames = n
        framesRead += n
        return n
    }

    /// Fills `interleaved` with up to `frames` frames, reading packets until it is full or the
    /// stream ends (libopusfile keeps what a packet decodes beyond the room given for the next
    /// call). A hole (a missing page) in the middle is damage, not silence.
    private func fill(_ h: OpaquePointer, frames: Int) throws -> Int {
        let ch = format.channelCount
        var have = 0
        while have < frames {
            let got = interleaved.withUnsafeMutableBufferPointer { p in
                op_read_float(h, p.baseAddress! + have * ch, Int32((frames - have) * ch), nil)
            }
            if got == 0 { break }
            if got < 0 { throw readFailure(got, at: have) }
            have += Int(got)
        }
        return have
    }

    private func readFailure(_ code: Int32, at offset: Int) -> DecodeError {
        let why = code == OP_HOLE ? "a page is missing (a hole in the stream)" : OpusFileSource.describe(code)
        return DecodeError(path, .damagedStream(frames: framesRead + offset, why: why))
    }

    public func seek(toFrame frame: Int) throws {
        guard let h = handle else { return }
        if op_pcm_seek(h, ogg_int64_t(frame)) != 0 { throw DecodeError(path, .cannotSeek(frame: frame)) }
        framesRead = frame
    }

    /// Bytes at the start of the file in which the first audio page is looked for: read 16 KiB
    /// first, more only when the headers are larger (cover art in OpusTags), up to 1 MiB.
    package static let startWindows = [1 << 14, 1 << 17, 1 << 20]

    /// libopusfile, like libogg, passes over a page whose checksum is wrong. Later in the stream
    /// that leaves a gap in the page numbers, reported as a hole; but when the damaged page is the
    /// first audio page, the stream simply starts at the next one, a page of audio short, and
    /// nothing would say so. So the Opus stream's pages up to its first audio page are checked
    /// here: each whole, with a right checksum, numbered in order. (A start beyond the window, or
    /// not an Ogg page at all, is left to libopusfile.)
    package static func checkStart(_ file: FileByteSource, path: String) throws {
        for window in startWindows {
            guard let bytes = try? file.read(at: 0, count: window) else { return }
            if try checkStart(bytes, window: window, path: path) || bytes.count < window { return }
        }
    }

    /// `checkStart` within the first `bytes` of the file (as many as `window` asked for, fewer
    /// when the file is shorter): true when it was decided, false when the window cut a page.
    package static func checkStart(_ bytes: [UInt8], window: Int, path: String) throws -> Bool {
        var at = 0, expected: UInt32 = 0
        var serial: UInt32?
        func damaged(_ why: String) -> DecodeError {
            DecodeError(path, .damagedStream(frames: 0, why: "\(why), at byte \(at), at or before the first audio page: decoding would start a page late, its audio dropped"))
        }
        while at < bytes.count {
            guard let h = OggPageHeader(bytes, at: at) else {
                if serial == nil { return true }  // not Ogg from the start: libopusfile's to judge
                if bytes.count == window, at + 27 + 255 > bytes.count { return false }  // a header cut by the window
                throw damaged("a page is damaged (no page starts where the one before ends)")
            }
            let end = at + h.headerLength + h.bodyLength
            // A page cut by the window; or by the end of the file (truncated: libopusfile's to judge).
            guard end <= bytes.count else { return bytes.count < window }
            let sum = OggCRC.checksum(bytes, at..<end, zeroing: at + 22)
            if serial == nil { serial = h.serial }
            if sum != h.checksum { throw damaged("page \(h.sequence) has a wrong checksum") }
            if h.serial == serial {
                if h.sequence != expected { throw damaged("page \(expected) is missing") }
                expected += 1
                // The first audio page whole: the first after the headers (whose granule is 0) on
                // which a packet ends (a granule other than -1).
                if h.sequence >= 2, h.granule != UInt64.max, h.granule != 0 { return true }
            }
            at = end
        }
        return bytes.count < window
    }

    /// What an open failure code means, in the decode error's terms.
    package static func openFailure(_ code: Int32) -> DecodeError.Problem {
        switch code {
        case OP_ENOTFORMAT: return .unrecognisedFormat
        case OP_EVERSION, OP_EIMPL: return .unsupportedEncoding(libsndfile: describe(code))
        default: return .damagedHeader(libsndfile: describe(code))
        }
    }

    package static func describe(_ code: Int32) -> String {
        switch code {
        case OP_EREAD: return "a read failed"
        case OP_EFAULT: return "the decoder failed (out of memory or an internal error)"
        case OP_EIMPL: return "it uses a feature the decoder doesn't implement"
        case OP_ENOTFORMAT: return "it is not Opus in Ogg"
        case OP_EBADHEADER: return "its Opus header is malformed"
        case OP_EVERSION: return "its Opus header has an unknown version"
        case OP_EBADLINK: return "a link of the stream is missing or damaged"
        case OP_EBADPACKET: return "an audio packet is damaged"
        case OP_EBADTIMESTAMP: return "its granule positions are invalid"
        case OP_HOLE: return "a page is missing (a hole in the stream)"
        default: return "libopusfile error \(code)"
        }
    }
}
