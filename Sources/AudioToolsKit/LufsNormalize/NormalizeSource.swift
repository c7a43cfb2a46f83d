import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// What lufs-normalize reads and what it writes it as: the decoded input described in
/// libsndfile's terms, the output encoding resolved against it (the input's own unless
/// `--format`, `--bit-depth` or `--sample-rate` ask otherwise) with what that would lose, and the
/// source converted to that encoding's channels and rate.
public struct NormalizeSource {
    /// The decoded input, as the decoder gives it.
    public let input: AudioSource
    public let description: SndfileDescription
    /// The encoding written.
    public let format: LufsNormalizeFormat
    /// The input's tags that the output's container holds.
    public let tags: AudioTags
    /// What writing `format` loses against the input, in words.
    public let losses: [String]
    /// Why `format` is not the one asked for (a WAV too large for its sizes, written as RF64).
    public let sizeNote: String?
    /// `input`, or `input` with fewer channels or at another rate when `format` asks for it.
    public let source: AudioSource
    /// Whether `source` is a conversion of the input (so the record's measurement is not of it).
    public var converted: Bool { source !== input }

    /// The description and tags of an input libsndfile decodes; nil when ffmpeg decodes it.
    public static func sndfileDescription(_ opened: Decoder.Opened) -> (SndfileDescription, AudioTags)? {
        guard let d = opened.sndfile else { return nil }
        return (d, (opened.source as? SndfileSource)?.tags ?? (opened.source as? OpusFileSource)?.tags ?? AudioTags())
    }

    /// The description and tags of an input ffmpeg decodes (MP4, MOV, Matroska, ...), from what
    /// its container said, for writing it into an audio-only format. Without `--format`
    /// (`formatGiven` false) there is no format libsndfile writes that is the input's own: refused.
    public static func ffmpegDescription(_ opened: Decoder.Opened, path: String, formatGiven: Bool) throws -> (SndfileDescription, AudioTags) {
        let facts = opened.facts
        let container = facts?.container ?? "its container"
        let codec = facts?.codec ?? "other"
        // A bare stream (ADTS AAC, say) names its codec as its container too.
        let what = container.caseInsensitiveCompare(codec) == .orderedSame
            ? "a bare \(codec.uppercased()) stream (no container)" : "\(codec.uppercased()) in \(container.uppercased())"
        guard formatGiven else {
            throw ToolError(.unsupportedCodec, "\(ToolError.quoted(path)) is \(what), which can be read but not written back in the same format; nothing was written.",
                            suggestion: "Choose the output format with --format (flac or wav keep everything the decoded audio has).")
        }
        let lossless = ["alac", "pcm", "float", "flac"].contains(codec)
        let description = SndfileDescription(container: container, codec: codec,
                                             bitDepth: lossless ? facts?.audio?.bitsPerSample : nil,
                                             isFloat: codec == "float", isLossy: !lossless, channelNames: opened.speakerNames, formatCode: 0)
        var tags = AudioTags()
        if let t = facts?.tags {
            tags.title = t.title; tags.artist = t.artist; tags.album = t.album; tags.genre = t.genre
            tags.date = t.year; tags.trackNumber = t.track
        }
        return (description, tags)
    }

    /// Resolves the output encoding for `input` (described by `description`, with `tags`) and
    /// converts the source to it; refuses (LufsNormalizeFormat.Problem) an encoding this build
    /// can't write.
    /// `downmix` (`--channels`) comes first; `rate` (`--bit-rate`, `--quality`) is checked against
    /// the output's codec (refused for a lossless one) and carried in `format.rate`.
    public init(input: AudioSource, description: SndfileDescription, tags: AudioTags,
                format: String?, depth: LufsNormalizeFormat.Depth?, sampleRate: Int?,
                downmix: Downmix? = nil, rate: LossyRate? = nil, path: String = "") throws {
        let inFormat = input.format
        var source: AudioSource = input
        if let downmix { source = DownmixSource(input, downmix: downmix) }
        var resolved = try LufsNormalizeFormat.resolve(input: description, inputRate: inFormat.sampleRate,
                                                       inputChannels: source.format.channelCount, tags: tags,
                                                       format: format, depth: depth, sampleRate: sampleRate)
        if let downmix { resolved.losses.insert(DownmixWords.loss(downmix), at: 0) }
        var out = resolved.format
        if let rate {
            let codec = out.isLossy ? LossyRate.Codec(codec: out.codec) : nil
            if let p = rate.check(codec, losslessName: out.displayName, sampleRate: out.sampleRate, channels: out.channelCount) {
                throw p.toolError(path: path)
            }
            out.rate = rate
        }
        if out.channelCount < source.format.channelCount {
            source = ChannelSubsetSource(source, channelCount: out.channelCount)
        }
        if out.sampleRate != inFormat.sampleRate {
            source = try ResampledSource(source, toRate: out.sampleRate, quality: .best)
        }
        // The size is known before anything is written: too large for the container is refused here.
        let fitted = try OutputSizeLimit.fit(out, frames: source.format.frameCount)
        out = fitted.format
        self.sizeNote = fitted.note
        self.input = input
        self.description = description
        self.format = out
        self.tags = resolved.tags
        self.losses = resolved.losses
        self.source = source
    }
}

extension NormalizeSource {
    /// The source's loudness: `recorded` (the record's measurement of the input) when it is of
    /// this very stream, else measured here in a pass of its own; also read when a report
    /// (`forReport`) must draw the source and the record's `loudness` has no timeline of it.
    /// The source is back at its first frame afterwards.
    /// `speech`: a detector fed the same pass when the file is measured here (a dialogue-gated
    /// target with no record to take it from); its dialogue loudness is returned beside.
    public func measurement(recorded: (integrated: Double?, truePeak: Double?)?, loudness: JSON?, weights: [Double],
                     forReport: Bool, speech: SpeechDetector? = nil) throws
        -> (measured: (integrated: Double?, truePeak: Double?), here: Bool, timeline: LoudnessTimeline?, passes: Int, notes: [String],
            dialogue: DialogueLoudness?) {
        var notes: [String] = []
        let rate = format.sampleRate
        if recorded != nil, converted {
            notes.append("The record's measurement is of the input as it is; the converted stream (\(rate) Hz, \(format.channelCount) channel\(format.channelCount == 1 ? "" : "s")) was measured again here.")
        }
        // The report draws the source from the record's timeline when it has one (lufs-measure --timeline).
        let timeline = !forReport || converted ? nil : LoudnessTimeline(loudness: loudness).flatMap { $0.sampleRate == rate ? $0 : nil }
        guard recorded == nil || converted || (forReport && timeline == nil) else {
            return (recorded!, false, timeline, 0, notes, nil)
        }
        let meter = LoudnessMeter(sampleRate: rate, weights: weights, collectsTimeline: forReport)
        let listening = recorded == nil ? speech : nil
        try Decoder.forEachBlock(source) { meter.add($0); try listening?.add($0) }
        try source.seek(toFrame: 0)
        let m = meter.finish()
        var dialogue: DialogueLoudness? = nil
        if let listening {
            let spans = DialogueSpans.spans(probabilities: try listening.finish(), chunkSeconds: SpeechDetector.chunkSeconds,
                                            durationSeconds: m.seconds)
            dialogue = DialogueLoudness(blocks: meter.blocks, spans: spans, durationSeconds: m.seconds,
                                        minimumShare: DialogueLoudness.defaultMinimumShare)
        }
        if recorded == nil || converted {
            return ((m.integratedLUFS, m.truePeakDBTP), true, meter.timeline, 1, notes, dialogue)
        }
        notes.append("The source was read once more to draw it in the report (--report).")
        return (recorded!, false, meter.timeline, 1, notes, nil)
    }
}
