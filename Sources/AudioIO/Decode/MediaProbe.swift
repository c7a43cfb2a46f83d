import Foundation
import JSONValue

/// One stream of a media file as ffprobe describes it.
public struct MediaStream: Equatable, Sendable {
    /// The stream's index in the container (ffmpeg's `0:N`).
    public var index: Int
    /// "audio", "video", "subtitle", "data" or "attachment".
    public var type: String
    public var codec: String?
    /// The container's four-character code for it ("mp4a", "text", "tmcd"), when it has one.
    public var codecTag: String?
    public var profile: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var channelLayout: String?
    public var bitRate: Int?
    public var sampleFormat: String?
    public var bitsPerRawSample: Int?
    /// The stream's tags (language, title, handler_name, ...).
    public var tags: [String: String]
    /// Disposition flags that are set (default, comment, attached_pic, ...).
    public var disposition: [String]

    public var language: String? { tags["language"].flatMap { $0 == "und" ? nil : $0 } }
    public var title: String? { tags["title"] ?? tags["handler_name"].flatMap { Self.defaultHandlers.contains($0) ? nil : $0 } }
    public var isCoverArt: Bool { disposition.contains("attached_pic") }
    /// Handler names muxers write on their own, which name no one's choice.
    package static let defaultHandlers: Set<String> = ["SoundHandler", "VideoHandler", "SubtitleHandler", "Core Media Audio", "Core Media Video"]
}

/// The streams and container of a media file, from `ffprobe -show_streams -show_format -of json`.
public struct MediaProbe: Equatable, Sendable {
    /// ffprobe's format name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm".
    public var formatName: String
    public var streams: [MediaStream]
    public var chapterCount: Int
    public var durationSeconds: Double?
    /// The container's tags.
    public var tags: [String: String]

    public var audioStreams: [MediaStream] { streams.filter { $0.type == "audio" } }

    /// Whether `s` is the text track an MP4 or MOV keeps its chapters in: ffmpeg lists it as a
    /// data stream, but it is the chapters (`-map_chapters` writes it again), not a stream to copy.
    public func isChapterTrack(_ s: MediaStream) -> Bool {
        formatName.hasPrefix("mov,mp4") && chapterCount > 0 && s.type == "data" && s.codec == "bin_data" && s.codecTag == "text"
    }

    /// The streams a muxer copies or re-encodes: all but the chapter track.
    public var deliveredStreams: [MediaStream] { streams.filter { !isChapterTrack($0) } }

    /// The ffprobe program on PATH, or nil when not installed.
    public static let ffprobePath: String? = FFmpegSource.findProgram("ffprobe")

    /// Probes `path` with ffprobe (a ChildProcess, reaped on every path).
    public static func probe(_ path: String) throws -> MediaProbe {
        guard let ffprobe = ffprobePath else { throw DecodeError(path, .ffprobeMissing) }
        let child: ChildProcess
        do {
            child = try ChildProcess(ffprobe, ["-v", "error", "-show_streams", "-show_format", "-show_chapters", "-of", "json", "file:" + path])
        } catch {
            throw ResourceFailure(path, program: "ffprobe", spawning: error)
        }
        var data = Data()
        while true {
            let chunk = child.readData(upTo: 65536)
            if chunk.isEmpty { break }
            data.append(chunk)
            if data.count > 64 << 20 { break }
        }
        let end = child.wait()
        guard end.status == 0 else {
            let first = end.stderr.split(separator: "\n").first.map(String.init) ?? "ffprobe stopped with status \(end.status)"
            throw DecodeError(path, .notMedia(ffprobe: first))
        }
        do {
            return try parse(JSON.parse(String(decoding: data, as: UTF8.self)))
        } catch let e as JSONParseError {
            throw DecodeError(path, .unreadableProbe(reason: "\(e)"))
        }
    }

    /// The probe from ffprobe's JSON.
    public static func parse(_ json: JSON) -> MediaProbe {
        func int(_ v: JSON?) -> Int? { v?.intValue ?? v?.stringValue.flatMap { Int($0) } }
        func tags(_ v: JSON?) -> [String: String] {
            var t: [String: String] = [:]
            for (k, v) in v?.objectValue ?? [:] { if let s = v.stringValue { t[k] = s } }
            return t
        }
        let streams: [MediaStream] = (json["streams"]?.arrayValue ?? []).map { s in
            let disp = (s["disposition"]?.objectValue ?? [:]).filter { $0.value.intValue == 1 }.map(\.key).sorted()
            var st = tags(s["tags"])
            // Matroska states the bit rate as a tag.
            let bps = int(s["bit_rate"]) ?? st["BPS"].flatMap { Int($0) } ?? st["BPS-eng"].flatMap { Int($0) }
            if st["language"] == nil, let l = st["LANGUAGE"] { st["language"] = l }
            return MediaStream(index: int(s["index"]) ?? 0, type: s["codec_type"]?.stringValue ?? "data",
                               codec: s["codec_name"]?.stringValue, codecTag: s["codec_tag_string"]?.stringValue, profile: s["profile"]?.stringValue,
                               sampleRate: int(s["sample_rate"]), channels: int(s["channels"]),
                               channelLayout: s["channel_layout"]?.stringValue, bitRate: bps,
                               sampleFormat: s["sample_fmt"]?.stringValue, bitsPerRawSample: int(s["bits_per_raw_sample"]),
                               tags: st, disposition: disp)
        }
        let f = json["format"]
        return MediaProbe(formatName: f?["format_name"]?.stringValue ?? "", streams: streams,
                          chapterCount: json["chapters"]?.arrayValue?.count ?? 0,
                          durationSeconds: f?["duration"]?.stringValue.flatMap { Double($0) },
                          tags: tags(f?["tags"]))
    }
}
