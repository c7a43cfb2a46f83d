import Foundation

extension LufsMeasure {
    /// The `loudness` of a file: its only stream, the `--stream` one, or its first audio stream
    /// with every audio stream under `streams` when it has more than one.
    func measureStreams(path: String, opened: Decoder.Opened, firstLayout: ChannelLayout,
                        firstNote: String?, firstSource: String,
                        keepFirst: ((LoudnessMeasurement, LoudnessBlocks) -> Void)? = nil) throws -> JSON {
        func first(_ source: AudioSource) throws -> JSON {
            try measure(source, layout: firstLayout, identity: opened.identity, note: firstNote, layoutSource: firstSource,
                        keep: keepFirst)
        }
        guard let streams = try MediaAudioStreams.list(path, opened: opened, needed: stream != nil) else {
            if let n = stream { try MediaAudioStreams.check(n, count: 1, path: path) }
            return try first(opened.source)
        }
        func one(_ k: Int, _ source: AudioSource) throws -> [String: JSON] {
            var o: [String: JSON]
            if k == 0 {
                o = try first(source).objectValue ?? [:]
            } else if let l = layoutOverride, l.roles.count == source.format.channelCount {
                o = try measure(source, layout: l, identity: opened.identity, note: nil, layoutSource: "option").objectValue ?? [:]
            } else {
                // Weighted by the positions ffmpeg decoded for this stream, as the first one is.
                let names = (source as? FFmpegSource)?.channelMask.flatMap {
                    ChannelLayout.speakerNames(waveMask: $0, channelCount: source.format.channelCount)
                }
                let r = ChannelLayout.resolve(speakerNames: names, channelCount: source.format.channelCount)
                o = try measure(source, layout: r.layout, identity: opened.identity, note: r.guessed ? r.layout.guessNote : nil,
                                layoutSource: r.fromFile ? "file" : "channel-count").objectValue ?? [:]
            }
            for (key, v) in MediaAudioStreams.json(streams[k], ordinal: k) { o[key] = v }
            return o
        }
        if let n = stream {
            try MediaAudioStreams.check(n, count: streams.count, path: path)
            let source = n == 0 ? opened.source : try FFmpegSource(path: path, audioStream: n)
            return .object(try one(n, source))
        }
        guard streams.count > 1 else { return try first(opened.source) }
        var all: [[String: JSON]] = [try one(0, opened.source)]
        for k in 1..<streams.count { all.append(try one(k, try FFmpegSource(path: path, audioStream: k))) }
        var first = all[0]
        first["streams"] = .array(all.map { .object($0) })
        return .object(first)
    }
}
