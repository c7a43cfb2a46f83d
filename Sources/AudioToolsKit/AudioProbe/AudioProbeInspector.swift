import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// The one probing routine audio-probe and library-filter share: what a file is (from its bytes),
/// whether it can really be used (decoding its first and last second, a seek rather than a full
/// decode), and the facts a record's `probe` carries, which are kept even when the file is refused.
public enum AudioProbeInspector {
    /// What probing one file found: the `probe` object (nil only when the file couldn't be looked
    /// at at all) and, when the file can't be used, the refusal.
    public struct Report {
        public var probe: JSON?
        public var refusal: ToolError?
    }

    /// Probes `path`. With `deep`, every frame is decoded, so damage between the first and last
    /// second is found too, and `probe.deep` says how far decoding got.
    public static func inspect(path: String, deep: Bool = false) -> Report {
        AllocatorPolicy.reuseFreedMemory()
        var facts = Facts()
        do {
            try run(path: path, deep: deep, into: &facts)
            return Report(probe: facts.json, refusal: nil)
        } catch let e as ToolErrorConvertible {
            return Report(probe: facts.known ? facts.json : nil, refusal: e.toolError(path: path))
        } catch {
            let e = ToolError(.unreadable, "\(ToolError.quoted(path)) couldn't be examined: \(error).",
                              suggestion: "Copy the file to a local folder and pick the copy.")
            return Report(probe: facts.known ? facts.json : nil, refusal: e)
        }
    }

    /// The facts gathered so far; every key is always present in the JSON, null when unknown.
    package struct Facts {
        package var known = false
        package var container: String?
        package var codec: String?
        package var sampleRate: Int?
        package var channels: Int?
        package var layout: String?
        package var frames: Int?
        package var headerSeconds: Double?
        package var bitDepth: Int?
        package var bitRate: Int?
        package var identity: FileIdentity?
        package var hasAudio: Bool?
        package var hasVideo: Bool?
        package var tags = ProbeTags()
        package var protection: Protection?
        package var decoder: String?
        /// How many links an Ogg file chains (1 for a plain one); nil for other files.
        package var links: Int?
        package var contentID: String?
        package var deep: JSON?
        /// How far the file was verified: "structure", "first and last second", "every frame".
        package var checked: String?

        package var json: JSON {
            func s(_ v: String?) -> JSON { v.map { .string($0) } ?? .null }
            func i(_ v: Int?) -> JSON { v.map { .int($0) } ?? .null }
            func b(_ v: Bool?) -> JSON { v.map { .bool($0) } ?? .null }
            var o: [String: JSON] = [
                "container": s(container), "codec": s(codec), "sample_rate": i(sampleRate),
                "channels": i(channels), "layout": s(layout), "frames": i(frames), "bit_depth": i(bitDepth), "bit_rate_bps": i(bitRate),
                "size_bytes": identity.map { .int($0.sizeBytes) } ?? .null,
                "file": identity?.json ?? .null,
                "has_audio": b(hasAudio), "has_video": b(hasVideo), "decoder": s(decoder), "links": i(links),
                "content_id": s(contentID), "checked": s(checked),
                "tags": .object(["title": s(tags.title), "artist": s(tags.artist), "album": s(tags.album),
                                 "genre": s(tags.genre), "year": s(tags.year), "track": s(tags.track)]),
                "protection": protection.map { .object(["scheme": .string($0.scheme), "original_codec": s($0.originalFormat.map { mp4CodecName($0) })]) } ?? .null,
            ]
            if let f = frames, let r = sampleRate, r > 0 {
                o["duration"] = .object(["frames": .int(f), "rate": .int(r)])
                o["duration_seconds"] = .double(Double(f) / Double(r), decimals: 6)
            } else {
                o["duration"] = .null
                o["duration_seconds"] = .optional(headerSeconds, decimals: 3)
            }
            if let d = deep { o["deep"] = d }
            return .object(o)
        }
    }

    package static func run(path: String, deep: Bool, into f: inout Facts) throws {
        // An iCloud placeholder stands for a file that isn't here, whatever its own bytes are.
        if ProbeVerdicts.iCloudPlaceholderName(path) != nil {
            f.identity = try? FileIdentity.of(path)
            f.known = f.identity != nil
            throw ProbeVerdicts.cloudOnly(path: path, size: nil)!
        }
        let identity = try FileIdentity.of(path)
        f.identity = identity
        f.known = true
        if identity.sizeBytes == 0 {
            throw ProbeVerdicts.refusal(for: ContainerFacts(kind: .empty, container: "empty", fileSize: 0), path: path)!
        }
        let bytes = try FileByteSource(path: path)
        let c = try probeContainer(bytes)
        f.container = c.container
        f.codec = c.codec
        f.hasAudio = c.hasAudio
        f.hasVideo = c.hasVideo
        f.tags = c.tags
        f.protection = c.protection
        if let a = c.audio {
            f.sampleRate = a.sampleRate.flatMap { $0 >= 1 && $0 < 10_000_000 ? Int($0.rounded()) : nil }
            f.channels = a.channels.flatMap { $0 > 0 && $0 <= 255 ? $0 : nil }
            f.bitDepth = a.bitsPerSample.flatMap { $0 > 0 && $0 <= 64 ? $0 : nil }
            // Lossy audio has no bit depth: the 16 an MP4 or ASF header states is nominal.
            if let codec = c.codec, !Self.isLossless(codec) { f.bitDepth = nil }
            f.headerSeconds = a.duration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            f.bitRate = a.bitRate.flatMap { $0 > 0 && $0 < 100_000_000 ? $0 : nil }
        }
        // MP4 states the audio track's length in its own timescale: exact frames when that is the rate.
        if let t = c.mp4?.tracks.first(where: { $0.handler == "soun" }), let ts = t.timescale, let d = t.duration,
           let rate = f.sampleRate, Int(ts) == rate, d > 0, d < UInt64(Int.max) {
            f.frames = Int(d)
        }
        if let ch = f.channels { f.layout = layoutName(ChannelLayout.standard(channelCount: ch)) }
        if let refusal = ProbeVerdicts.refusal(for: c, path: path) { throw refusal }
        f.decoder = try Decoder.requireDecoder(path, facts: c).rawValue
        // An MP3 without a stated frame count, or ADTS AAC (which has none): the length is
        // counted frame by frame, not guessed from the first frame's bit rate (or left unknown).
        if c.mpegLengthIsEstimate || c.kind == .adts, let start = c.mpegFirstFrame,
           let n = try ProbeMPEGScan.countSamples(ProbeReader(bytes), from: start, adts: c.kind == .adts) {
            f.frames = n
        }
        // Raw AC-3, E-AC-3 and DTS state no length either: their frame headers are counted.
        if [.ac3, .eac3, .dts].contains(c.kind), let n = try ProbeRawStreams.countSamples(ProbeReader(bytes), kind: c.kind) {
            f.frames = n
        }
        // Ogg Speex states none: its pages' granule positions give it.
        if case .ogg(.speex) = c.kind, let n = try ProbeOggSpeex.countSamples(ProbeReader(bytes)) {
            f.frames = n
        }
        let lossless = Self.isLossless(c.codec ?? "")
        if f.decoder == "ffmpeg", !deep, c.hasAudio == true, !lossless {
            // An external decoder costs a process start per file, most of a probe's time. For lossy
            // audio at import the container's structure is what is checked (the box parser refuses a
            // media box cut off by the end of the file) and the id comes from the bytes, since a
            // lossy encode is its own identity anyway; --deep decodes it all. Lossless audio is
            // decoded so a WAV, FLAC or ALAC copy of the same song gets the same id.
            f.frames = Decoder.statedFrames(c) ?? f.frames
            f.contentID = byteID(bytes)
            f.checked = "structure"
            try checkUnchanged(path, identity)
            return
        }
        let opened = try Decoder.open(path, facts: c, identity: identity, file: bytes)
        let source = opened.source
        let format = source.format
        f.decoder = opened.decoder.rawValue
        f.links = opened.oggLinks
        f.sampleRate = format.sampleRate
        f.channels = format.channelCount
        f.hasAudio = true
        if let d = opened.sndfile {
            if d.codec != "other" { f.codec = d.codec }
            f.bitDepth = d.bitDepth
            if let names = opened.speakerNames, !names.contains("?"),
               let l = try? ChannelLayout.parse(names.joined(separator: ",")), l.channelCount == format.channelCount {
                f.layout = layoutName(l)
            } else {
                f.layout = layoutName(ChannelLayout.standard(channelCount: format.channelCount))
            }
        } else {
            f.layout = layoutName(ChannelLayout.resolve(speakerNames: opened.speakerNames, channelCount: format.channelCount).layout)
            if let codec = f.codec, !Self.isLossless(codec) { f.bitDepth = nil }
        }
        if let n = format.frameCount { f.frames = n }
        // libsndfile's Vorbis (and Opus) seek restarts decoding without the previous block's
        // overlap, so the first frames after it depend on where reading stood before the seek.
        // Their ids have always been made reading the head in whole blocks; they keep being so.
        let exactSeek = !["vorbis", "opus"].contains(opened.sndfile?.codec ?? "") && opened.decoder != .libopusfile
        let (frames, id) = try ProbeEnds.decode(source, path: path, deep: deep, exactSeek: exactSeek, deepReport: &f.deep)
        f.frames = frames
        f.contentID = id
        f.checked = deep ? "every frame" : "first and last second"
        try checkUnchanged(path, identity)
    }

    /// Codecs whose samples are the file's own (PCM, FLAC, ALAC): the ones with a bit depth.
    package static func isLossless(_ codec: String) -> Bool {
        ["alac", "flac", "float"].contains(codec) || codec.hasPrefix("pcm")
    }

    /// A file that changed while it was read can't be trusted: the facts may mix two states.
    package static func checkUnchanged(_ path: String, _ identity: FileIdentity) throws {
        if let now = try? FileIdentity.of(path), now != identity {
            throw ToolError(.unreadable, "\(ToolError.quoted(path)) changed while it was being read.",
                            suggestion: "Wait until the file has finished copying or downloading, then pick it.")
        }
    }

    /// "mono", "stereo", "5.1", "7.1.4"... for the named layouts, else the channel labels ("L,R,C").
    package static func layoutName(_ l: ChannelLayout) -> String {
        l.name ?? l.description
    }

    /// An id for a file whose audio can't be decoded (protected, cloud-only, damaged): a hash of
    /// its size and its first and last 64 KiB, so it too survives renames and moves. Nil when the
    /// file can't be read.
    public static func byteID(path: String) -> String? {
        guard let src = try? FileByteSource(path: path) else { return nil }
        return byteID(src)
    }

    /// As `byteID(path:)`, through a file already open.
    package static func byteID(_ src: FileByteSource) -> String? {
        let span = 65536
        guard let head = try? src.read(at: 0, count: span),
              let tail = try? src.read(at: src.size > UInt64(span) ? src.size - UInt64(span) : 0, count: span) else { return nil }
        var message = Array("audio-tools byte id 1".utf8)
        withUnsafeBytes(of: src.size.littleEndian) { message.append(contentsOf: $0) }
        message += head + tail
        return ContentID.digest(of: message).hex
    }
}
