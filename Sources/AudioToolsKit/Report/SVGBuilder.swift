import Foundation

private func f(_ v: Double) -> String { SVGBuilder.number(v) }

/// A small SVG text builder: elements with their attributes, numbers to one decimal, text escaped.
package struct SVGBuilder {
    package var out = ""
    /// Put before every id (and every reference to one), so that several panels drawn into one
    /// picture (a file's audio streams) keep their ids apart; empty for the first.
    package var idPrefix = ""

    /// `name` as an id in this builder (with its prefix).
    package func id(_ name: String) -> String { idPrefix + name }

    /// One decimal, as short as possible ("12", "12.5").
    package static func number(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        if r == r.rounded(), abs(r) < 1e9 { return String(Int(r)) }
        return String(format: "%.1f", r)
    }

    package mutating func raw(_ s: String) { out += s }

    package mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, stroke: String? = nil,
                       opacity: Double? = nil, rx: Double? = nil, id: String? = nil) {
        out += "<rect"
        if let id { out += " id=\"\(idPrefix + id)\"" }
        out += " x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(h))\" fill=\"\(fill)\""
        if let opacity { out += " fill-opacity=\"\(opacity)\"" }
        if let stroke { out += " stroke=\"\(stroke)\"" }
        if let rx { out += " rx=\"\(f(rx))\"" }
        out += "/>\n"
    }

    package mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1,
                       dash: String? = nil, id: String? = nil) {
        out += "<line"
        if let id { out += " id=\"\(idPrefix + id)\"" }
        out += " x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(width)\""
        if let dash { out += " stroke-dasharray=\"\(dash)\"" }
        out += "/>\n"
    }

    package mutating func path(_ d: String, stroke: String? = nil, width: Double? = nil, fill: String? = nil,
                       opacity: Double? = nil, id: String) {
        out += "<path id=\"\(idPrefix + id)\" d=\"\(d)\""
        if let stroke { out += " stroke=\"\(stroke)\"" }
        if let width { out += " stroke-width=\"\(width)\"" }
        if let fill { out += " fill=\"\(fill)\"" }
        if let opacity { out += " fill-opacity=\"\(opacity)\"" }
        out += "/>\n"
    }

    package mutating func text(_ x: Double, _ y: Double, _ s: String, size: Double, fill: String, anchor: String? = nil,
                       weight: String? = nil, transform: String? = nil, halo: Bool = false) {
        out += "<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(f(size))\" fill=\"\(fill)\""
        if halo { out += " stroke=\"#ffffff\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\"" }
        if let anchor { out += " text-anchor=\"\(anchor)\"" }
        if let weight { out += " font-weight=\"\(weight)\"" }
        if let transform { out += " transform=\"\(transform)\"" }
        out += ">" + ReportText.escape(s) + "</text>\n"
    }
}
