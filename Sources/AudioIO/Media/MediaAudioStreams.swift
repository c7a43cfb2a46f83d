import Foundation
import JSONValue

/// The audio streams of a file that ffmpeg decodes, for tools that handle each one.
public enum MediaAudioStreams {
    /// The audio streams of `path`, or nil when the file is one stream by nature (libsndfile
    /// formats) or an MP4 whose boxes already say it has one sound track and none is asked for.
    public static func list(_ path: String, opened: Decoder.Opened, needed: Bool) throws -> [MediaStream]? {
        guard opened.decoder == .ffmpeg, !opened.isStreamed else { return nil }
        if !needed, let tracks = opened.facts?.mp4?.tracks, tracks.filter({ $0.handler == "soun" }).count <= 1 { return nil }
        return try opened.mediaProbe().audioStreams
    }

    /// What a record says about audio stream `ordinal` (counted from 0 among the audio streams).
    public static func json(_ s: MediaStream, ordinal: Int) -> [String: JSON] {
        var o: [String: JSON] = ["stream": .int(ordinal), "index": .int(s.index)]
        o["codec"] = s.codec.map { .string($0) } ?? .null
        if let l = s.language { o["language"] = .string(l) }
        if let t = s.title { o["title"] = .string(t) }
        if let c = s.channelLayout { o["channel_layout"] = .string(c) }
        if let b = s.bitRate { o["bit_rate"] = .int(b) }
        return o
    }

    /// Refuses `--stream N` when the file has fewer audio streams.
    public static func check(_ n: Int, count: Int, path: String) throws {
        guard n < count else {
            throw DecodeError(path, .noSuchStream(n, count: count))
        }
    }
}
