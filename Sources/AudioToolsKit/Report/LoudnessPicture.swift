import AudioSignal
import Foundation

/// Draws one input's loudness over time as a self-contained SVG: momentary and short-term
/// loudness with the integrated level, the target band and the loudness range; true peak in its
/// own lane with the ceiling and every stretch over it marked. Long inputs are reduced to the
/// minimum and maximum of each pixel column, so no peak is dropped and the picture stays small.
public enum LoudnessPicture {
    public static let width = 1000
    package static let plotLeft = 60.0
    package static let plotRight = 868.0
    package static let loudnessHeight = 250.0
    package static let peakHeight = 84.0
    package static let laneGap = 30.0
    package static let font = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

    package enum Color {
        package static let momentary = "#f29d38"
        package static let shortTerm = "#1d4f9c"
        package static let integrated = "#111418"
        package static let target = "#1f8a45"
        package static let range = "#6f8fcf"
        package static let over = "#d62839"
        package static let peak = "#6b7787"
        package static let before = "#a3abb5"
        package static let grid = "#e4e7ec"
        package static let axis = "#5c6570"
        package static let text = "#1c2128"
        package static let muted = "#5f6873"
    }

    /// The picture's height for an item (the header grows with its reasons and notes; a file of
    /// several audio streams has a panel per stream, one under the other).
    public static func height(_ item: LoudnessReportItem) -> Int {
        Int(item.panels.map { layout($0).height }.reduce(0, +))
    }

    package struct Layout {
        package var headerLines: [(text: String, color: String)]
        package var loudnessTop: Double
        package var peakTop: Double
        package var height: Double
    }

    package static func layout(_ item: LoudnessReportItem) -> Layout {
        var lines: [(String, String)] = item.verdict.reasons.map { ($0, Color.over) }
        lines += item.notes.map { ($0, Color.muted) }
        if lines.count > 5 { lines = Array(lines.prefix(4)) + [("… and \(lines.count - 4) more (see the record's notes)", Color.muted)] }
        if let l = item.streamLabel { lines.insert((l + (item.streamNote.map { " — " + $0 } ?? ""), Color.text), at: 0) }
        let headerBottom = 74.0 + 17.0 * Double(lines.count) + channelTableHeight(item)
        let loudnessTop = headerBottom + 14
        let peakTop = loudnessTop + loudnessHeight + laneGap
        // A second legend line says what the dialogue spans' shades mean.
        let height = peakTop + peakHeight + 62 + (dialogueShaded(item) ? 18 : 0)
        return Layout(headerLines: lines, loudnessTop: loudnessTop, peakTop: peakTop, height: height)
    }

    /// The SVG text of the picture.
    public static func svg(_ item: LoudnessReportItem) -> String {
        let panels = item.panels
        let heights = panels.map { layout($0).height }
        let w = Double(width), h = heights.reduce(0, +)
        var s = SVGBuilder()
        let duration = item.timeline?.seconds ?? 0
        s.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(Int(h))\" viewBox=\"0 0 \(width) \(Int(h))\" font-family=\"\(font)\" data-duration-seconds=\"\(String(format: "%.3f", duration))\">\n")
        s.raw("<title>\(ReportText.escape(item.name)): \(item.verdict.word)</title>\n")
        s.rect(0, 0, w, h, fill: "#ffffff")
        if panels.count == 1 {
            panel(&s, item, span: nil)
        } else {
            // One panel per audio stream, on one time axis (the longest stream's), each in a group
            // that names its stream; the ids of the panels after the first carry "stream-N-".
            let span = panels.compactMap { $0.timeline?.seconds }.max()
            var top = 0.0
            for (k, p) in panels.enumerated() {
                let n = p.streamOrdinal ?? k
                s.idPrefix = k == 0 ? "" : "stream-\(n)-"
                s.raw("<g class=\"stream\" data-stream=\"\(n)\" data-label=\"\(ReportText.escape(p.streamLabel ?? ""))\"" + (k == 0 ? "" : " transform=\"translate(0 \(f(top)))\"") + ">\n")
                if k > 0 { s.line(16, 1, w - 16, 1, stroke: Color.axis, width: 1) }
                panel(&s, p, span: span)
                s.raw("</g>\n")
                top += heights[k]
            }
        }
        s.raw("</svg>\n")
        return s.out
    }

    /// One measurement's picture (header, lanes, labels, legend) from y = 0, its layout's height
    /// tall; `span`: the time axis's length when several panels share it (else the timeline's).
    package static func panel(_ s: inout SVGBuilder, _ item: LoudnessReportItem, span: Double?) {
        let lay = layout(item)
        let h = lay.height
        header(&s, item, lay)
        guard let t = item.timeline, t.frames > 0 else {
            s.text(plotLeft, lay.loudnessTop + 40, "Nothing was measured, so there is nothing to draw.", size: 14, fill: Color.muted)
            return
        }
        let seconds = span ?? t.seconds
        let x = XScale(duration: seconds, left: plotLeft, right: plotRight)
        let ly = loudnessScale(item, t)
        let lane = (top: lay.loudnessTop, bottom: lay.loudnessTop + loudnessHeight)
        let peakLane = (top: lay.peakTop, bottom: lay.peakTop + peakHeight)
        let py = peakScale(item, t)

        // Backgrounds and grids.
        s.rect(plotLeft, lane.top, plotRight - plotLeft, loudnessHeight, fill: "#fafbfc", stroke: Color.grid, id: "loudness-lane")
        s.rect(plotLeft, peakLane.top, plotRight - plotLeft, peakHeight, fill: "#fafbfc", stroke: Color.grid, id: "peak-lane")
        let ticks = timeTicks(seconds)
        for tk in ticks {
            let xv = x(tk)
            s.line(xv, lane.top, xv, lane.bottom, stroke: Color.grid)
            s.line(xv, peakLane.top, xv, peakLane.bottom, stroke: Color.grid)
        }
        for v in ly.ticks {
            let yv = ly(v)
            s.line(plotLeft, yv, plotRight, yv, stroke: Color.grid)
            s.text(plotLeft - 6, yv + 4, ReportText.dB(v).replacingOccurrences(of: ".0", with: ""), size: 11, fill: Color.axis, anchor: "end")
        }
        for v in py.ticks {
            let yv = py(v)
            s.line(plotLeft, yv, plotRight, yv, stroke: Color.grid)
            s.text(plotLeft - 6, yv + 4, ReportText.dB(v).replacingOccurrences(of: ".0", with: ""), size: 11, fill: Color.axis, anchor: "end")
        }
        s.text(16, lane.top + loudnessHeight / 2, "LUFS", size: 12, fill: Color.axis, anchor: "middle",
               transform: "rotate(-90 16 \(f(lane.top + loudnessHeight / 2)))")
        s.text(16, peakLane.top + peakHeight / 2, "dBTP", size: 12, fill: Color.axis, anchor: "middle",
               transform: "rotate(-90 16 \(f(peakLane.top + peakHeight / 2)))")
        let hours = seconds >= 3600
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        for tk in ticks {
            s.text(x(tk), peakLane.bottom + 16, ReportText.time(tk, tenths: step < 1, hours: hours), size: 11, fill: Color.axis, anchor: "middle")
        }

        s.raw("<defs><clipPath id=\"\(s.id("clip-loudness"))\"><rect x=\"\(f(plotLeft))\" y=\"\(f(lane.top))\" width=\"\(f(plotRight - plotLeft))\" height=\"\(f(loudnessHeight))\"/></clipPath>")
        s.raw("<clipPath id=\"\(s.id("clip-peak"))\"><rect x=\"\(f(plotLeft))\" y=\"\(f(peakLane.top))\" width=\"\(f(plotRight - plotLeft))\" height=\"\(f(peakHeight))\"/></clipPath></defs>\n")
        // Bands and levels, under the curves.
        s.raw("<g clip-path=\"url(#\(s.id("clip-loudness")))\">\n")
        if let lo = t.rangeLowLUFS, let hi = t.rangeHighLUFS {
            s.rect(plotLeft, ly(hi), plotRight - plotLeft, max(1, ly(lo) - ly(hi)), fill: Color.range, opacity: 0.13, id: "range-band")
        }
        if let target = item.targetLUFS {
            let tol = item.toleranceLU ?? 0
            if tol > 0 {
                s.rect(plotLeft, ly(target + tol), plotRight - plotLeft, max(1, ly(target - tol) - ly(target + tol)),
                       fill: Color.target, opacity: 0.16, id: "target-band")
            }
            s.line(plotLeft, ly(target), plotRight, ly(target), stroke: Color.target, width: 1.5, dash: "6 4", id: "target")
        }
        s.raw("</g>\n")
        dialogueSpans(&s, item, x, top: lane.top, bottom: lane.bottom)

        // Overs: a red band through both lanes, at least 2 px wide so a single one always shows.
        let overs = item.overs
        if !overs.isEmpty {
            s.raw("<g id=\"\(s.id("overs"))\">\n")
            // Overs closer than 3 px are drawn as one, so a long file over the ceiling all the
            // time stays a small picture (the caption still counts every stretch).
            var groups: [(start: Double, end: Double, peakDBTP: Double)] = []
            for o in overs {
                if let last = groups.last, x(o.start) - x(last.end) < 3 {
                    groups[groups.count - 1] = (last.start, o.end, max(last.peakDBTP, o.peakDBTP))
                } else {
                    groups.append(o)
                }
            }
            for o in groups {
                let xa = x(o.start), xb = max(x(o.end), xa + 2)
                s.raw("<rect class=\"over\" x=\"\(f(xa))\" y=\"\(f(lane.top))\" width=\"\(f(xb - xa))\" height=\"\(f(peakLane.bottom - lane.top))\" fill=\"\(Color.over)\" fill-opacity=\"0.16\" data-start-seconds=\"\(String(format: "%.1f", o.start))\" data-end-seconds=\"\(String(format: "%.1f", o.end))\" data-peak-dbtp=\"\(String(format: "%.2f", o.peakDBTP))\"/>\n")
                let cx = (xa + xb) / 2
                s.raw("<path d=\"M\(f(cx - 6)) \(f(lane.top - 10))h12l-6 9z\" fill=\"\(Color.over)\"/>\n")
            }
            s.raw("</g>\n")
        }
        marks(&s, item, x, top: lane.top, bottom: peakLane.bottom)

        if let i = item.integratedLUFS, i >= ly.bottom, i <= ly.top {
            s.line(plotLeft, ly(i), plotRight, ly(i), stroke: Color.integrated, width: 1.4, id: "integrated")
            // Off target: an arrow from the target to the programme level, with the distance.
            if let target = item.targetLUFS, abs(i - target) > (item.toleranceLU ?? 0) + LoudnessGate.slack {
                let xa = plotRight - 16, y0 = ly(target), y1 = ly(i)
                let dir: Double = y1 > y0 ? 1 : -1
                s.raw("<g id=\"\(s.id("off-target"))\" stroke=\"\(Color.over)\" fill=\"\(Color.over)\">")
                s.raw("<line x1=\"\(f(xa))\" y1=\"\(f(y0))\" x2=\"\(f(xa))\" y2=\"\(f(y1 - dir * 6))\" stroke-width=\"2\"/>")
                s.raw("<path d=\"M\(f(xa - 5)) \(f(y1 - dir * 7))h10l-5 \(f(dir * 7))z\" stroke=\"none\"/></g>\n")
                s.text(xa - 6, (y0 + y1) / 2 + 4, ReportText.signed(i - target) + " LU", size: 12, fill: Color.over, anchor: "end",
                       weight: "bold", halo: true)
            }
        }

        // Curves: the source (before) under the output, momentary under short-term.
        s.raw("<g clip-path=\"url(#\(s.id("clip-loudness")))\" fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n")
        if let src = item.source {
            let xs = XScale(duration: max(src.seconds, seconds), left: plotLeft, right: plotRight)
            s.path(curve(src.shortTermLUFS, src, xs, ly, floor: lane.bottom), stroke: Color.before, width: 1.6, id: "source-short-term")
        }
        s.path(curve(t.momentaryLUFS, t, x, ly, floor: lane.bottom), stroke: Color.momentary, width: 1, id: "momentary")
        s.path(curve(t.shortTermLUFS, t, x, ly, floor: lane.bottom), stroke: Color.shortTerm, width: 2.2, id: "short-term")
        s.raw("</g>\n")
        // Short-term and momentary limits: a line each, and the curve above it drawn again in red.
        for l in item.loudnessLimits where l.limit >= ly.bottom && l.limit <= ly.top {
            let clip = "above-\(l.id)-limit"
            s.raw("<clipPath id=\"\(s.id(clip))\"><rect x=\"\(f(plotLeft))\" y=\"\(f(lane.top))\" width=\"\(f(plotRight - plotLeft))\" height=\"\(f(max(0, ly(l.limit) - lane.top)))\"/></clipPath>\n")
            // Only the stretches over the limit (with a neighbour each side, so the clip cuts
            // the crossings where they are).
            let over = l.series.indices.map { i -> Double? in
                let near = l.series[max(0, i - 1)...min(l.series.count - 1, i + 1)]
                return near.contains { ($0 ?? -.infinity) > l.limit } ? l.series[i] : nil
            }
            if over.contains(where: { $0 != nil }) {
                s.raw("<g clip-path=\"url(#\(s.id(clip)))\" fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n")
                s.path(curve(over, t, x, ly, floor: lane.bottom), stroke: Color.over, width: l.id == "short-term" ? 2.6 : 1.4, id: "\(l.id)-over-limit")
                s.raw("</g>\n")
            }
            s.line(plotLeft, ly(l.limit), plotRight, ly(l.limit), stroke: Color.over, width: 1.2, dash: "2 3", id: "\(l.id)-limit")
        }
        // Peak lane: the per-column maximum as a step area; above the ceiling in red.
        s.raw("<g clip-path=\"url(#\(s.id("clip-peak")))\">\n")
        if let src = item.source {
            let xs = XScale(duration: max(src.seconds, seconds), left: plotLeft, right: plotRight)
            s.path(peakArea(src, xs, py, bottom: peakLane.bottom, close: false), stroke: Color.before, width: 1.2, fill: "none", id: "source-true-peak")
        }
        let area = peakArea(t, x, py, bottom: peakLane.bottom, close: true)
        s.path(area, fill: Color.peak, opacity: 0.75, id: "true-peak")
        if let c = item.ceilingDBTP, !overs.isEmpty {
            s.raw("<clipPath id=\"\(s.id("above-ceiling"))\"><rect x=\"\(f(plotLeft))\" y=\"\(f(peakLane.top))\" width=\"\(f(plotRight - plotLeft))\" height=\"\(f(max(0, py(c) - peakLane.top)))\"/></clipPath>\n")
            s.raw("<path d=\"\(area)\" fill=\"\(Color.over)\" clip-path=\"url(#\(s.id("above-ceiling")))\"/>\n")
        }
        s.raw("</g>\n")
        if let c = item.ceilingDBTP {
            s.line(plotLeft, py(c), plotRight, py(c), stroke: Color.over, width: 1.4, dash: "5 3", id: "ceiling")
        }

        // Labels in the right margin, spread so they never overlap.
        var labels: [(y: Double, text: String, color: String, bold: Bool)] = []
        if let i = item.integratedLUFS, i >= ly.bottom, i <= ly.top {
            labels.append((ly(i), "I " + ReportText.dB(i), Color.integrated, true))
        }
        if let d = item.dialogue?.integratedLUFS, d >= ly.bottom, d <= ly.top {
            s.line(plotLeft, ly(d), plotRight, ly(d), stroke: dialogueColor, width: 1.4, dash: "4 3", id: "dialogue-integrated")
            labels.append((ly(d), "D " + ReportText.dB(d), dialogueColor, true))
        }
        if let target = item.targetLUFS, target >= ly.bottom, target <= ly.top {
            let tol = item.toleranceLU ?? 0
            labels.append((ly(target), "target " + ReportText.dB(target).replacingOccurrences(of: ".0", with: "") +
                           (tol > 0 ? " ±" + ReportText.dB(tol).replacingOccurrences(of: ".0", with: "") : ""), Color.target, false))
        }
        if let lo = t.rangeLowLUFS, let hi = t.rangeHighLUFS, let lra = item.loudnessRangeLU {
            let xb = plotRight + 6
            s.line(xb, ly(hi), xb, ly(lo), stroke: Color.range, width: 3)
            labels.append(((ly(hi) + ly(lo)) / 2, "LRA " + ReportText.dB(lra) + " LU", Color.range, false))
        }
        for l in item.loudnessLimits where l.limit >= ly.bottom && l.limit <= ly.top {
            labels.append((ly(l.limit), l.label + " " + ReportText.dB(l.limit).replacingOccurrences(of: ".0", with: ""), Color.over, false))
        }
        spread(&labels, minGap: 15, top: lane.top + 8, bottom: lane.bottom - 2)
        for l in labels { s.text(plotRight + 14, l.y + 4, l.text, size: 12, fill: l.color, weight: l.bold ? "bold" : nil) }
        if let c = item.ceilingDBTP {
            s.text(plotRight + 14, py(c) + 4, "ceiling " + ReportText.dB(c).replacingOccurrences(of: ".0", with: ""), size: 12, fill: Color.over)
        }
        if let tp = item.truePeakDBTP {
            s.text(plotRight + 14, peakLane.bottom - 4, "max " + ReportText.dB(tp) + " dBTP", size: 12, fill: Color.peak)
        }

        // What could not be drawn, said in words where the curve would be.
        let empty = emptyMessage(t)
        if let m = empty.loudness {
            s.text((plotLeft + plotRight) / 2, lane.top + loudnessHeight / 2, m, size: 14, fill: Color.muted, anchor: "middle")
        }
        if let m = empty.peak {
            s.text((plotLeft + plotRight) / 2, peakLane.top + peakHeight / 2 + 5, m, size: 13, fill: Color.muted, anchor: "middle")
        }
        lanesCaptions(&s, item, overs, lane: lane, peakLane: peakLane)
        if dialogueShaded(item) {
            legend(&s, item, y: h - 32)
            dialogueLegend(&s, y: h - 14)
        } else {
            legend(&s, item, y: h - 14)
        }
    }

    // MARK: parts

    package static func header(_ s: inout SVGBuilder, _ item: LoudnessReportItem, _ lay: Layout) {
        let badge: String
        switch item.verdict {
        case .pass: badge = Color.target
        case .fail, .error: badge = Color.over
        case .measured: badge = Color.axis
        }
        let word = item.verdict.word
        let bw = Double(word.count) * 9.5 + 18
        s.rect(16, 12, bw, 26, fill: badge, rx: 4)
        s.text(16 + bw / 2, 30, word, size: 14, fill: "#ffffff", anchor: "middle", weight: "bold")
        s.text(16 + bw + 12, 31, ReportText.shortened(item.name, to: Int((w0 - 16 - bw - 24) / 9.2)), size: 17, fill: Color.text, weight: "bold")
        func value(_ v: Double?, _ unit: String) -> String { v.map { ReportText.dB($0) + " " + unit } ?? "undefined" }
        var parts: [String] = []
        if item.source != nil {
            parts.append("Integrated " + ReportText.dB(item.sourceIntegratedLUFS) + " → " + value(item.integratedLUFS, "LUFS"))
            parts.append("True peak " + ReportText.dB(item.sourceTruePeakDBTP) + " → " + value(item.truePeakDBTP, "dBTP"))
            if let c = item.caption { parts.append(c) }
        } else {
            parts.append("Integrated " + value(item.integratedLUFS, "LUFS"))
            if let d = item.dialogue { parts.append(d.figure) }
            parts.append("Range " + value(item.loudnessRangeLU, "LU"))
            parts.append("True peak " + value(item.truePeakDBTP, "dBTP"))
            parts.append("Max momentary " + value(item.momentaryMaxLUFS, "LUFS"))
            parts.append("Max short-term " + value(item.shortTermMaxLUFS, "LUFS"))
            if let c = item.caption { parts.append(c) }
        }
        s.text(16, 60, parts.joined(separator: "   ·   "), size: 13, fill: Color.text)
        var y = 60.0
        for l in lay.headerLines {
            y += 17
            s.text(16, y, ReportText.shortened(l.text, to: 150), size: 12, fill: l.color)
        }
        channelTable(&s, item, y: y)
    }
    package static let w0 = Double(width)

    package static func lanesCaptions(_ s: inout SVGBuilder, _ item: LoudnessReportItem, _ overs: [(start: Double, end: Double, peakDBTP: Double)],
                              lane: (top: Double, bottom: Double), peakLane: (top: Double, bottom: Double)) {
        var caption = "true peak per 100 ms"
        if let c = item.ceilingDBTP {
            if overs.isEmpty {
                caption += " · never over the " + ReportText.dB(c) + " dBTP ceiling"
            } else {
                let at = overs.prefix(4).map { ReportText.time($0.start, tenths: true) }.joined(separator: ", ")
                caption += " · \(overs.count) stretch\(overs.count == 1 ? "" : "es") over the ceiling, at " + at + (overs.count > 4 ? ", …" : "")
            }
        }
        s.text(plotLeft + 4, peakLane.top - 6, caption, size: 12, fill: overs.isEmpty ? Color.muted : Color.over,
               weight: overs.isEmpty ? nil : "bold")
    }

    package static func legend(_ s: inout SVGBuilder, _ item: LoudnessReportItem, y: Double) {
        var x = plotLeft
        func key(_ color: String, _ text: String, width: Double = 2, dash: String? = nil, band: Double? = nil) {
            if let band {
                s.rect(x, y - 9, 22, 10, fill: color, opacity: band)
            } else {
                s.line(x, y - 4, x + 22, y - 4, stroke: color, width: width, dash: dash)
            }
            s.text(x + 28, y, text, size: 12, fill: Color.muted)
            x += 28 + Double(text.count) * 6.7 + 18
        }
        if item.source != nil { key(Color.before, "before", width: 1.6) }
        key(Color.momentary, "momentary (400 ms)", width: 1.2)
        key(Color.shortTerm, "short-term (3 s)", width: 2.2)
        if item.integratedLUFS != nil { key(Color.integrated, "integrated", width: 1.4) }
        if item.targetLUFS != nil { key(Color.target, "target", width: 1.5, dash: "6 4") }
        if item.timeline?.rangeLowLUFS != nil { key(Color.range, "loudness range", band: 0.3) }
        if item.dialogue.map({ !$0.spans.isEmpty }) == true, !dialogueShaded(item) { key(dialogueColor, "dialogue", band: 0.3) }
        if !item.overs.isEmpty { key(Color.over, "over the ceiling", band: 0.35) }
        if !item.loudnessLimits.isEmpty { key(Color.over, "loudness limit", width: 1.2, dash: "2 3") }
    }

    package static func emptyMessage(_ t: LoudnessTimeline) -> (loudness: String?, peak: String?) {
        let anyLoudness = t.momentaryLUFS.contains { $0 != nil }
        let anyPeak = t.truePeakDBTP.contains { $0 != nil }
        var loud: String?
        if !anyLoudness {
            if t.frames < t.hopFrames * LoudnessMeter.momentaryHops {
                loud = "Under 400 ms long: no loudness window is complete, so no loudness is defined."
            } else if !anyPeak {
                loud = "Digital silence: no loudness to draw (every window is under the −70 LUFS gate)."
            } else {
                loud = "Every 400 ms window is under the −70 LUFS gate: nothing loud enough to draw."
            }
        } else if !t.shortTermLUFS.contains(where: { $0 != nil }) {
            loud = t.frames < t.hopFrames * LoudnessMeter.shortTermHops
                ? "Under 3 s long: short-term loudness and range are undefined."
                : nil
        }
        return (loud, anyPeak ? nil : "Digital silence: no peak.")
    }

    /// Moves labels apart (keeping their order) so that consecutive ones are `minGap` apart.
    package static func spread(_ labels: inout [(y: Double, text: String, color: String, bold: Bool)], minGap: Double, top: Double, bottom: Double) {
        labels.sort { $0.y < $1.y }
        for i in labels.indices { labels[i].y = min(max(labels[i].y, top), bottom) }
        for i in labels.indices.dropFirst() where labels[i].y - labels[i - 1].y < minGap {
            labels[i].y = labels[i - 1].y + minGap
        }
        if let last = labels.last, last.y > bottom {
            let shift = last.y - bottom
            for i in labels.indices { labels[i].y -= shift }
        }
    }

    // MARK: scales

    package struct XScale {
        package var duration: Double, left: Double, right: Double
        package func callAsFunction(_ t: Double) -> Double {
            duration > 0 ? left + (right - left) * min(max(t / duration, 0), 1) : left
        }
        package var columns: Int { Int(right - left) }
    }

    package struct YScale {
        package var top: Double, bottom: Double, pixelTop: Double, pixelBottom: Double
        package var ticks: [Double]
        package func callAsFunction(_ v: Double) -> Double {
            let c = min(max(v, bottom), top)
            return pixelBottom - (pixelBottom - pixelTop) * (c - bottom) / (top - bottom)
        }
    }

    /// LUFS from a little over the loudest momentary value (or the target) down to far enough
    /// under the programme to show quiet stretches: at least 30 LU, never under −70.
    package static func loudnessScale(_ item: LoudnessReportItem, _ t: LoudnessTimeline) -> YScale {
        let defined = (t.momentaryLUFS + t.shortTermLUFS + (item.source.map { $0.shortTermLUFS } ?? [])).compactMap { $0 }
        var high = defined.max() ?? -20
        if let target = item.targetLUFS { high = max(high, target + (item.toleranceLU ?? 0)) }
        if let m = item.momentaryMaxLUFS { high = max(high, m) }
        for l in item.loudnessLimits { high = max(high, l.limit) }
        var top = (high / 5).rounded(.up) * 5
        if top - high < 1.5 { top += 5 }
        var reference = item.integratedLUFS ?? defined.max() ?? -40
        if let lo = t.rangeLowLUFS { reference = min(reference, lo) }
        if let target = item.targetLUFS { reference = min(reference, target) }
        var bottom = ((reference - 18) / 5).rounded(.down) * 5
        bottom = min(bottom, top - 30)
        bottom = max(bottom, -70)
        if top - bottom < 20 { top = bottom + 20 }
        let step: Double = top - bottom > 45 ? 10 : 5
        let first = (bottom / step).rounded(.up) * step
        let ticks = stride(from: first, through: top, by: step).map { $0 }
        return YScale(top: top, bottom: bottom, pixelTop: 0, pixelBottom: 0, ticks: ticks).placed(item)
    }

    /// dBTP from far enough under the peaks to show their shape up to just over the highest peak
    /// or the ceiling.
    package static func peakScale(_ item: LoudnessReportItem, _ t: LoudnessTimeline) -> YScale {
        let peaks = (t.truePeakDBTP + (item.source?.truePeakDBTP ?? [])).compactMap { $0 }
        var high = peaks.max() ?? -20
        if let c = item.ceilingDBTP { high = max(high, c) }
        let top = max(0, (high / 3).rounded(.up) * 3 + (high.truncatingRemainder(dividingBy: 3) == 0 ? 3 : 0))
        // Deep enough that most hops show (the 10th percentile), between 24 and 48 dB of range.
        let sorted = peaks.sorted()
        let low = sorted.isEmpty ? top - 24 : sorted[sorted.count / 10] - 3
        let bottom = min(top - 24, max(top - 48, (low / 12).rounded(.down) * 12))
        let step: Double = top - bottom > 30 ? 12 : 6
        let ticks = stride(from: top, to: bottom + 1, by: -step).reversed().map { $0 }
        let lay = layout(item)
        return YScale(top: top, bottom: bottom, pixelTop: lay.peakTop, pixelBottom: lay.peakTop + peakHeight, ticks: ticks)
    }

    /// Tick times: a round step (0.1 s to hours) giving about 4 to 11 ticks.
    package static func timeTicks(_ duration: Double) -> [Double] {
        let steps: [Double] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800]
        let step = steps.first { duration / $0 <= 10 } ?? 28800
        var out: [Double] = []
        var k = 0
        while Double(k) * step <= duration + 1e-9 { out.append(Double(k) * step); k += 1 }
        return out
    }

    // MARK: series

    /// A polyline through the defined values, broken where they are undefined. Up to one point per
    /// entry; past one entry per pixel column, each column's minimum and maximum.
    package static func curve(_ values: [Double?], _ t: LoudnessTimeline, _ x: XScale, _ y: YScale, floor: Double) -> String {
        var d = ""
        d.reserveCapacity(values.count * 12)
        var open = false
        var pointsInSegment = 0
        func point(_ px: Double, _ py: Double) {
            d += (open ? "L" : "M") + f(px) + " " + f(py)
            open = true
            pointsInSegment += 1
        }
        func breakSegment() {
            if open, pointsInSegment == 1 { d += "h0.5" }
            open = false
            pointsInSegment = 0
        }
        let columns = x.columns
        if values.count <= columns {
            for (i, v) in values.enumerated() {
                if let v { point(x(t.endSeconds(i)), y(v)) } else { breakSegment() }
            }
        } else {
            var i = 0
            for col in 0..<columns {
                var lo = Double.infinity, hi = -Double.infinity, any = false, gap = false
                while i < values.count {
                    let px = x(t.endSeconds(i)) - x.left
                    if Int(px) > col, col < columns - 1 { break }
                    if let v = values[i] { lo = min(lo, v); hi = max(hi, v); any = true } else { gap = true }
                    i += 1
                }
                if any {
                    let cx = x.left + Double(col) + 0.5
                    point(cx, y(hi))
                    if lo < hi { point(cx, y(lo)) }
                    if gap { breakSegment() }
                } else {
                    breakSegment()
                }
            }
        }
        breakSegment()
        return d
    }

    /// The true peak as a step outline over hops (or each column's maximum for long inputs);
    /// closed down to the lane's bottom when `close`.
    package static func peakArea(_ t: LoudnessTimeline, _ x: XScale, _ y: YScale, bottom: Double, close: Bool) -> String {
        let values = t.truePeakDBTP
        var d = ""
        d.reserveCapacity(values.count * 14)
        var steps: [(x0: Double, x1: Double, v: Double?)] = []
        let columns = x.columns
        if values.count <= columns {
            for (i, v) in values.enumerated() {
                steps.append((x(Double(i * t.hopFrames) / Double(t.sampleRate)), x(t.endSeconds(i)), v))
            }
        } else {
            var i = 0
            for col in 0..<columns {
                var hi: Double? = nil
                while i < values.count {
                    let px = x(Double(i * t.hopFrames) / Double(t.sampleRate)) - x.left
                    if Int(px) > col, col < columns - 1 { break }
                    if let v = values[i] { hi = max(hi ?? v, v) }
                    i += 1
                }
                steps.append((x.left + Double(col), x.left + Double(col + 1), hi))
            }
        }
        guard let first = steps.first else { return "" }
        d += "M" + f(first.x0) + " " + f(bottom)
        var lastY = bottom
        for st in steps {
            let yv = st.v.map { y($0) } ?? bottom
            if yv != lastY { d += "V" + f(yv) }
            d += "H" + f(st.x1)
            lastY = yv
        }
        if close { d += "V" + f(bottom) + "Z" }
        return d
    }
}

extension LoudnessPicture.YScale {
    /// Places a loudness scale in its lane.
    package func placed(_ item: LoudnessReportItem) -> LoudnessPicture.YScale {
        var s = self
        let lay = LoudnessPicture.layout(item)
        s.pixelTop = lay.loudnessTop
        s.pixelBottom = lay.loudnessTop + LoudnessPicture.loudnessHeight
        return s
    }
}

private func f(_ v: Double) -> String { SVGBuilder.number(v) }
