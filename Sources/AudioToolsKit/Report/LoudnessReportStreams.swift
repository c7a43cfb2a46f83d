import AudioSignal
import Foundation
import JSONValue

/// A file of several audio streams in the report: every stream is drawn, each in a panel of its
/// own labelled with its ordinal, layout and language, with its own gate verdict and limits.
extension LoudnessReportItem {
    /// The panels of this item's picture: itself, then its file's further audio streams.
    package var panels: [LoudnessReportItem] { [self] + streams }

    /// "stream 1 of 2 · stereo · fra · “Dialogue”" from a stream's object in a record (its
    /// `stream`, `channel_layout` or else `layout`, `language` unless undetermined, `title`);
    /// nil when the object names no stream. `count`: how many audio streams the file has.
    package static func streamLabel(_ s: JSON, count: Int?) -> String? {
        guard let k = s["stream"]?.intValue else { return nil }
        var parts = ["stream \(k)" + (count.map { " of \($0)" } ?? "")]
        if let c = s["channel_layout"]?.stringValue ?? s["layout"]?.stringValue { parts.append(c) }
        if let l = s["language"]?.stringValue, l != "und" { parts.append(l) }
        if let t = s["title"]?.stringValue, !t.isEmpty { parts.append("“" + t + "”") }
        return parts.joined(separator: " · ")
    }

    /// This item (the file's first stream, or the `--stream` one) labelled with its stream, and
    /// a panel for each further stream of `loudness.streams`: its measurement (from
    /// `measurements`, by ordinal) against `gate`, its series and its dialogue from its object.
    /// The file's verdict and exit status stay this stream's, as the record's `loudness` is; each
    /// further panel says its own verdict and that it is not the file's.
    public func addingStreams(_ loudness: JSON, measurements: [Int: LoudnessMeasurement], gate: LoudnessGate?) -> LoudnessReportItem {
        var item = self
        let all = loudness["streams"]?.arrayValue ?? []
        item.streamOrdinal = loudness["stream"]?.intValue
        item.streamLabel = Self.streamLabel(loudness, count: all.count > 1 ? all.count : nil)
        guard all.count > 1 else { return item }
        if gate != nil { item.streamNote = "the file's verdict is this stream's" }
        for s in all.dropFirst() {
            guard let k = s["stream"]?.intValue else { continue }
            var panel: LoudnessReportItem
            if let m = measurements[k] {
                panel = LoudnessReportItem(name: name, measurement: m, timeline: LoudnessTimeline(loudness: s), gate: gate)
                    .addingDialogue(s["dialogue"])
            } else {
                panel = LoudnessReportItem(name: name, verdict: .measured, notes: ["This stream's measurement did not reach the report."])
            }
            panel.streamOrdinal = k
            panel.streamLabel = Self.streamLabel(s, count: all.count) ?? "stream \(k)"
            if gate != nil { panel.streamNote = "this stream's own verdict, not the file's (--stream \(k) gates it)" }
            item.streams.append(panel)
        }
        return item
    }
}
