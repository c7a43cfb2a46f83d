import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// lufs-normalize's write-back of a media file: the streams chosen and their encodings checked
/// against what the options allow, each stream's recorded measurement taken when it is current,
/// MediaNormalization run, and the record's `normalized` written.
package struct MediaFileNormalizer {
    package let settings: MediaNormalization.Settings
    /// The `--stream` ordinal among the audio streams, or nil for all of them.
    package let stream: Int?
    /// Whether --bit-depth or --sample-rate was given, which a write-back can't honour.
    package let convertsFormat: Bool
    package let allowLoss: Bool
    package let overwrite: Bool
    package let presetName: String?
    /// `--bit-rate` or `--quality` for every re-encoded stream.
    package var rate: LossyRate? = nil
    /// `--channels` was given: a write-back keeps each stream's channels, so it is refused.
    package var refusesDownmix = false

    /// A media file (MP4, MOV, Matroska) written back in its own container: every audio stream
    /// (or the `--stream` one) normalised from its own measurement and re-encoded in its codec,
    /// everything else copied. Nil when the file is not one MediaMuxer writes back.
    /// `m4a` ("m4a" or "alac"): an audio-only M4A of the first (or `--stream`) audio stream,
    /// with the file's tags and cover art, from any input.
    package func process(_ record: Record, path: String, outPath: String, opened: Decoder.Opened, m4a: String? = nil) throws -> Record? {
        let name = ToolError.quoted(path)
        let probe = try opened.mediaProbe()
        guard let muxer = m4a != nil ? "ipod" : MediaContainer.muxer(formatName: probe.formatName, path: outPath) else { return nil }
        let audio = probe.audioStreams
        guard !audio.isEmpty else {
            throw ToolError(.noAudio, "\(name) doesn't contain any audio.", suggestion: "Pick a file with a sound track.")
        }
        if let n = stream { try MediaAudioStreams.check(n, count: audio.count, path: path) }
        if refusesDownmix {
            throw ToolError(.unsupportedCodec, "\(name) is written back in its own container with each audio stream's own channels, so --channels can't downmix it; nothing was written.",
                            suggestion: "Leave out --channels, or choose an audio-only --format (flac, wav, mp3, ogg or opus) to downmix.")
        }
        if m4a == nil, convertsFormat {
            throw ToolError(.unsupportedCodec, "\(name) is written back in its own container with its audio's own sample rate and depth, so --bit-depth and --sample-rate can't apply; nothing was written.",
                            suggestion: "Leave them out, or choose an audio-only --format (flac or wav) to convert.")
        }
        let chosen = stream.map { [$0] } ?? (m4a != nil ? [0] : Array(audio.indices))
        // An M4A holds the chosen audio stream and the cover art; anything else is left out.
        var delivered = probe.deliveredStreams
        var losses: [String] = []
        if m4a != nil {
            let keep = Set(chosen.map { audio[$0].index })
            delivered = delivered.filter { keep.contains($0.index) || $0.isCoverArt }
            let left = probe.deliveredStreams.count - delivered.count
            if left > 0 { losses.append("\(left) stream\(left == 1 ? "" : "s") left out (\(m4a!) holds one audio stream and cover art)") }
        }

        // What each stream is re-encoded as, and what that loses.
        let chosenEncodings = try MediaAudioEncoding.choose(for: chosen, of: audio, m4a: m4a, rate: rate)
        let encodings = chosenEncodings.encodings
        losses += chosenEncodings.losses
        if settings.peakMode == .ignore, let k = chosen.first(where: { encodings[$0]!.encoder.hasPrefix("pcm_f") == false }) {
            throw ToolError(.lossy, "\(name) would be written with \(encodings[k]!.displayName) audio, which can't hold the peaks --peak ignore lets through; nothing was written.",
                            suggestion: "Use --peak limit or --peak reduce.")
        }
        if !losses.isEmpty, !allowLoss {
            let codecs = Set(chosen.compactMap { encodings[$0]!.isLossy ? encodings[$0]!.displayName : nil }).sorted().joined(separator: " and ")
            let what = m4a != nil ? "Writing \(name) as \(m4a!) would lose information" : "Normalising \(name) means re-encoding its \(codecs) audio, a generation loss"
            throw ToolError(.lossy, "\(what) (\(losses.joined(separator: "; "))); nothing was written.",
                            suggestion: "Pass --allow-loss to go ahead (the loss is then listed in normalized.losses), or --format flac or wav for a lossless audio-only file."
                                + LosslessGainJob.hint(record, path: path, targetLUFS: settings.targetLUFS, ceilingDBTP: settings.ceilingDBTP))
        }

        // Each stream's measurement: the record's when it is of this file as it is now.
        let loudness = record["loudness"]
        let run = try MediaNormalization.run(path: path, probe: probe, delivered: delivered, chosen: chosen, encodings: encodings, given: { k, e in
            let entry = RecordedLoudness.stream(loudness, ordinal: k)
            var layout = ChannelLayout.standard(channelCount: e.channels)
            var stated = false
            if let s = entry?["layout"]?.stringValue, let l = try? ChannelLayout.parse(s), l.roles.count == e.channels { layout = l; stated = true }
            var measured: (integrated: Double?, truePeak: Double?)? = nil
            if let l = entry, let lufs = l["integrated_lufs"], try RecordedLoudness.currency(l, identity: opened.identity, path: path) == .current {
                measured = (lufs.doubleValue, l["true_peak_dbtp"]?.doubleValue)
            }
            return MediaNormalization.Given(layout: layout, measured: measured, layoutStated: stated)
        }, muxer: muxer, destination: outPath, overwrite: overwrite, settings: settings,
           opened: MediaDecoderHandOff(opened.source))
        let o = MediaNormalizedRecord.json(run, probe: probe, audio: audio, delivered: delivered.count, chosen: chosen,
                                           encodings: encodings, muxer: muxer, outPath: outPath, losses: losses,
                                           settings: settings, presetName: presetName, listsStreams: stream != nil)
        var r = record
        r["normalized"] = .object(o)
        return r
    }
}
