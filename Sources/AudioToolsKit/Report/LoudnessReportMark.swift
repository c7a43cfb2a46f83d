import Foundation
import JSONValue

/// A failed QC gate drawn on a file's picture at the time of its fault (a dashed line through both
/// lanes, labelled with the gate's name).
public struct LoudnessReportMark: Equatable, Sendable {
    public var label: String
    public var seconds: Double

    public init(label: String, seconds: Double) {
        self.label = label
        self.seconds = seconds
    }
}

extension LoudnessReportItem {
    /// This item with the failed QC gates of `qc` (the record's `qc` object) added: their reasons
    /// join the verdict's, and those with a time become marks. A passed QC gate is a pass where
    /// there is no loudness gate (the QC gate is then the gate).
    package func addingQC(_ qc: JSON?) -> LoudnessReportItem {
        guard let g = qc?["gate"], let passed = g["pass"]?.boolValue else { return self }
        var item = self
        if passed {
            if item.verdict == .measured { item.verdict = .pass }
            return item
        }
        let reasons = g["reasons"]?.arrayValue?.compactMap(\.stringValue) ?? []
        switch item.verdict {
        case .fail(let r): item.verdict = .fail(r + reasons)
        case .error: break
        default: item.verdict = .fail(reasons)
        }
        item.marks += QCRecord.failures(qc).map { LoudnessReportMark(label: $0.gate, seconds: $0.atSeconds) }
        return item
    }
}

extension LoudnessPicture {
    /// The marks of failed QC gates, over the lanes from `top` to `bottom`.
    package static func marks(_ s: inout SVGBuilder, _ item: LoudnessReportItem, _ x: XScale, top: Double, bottom: Double) {
        guard !item.marks.isEmpty else { return }
        s.raw("<g id=\"\(s.id("qc-failures"))\">\n")
        for m in item.marks {
            let xv = x(m.seconds)
            s.raw("<line class=\"qc-failure\" x1=\"\(SVGBuilder.number(xv))\" y1=\"\(SVGBuilder.number(top))\" x2=\"\(SVGBuilder.number(xv))\" y2=\"\(SVGBuilder.number(bottom))\" stroke=\"\(Color.over)\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\" data-gate=\"\(ReportText.escape(m.label))\" data-seconds=\"\(String(format: "%.3f", m.seconds))\"/>\n")
            s.text(xv + 3, top + 12, m.label, size: 11, fill: Color.over, halo: true)
        }
        s.raw("</g>\n")
    }
}
