import Foundation
import JSONValue

/// What `--dialogue` found in one input, as the report shows it: dialogue loudness beside the
/// programme's, and the dialogue spans shaded under the curves.
public struct LoudnessReportDialogue: Equatable, Sendable {
    public struct Span: Equatable, Sendable {
        public var from: Double
        public var to: Double
        public init(from: Double, to: Double) { self.from = from; self.to = to }
    }
    /// Dialogue-gated loudness; nil when undefined (no dialogue, or too short).
    public var integratedLUFS: Double?
    /// The fraction of the programme that is dialogue (0–1).
    public var share: Double
    /// The dialogue spans in seconds.
    public var spans: [Span]

    public init(integratedLUFS: Double?, share: Double, spans: [Span]) {
        self.integratedLUFS = integratedLUFS; self.share = share; self.spans = spans
    }

    /// From a record's `loudness.dialogue` object with its `timeline` (the spans); nil without one.
    package init?(_ d: JSON?) {
        guard let d, case .object = d, let share = d["share"]?.doubleValue else { return nil }
        let spans = (d["timeline"]?.arrayValue ?? []).compactMap { s -> Span? in
            guard let a = s.arrayValue, a.count == 2, let f = a[0].doubleValue, let t = a[1].doubleValue, t >= f else { return nil }
            return Span(from: f, to: t)
        }
        self.init(integratedLUFS: d["integrated_lufs"]?.doubleValue, share: share, spans: spans)
    }

    /// "Dialogue −27.0 LUFS (42%)" for the picture's figures: its loudness and share.
    package var figure: String {
        "Dialogue " + (integratedLUFS.map { ReportText.dB($0) + " LUFS" } ?? "undefined") +
            " (" + String(format: "%.0f", share * 100) + "%)"
    }
}

extension LoudnessReportItem {
    /// This item with `loudness.dialogue` (with its spans) shown, when the record has one.
    package func addingDialogue(_ d: JSON?) -> LoudnessReportItem {
        var item = self
        item.dialogue = LoudnessReportDialogue(d)
        return item
    }
}

extension LoudnessPicture {
    package static let dialogueColor = "#2a9d8f"

    /// A translucent band per dialogue span through the loudness lane, under the curves.
    package static func dialogueSpans(_ s: inout SVGBuilder, _ item: LoudnessReportItem, _ x: XScale, top: Double, bottom: Double) {
        guard let d = item.dialogue, !d.spans.isEmpty else { return }
        s.raw("<g id=\"\(s.id("dialogue-spans"))\">\n")
        for sp in d.spans {
            let xa = x(sp.from), xb = max(x(sp.to), xa + 1)
            s.raw("<rect class=\"dialogue\" x=\"\(SVGBuilder.number(xa))\" y=\"\(SVGBuilder.number(top))\" width=\"\(SVGBuilder.number(xb - xa))\" height=\"\(SVGBuilder.number(bottom - top))\" fill=\"\(dialogueColor)\" fill-opacity=\"0.14\" data-from-seconds=\"\(String(format: "%.3f", sp.from))\" data-to-seconds=\"\(String(format: "%.3f", sp.to))\"/>\n")
        }
        s.raw("</g>\n")
    }
}
