import Foundation
import JSONValue

/// What `--dialogue` found in one input, as the report shows it: dialogue loudness beside the
/// programme's, and the dialogue spans shaded under the curves, darker the surer the detector was.
public struct LoudnessReportDialogue: Equatable, Sendable {
    public struct Span: Equatable, Sendable {
        public var from: Double
        public var to: Double
        /// The detector's mean probability of speech over the span (0–1); nil when the record has none.
        public var meanProbability: Double?
        public init(from: Double, to: Double, meanProbability: Double? = nil) {
            self.from = from; self.to = to; self.meanProbability = meanProbability
        }
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

    /// From a record's `loudness.dialogue` object with its `timeline` (the spans) and
    /// `timeline_mean_probability` (how sure the detector was of each); nil without one.
    package init?(_ d: JSON?) {
        guard let d, case .object = d, let share = d["share"]?.doubleValue else { return nil }
        let pairs = d["timeline"]?.arrayValue ?? []
        let means = d["timeline_mean_probability"]?.arrayValue.flatMap { $0.count == pairs.count ? $0 : nil }
        let spans = pairs.enumerated().compactMap { k, s -> Span? in
            guard let a = s.arrayValue, a.count == 2, let f = a[0].doubleValue, let t = a[1].doubleValue, t >= f else { return nil }
            return Span(from: f, to: t, meanProbability: means?[k].doubleValue)
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
    /// A span's shade when the record gives no probability for it.
    package static let dialogueFlatOpacity = 0.14

    /// A span's shade from the detector's mean probability over it: faint where it was unsure,
    /// dark where it was sure. The square spreads apart the shades of the spans that were
    /// dialogue on real programmes (0.69–0.90) and of the music or effects taken for it (0.17–0.38).
    package static func dialogueOpacity(_ p: Double?) -> Double {
        guard let p else { return dialogueFlatOpacity }
        let c = min(1, max(0, p))
        return ((0.05 + 0.3 * c * c) * 1000).rounded() / 1000
    }

    /// Whether the spans carry the detector's probabilities (then the legend explains the shade).
    package static func dialogueShaded(_ item: LoudnessReportItem) -> Bool {
        item.dialogue.map { d in !d.spans.isEmpty && d.spans.allSatisfy { $0.meanProbability != nil } } == true
    }

    /// A translucent band per dialogue span through the loudness lane, under the curves, as opaque
    /// as the detector was sure of it; hovering one names its times and probability.
    package static func dialogueSpans(_ s: inout SVGBuilder, _ item: LoudnessReportItem, _ x: XScale, top: Double, bottom: Double) {
        guard let d = item.dialogue, !d.spans.isEmpty else { return }
        s.raw("<g id=\"\(s.id("dialogue-spans"))\">\n")
        for sp in d.spans {
            let xa = x(sp.from), xb = max(x(sp.to), xa + 1)
            let from = String(format: "%.3f", sp.from), to = String(format: "%.3f", sp.to)
            var rect = "<rect class=\"dialogue\" x=\"\(SVGBuilder.number(xa))\" y=\"\(SVGBuilder.number(top))\" width=\"\(SVGBuilder.number(xb - xa))\" height=\"\(SVGBuilder.number(bottom - top))\" fill=\"\(dialogueColor)\" fill-opacity=\"\(dialogueOpacity(sp.meanProbability))\" data-from-seconds=\"\(from)\" data-to-seconds=\"\(to)\""
            if let p = sp.meanProbability {
                let mean = String(format: "%.3f", p)
                rect += " data-mean-probability=\"\(mean)\"><title>dialogue \(from)–\(to) s, mean speech probability \(mean)</title></rect>\n"
            } else {
                rect += "/>\n"
            }
            s.raw(rect)
        }
        s.raw("</g>\n")
    }

    /// The legend's second line when the spans are shaded by probability: three sample shades and
    /// what they mean.
    package static func dialogueLegend(_ s: inout SVGBuilder, y: Double) {
        var x = plotLeft
        for p in [0.2, 0.6, 1.0] {
            s.rect(x, y - 9, 22, 10, fill: dialogueColor, opacity: dialogueOpacity(p))
            s.text(x + 26, y, String(format: "%.1f", p), size: 12, fill: Color.muted)
            x += 26 + 3 * 6.7 + 10
        }
        s.text(x + 4, y, "dialogue, shaded by the detector\u{2019}s mean speech probability per span: the paler, the less sure",
               size: 12, fill: Color.muted)
    }
}
