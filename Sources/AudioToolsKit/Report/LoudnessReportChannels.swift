import Foundation
import JSONValue

/// One channel's own figures in the report (lufs-measure --per-channel): drawn as a small table
/// under the picture's numbers, a column per channel.
public struct LoudnessReportChannel: Equatable, Sendable {
    /// The channel's position label (`L`, `C`, `LFE`...).
    public var name: String
    public var integratedLUFS: Double?
    public var truePeakDBTP: Double?

    public init(name: String, integratedLUFS: Double?, truePeakDBTP: Double?) {
        self.name = name; self.integratedLUFS = integratedLUFS; self.truePeakDBTP = truePeakDBTP
    }
}

extension LoudnessReportItem {
    /// This item with the record's `loudness.per_channel` shown, when it has one.
    package func addingChannels(_ perChannel: JSON?) -> LoudnessReportItem {
        var item = self
        item.channels = (perChannel?.arrayValue ?? []).map {
            LoudnessReportChannel(name: $0["channel"]?.stringValue ?? "?", integratedLUFS: $0["integrated_lufs"]?.doubleValue,
                                  truePeakDBTP: $0["true_peak_dbtp"]?.doubleValue)
        }
        return item
    }
}

extension LoudnessPicture {
    /// The height the channel table takes in the header (none without channels).
    package static func channelTableHeight(_ item: LoudnessReportItem) -> Double { item.channels.isEmpty ? 0 : 3 * 17 }

    /// The channel table: a row of names, one of integrated loudness, one of true peak, from
    /// `y` (the baseline of the line above) down; at most as many columns as fit the width.
    package static func channelTable(_ s: inout SVGBuilder, _ item: LoudnessReportItem, y: Double) {
        guard !item.channels.isEmpty else { return }
        let labelWidth = 150.0, column = 78.0
        let fitting = max(1, Int((w0 - 32 - labelWidth) / column))
        let shown = Array(item.channels.prefix(fitting))
        s.raw("<g id=\"\(s.id("channels"))\" data-channels=\"\(shown.count)\">\n")
        let rows: [(String, (LoudnessReportChannel) -> String)] = [
            ("Per channel", { $0.name }),
            ("Integrated (LUFS)", { ReportText.dB($0.integratedLUFS) }),
            ("True peak (dBTP)", { ReportText.dB($0.truePeakDBTP) }),
        ]
        for (r, row) in rows.enumerated() {
            let yy = y + 17 * Double(r + 1)
            s.text(16, yy, row.0, size: 12, fill: Color.muted, weight: r == 0 ? "bold" : nil)
            for (k, c) in shown.enumerated() {
                s.text(16 + labelWidth + column * Double(k + 1) - 12, yy, row.1(c), size: 12, fill: Color.text, anchor: "end",
                       weight: r == 0 ? "bold" : nil)
            }
        }
        if item.channels.count > shown.count {
            s.text(w0 - 16, y + 17, "… \(item.channels.count - shown.count) more in the record", size: 12, fill: Color.muted, anchor: "end")
        }
        s.raw("</g>\n")
    }
}
