import Foundation

/// The report's `index.html`: a summary line, one table row per input in input order, and every
/// picture below. Self-contained: one inline style sheet, no script, no font or file from the
/// network; the pictures are referred to by relative file name.
public enum LoudnessReportIndex {
    public struct Row: Equatable, Sendable {
        public var item: LoudnessReportItem
        /// The picture's file name in the report folder, nil when none was drawn.
        public var picture: String?
        public init(item: LoudnessReportItem, picture: String?) { self.item = item; self.picture = picture }
    }

    /// `title`: what the report is of ("lufs-measure", "lufs-normalize"); `gate`: the gate in words,
    /// nil without one.
    public static func html(title: String, gate: String?, rows: [Row]) -> String {
        let e = ReportText.escape
        let failed = rows.filter { if case .fail = $0.item.verdict { return true }; return false }.count
        let errors = rows.filter { if case .error = $0.item.verdict { return true }; return false }.count
        var summary: String
        if gate != nil {
            let passed = rows.count - failed - errors
            summary = "\(passed) of \(rows.count) file\(rows.count == 1 ? "" : "s") passed"
            var parts: [String] = []
            if failed > 0 { parts.append("\(failed) failed the gate") }
            if errors > 0 { parts.append("\(errors) could not be measured") }
            if !parts.isEmpty { summary += " (" + parts.joined(separator: ", ") + ")" }
        } else {
            summary = "\(rows.count - errors) of \(rows.count) file\(rows.count == 1 ? "" : "s") measured"
            if errors > 0 { summary += " (\(errors) could not be measured)" }
        }
        var h = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Loudness report: \(e(summary))</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        <header>
        <h1>Loudness report</h1>
        <p class="summary \(failed + errors > 0 ? "bad" : "good")">\(e(summary))</p>
        <p class="meta">\(e(title))\(gate.map { " · gate: " + e($0) } ?? " · no gate (measured only)") · files in input order</p>
        </header>
        <table>
        <thead><tr><th>#</th><th class="file">File</th><th>Verdict</th><th>Integrated<br><small>LUFS</small></th><th>Range<br><small>LU</small></th><th>True peak<br><small>dBTP</small></th><th>Max momentary<br><small>LUFS</small></th><th>Max short-term<br><small>LUFS</small></th></tr></thead>
        <tbody>

        """
        for (n, r) in rows.enumerated() {
            let it = r.item
            var name = r.picture != nil ? "<a href=\"#f\(n + 1)\">\(e(it.name))</a>" : e(it.name)
            name += streamLines(it)
            var verdict = "<span class=\"badge \(it.verdict.cssClass)\">\(it.verdict.word)</span>"
            for reason in it.verdict.reasons { verdict += "<div class=\"reason\">\(e(reason))</div>" }
            func num(_ v: Double?, before: Double? = nil, hasBefore: Bool = false) -> String {
                let now = ReportText.plain(v)
                let cls = v == nil ? " class=\"undefined\"" : ""
                if hasBefore { return "<td\(cls)><span class=\"before\">\(ReportText.plain(before)) →</span> \(now)</td>" }
                return "<td\(cls)>\(now)</td>"
            }
            let normalised = it.source != nil
            h += "<tr class=\"\(it.verdict.cssClass)\"><td class=\"n\">\(n + 1)</td><td class=\"file\">\(name)</td><td>\(verdict)</td>"
            var integrated = num(it.integratedLUFS, before: it.sourceIntegratedLUFS, hasBefore: normalised)
            if let d = it.dialogue {  // --dialogue: dialogue loudness under the programme's
                integrated = String(integrated.dropLast(5)) + "<div class=\"dialogue\">dialogue \(ReportText.plain(d.integratedLUFS))</div></td>"
            }
            h += integrated
            h += num(it.loudnessRangeLU)
            var peak = num(it.truePeakDBTP, before: it.sourceTruePeakDBTP, hasBefore: normalised)
            let overs = it.overs.count
            if overs > 0 {
                peak = String(peak.dropLast(5)) + "<div class=\"reason\">\(overs) over\(overs == 1 ? "" : "s")</div></td>"
            }
            h += peak
            h += num(it.momentaryMaxLUFS) + num(it.shortTermMaxLUFS) + "</tr>\n"
        }
        h += "</tbody>\n</table>\n"
        if rows.contains(where: { $0.item.notes.contains { $0.contains("undefined") } }) {
            h += "<p class=\"meta\">— : undefined (silence, or too short for the window); each picture says why.</p>\n"
        }
        for (n, r) in rows.enumerated() {
            guard let p = r.picture else { continue }
            let height = LoudnessPicture.height(r.item)
            h += "<section id=\"f\(n + 1)\"><h2><span class=\"n\">\(n + 1)</span> \(e(r.item.name))</h2>"
            h += "<a href=\"\(e(pathEscaped(p)))\"><img loading=\"lazy\" src=\"\(e(pathEscaped(p)))\" width=\"\(LoudnessPicture.width)\" height=\"\(height)\" alt=\"Loudness of \(e(r.item.name)) over time: \(r.item.verdict.word)\"></a></section>\n"
        }
        h += "</body>\n</html>\n"
        return h
    }

    /// A file of several audio streams: a line per stream under its name (the row's numbers are
    /// the first stream's), with each further stream's own verdict and reasons.
    package static func streamLines(_ it: LoudnessReportItem) -> String {
        guard !it.streams.isEmpty else { return "" }
        let e = ReportText.escape
        var h = "<div class=\"stream\">\(e(it.streamLabel ?? "stream 0")): this row's numbers and verdict</div>"
        for st in it.streams {
            h += "<div class=\"stream\">\(e(st.streamLabel ?? "")): <span class=\"badge \(st.verdict.cssClass)\">\(st.verdict.word)</span>"
            h += " I \(ReportText.plain(st.integratedLUFS)) LUFS, TP \(ReportText.plain(st.truePeakDBTP)) dBTP"
            if case .fail = st.verdict { h += " (its own, not the file's)" }
            for reason in st.verdict.reasons { h += "<div class=\"reason\">\(e(reason))</div>" }
            h += "</div>"
        }
        return h
    }

    /// A file name as a relative URL (it never contains a slash: the writer makes it).
    package static func pathEscaped(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ":?#[]@"))) ?? name
    }

    package static let style = """
    :root { color-scheme: light; }
    body { font-family: "DejaVu Sans", Verdana, Arial, Helvetica, sans-serif; color: #1c2128; background: #f4f5f7; margin: 24px; }
    header h1 { font-size: 22px; margin: 0 0 6px; }
    .summary { font-size: 18px; font-weight: bold; margin: 0 0 4px; }
    .summary.good { color: #1f8a45; } .summary.bad { color: #c0202f; }
    .meta { color: #5f6873; font-size: 13px; margin: 0 0 16px; }
    table { border-collapse: collapse; background: #fff; font-size: 14px; box-shadow: 0 1px 2px rgba(0,0,0,.08); margin-bottom: 12px; }
    th, td { padding: 7px 12px; border-bottom: 1px solid #e4e7ec; text-align: right; vertical-align: top; }
    th { background: #eef0f3; font-size: 13px; } th small { font-weight: normal; color: #5f6873; }
    th.file, td.file { text-align: left; max-width: 420px; overflow-wrap: anywhere; }
    td.n, th:first-child { color: #5f6873; text-align: right; }
    td:nth-child(3), th:nth-child(3) { text-align: left; }
    td.file { min-width: 16em; }
    td { font-variant-numeric: tabular-nums; }
    td.undefined { color: #9aa1aa; }
    .before { color: #8a929c; font-size: 12px; }
    .dialogue { color: #2a7d72; font-size: 12px; margin-top: 3px; }
    .stream { color: #5f6873; font-size: 12px; margin-top: 3px; }
    .badge { display: inline-block; padding: 1px 8px; border-radius: 4px; color: #fff; font-weight: bold; font-size: 12px; }
    .badge.pass { background: #1f8a45; } .badge.fail, .badge.error { background: #d62839; } .badge.measured { background: #5c6570; }
    tr.fail td, tr.error td { background: #fff5f5; }
    .reason { color: #c0202f; font-size: 12px; margin-top: 3px; max-width: 360px; text-align: left; }
    td > .reason { text-align: inherit; }
    a { color: #1d4f9c; }
    section { margin: 22px 0; }
    section h2 { font-size: 15px; margin: 0 0 6px; overflow-wrap: anywhere; }
    section h2 .n { color: #5f6873; font-weight: normal; }
    section img { display: block; max-width: 100%; height: auto; background: #fff; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
    """
}
