import AudioSignal
import Foundation
import JSONValue

/// lufs-measure --per-channel: `loudness.per_channel`, each channel measured as a programme of
/// its own (weight 1.0) with its true peak, named by its position in the layout.
package enum PerChannelRecord {
    /// `loudness` with `per_channel` (one entry per channel, in channel order) and a note in
    /// `notes` for each channel figure that is null; `loudness` as it was without channels.
    package static func adding(_ channels: [ChannelLoudness]?, layout: ChannelLayout, to loudness: JSON) -> JSON {
        guard let channels, case .object(var o) = loudness else { return loudness }
        let names = channels.indices.map { c in c < layout.roles.count ? layout.roles[c].label : "?" }
        o["per_channel"] = .array(zip(names, channels).map { name, ch in
            .object([
                "channel": .string(name),
                "integrated_lufs": .optional(ch.integratedLUFS, decimals: 2),
                "true_peak_dbtp": .optional(ch.truePeakDBTP, decimals: 2),
            ])
        })
        var notes = o["notes"]?.arrayValue ?? []
        for (c, ch) in channels.enumerated() where !ch.undefined.isEmpty {
            notes.append(.string(PerChannelSentences.note(ch.undefined, channel: names[c], ordinal: c + 1, of: channels.count)))
        }
        o["notes"] = .array(notes)
        return .object(o)
    }
}
