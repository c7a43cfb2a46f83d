import Foundation

/// Text helpers the library tools share: locale-independent folding for search and sort, natural
/// ordering of numbers inside names, and fixed-format counts for sentences.
enum LibraryText {
    /// Lowercased with accents removed ("Beyoncé" → "beyonce"), the same on every machine.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// A count with ',' between thousands whatever the locale: 1204 → "1,204".
    static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return n < 0 ? "-" + out : out
    }

    /// "1 song" / "2 songs" with the count formatted by `count(_:)`.
    static func count(_ n: Int, _ singular: String, _ plural: String) -> String {
        "\(count(n)) \(n == 1 ? singular : plural)"
    }

    /// A piece of a natural sort key: runs of digits compare by value, other text by scalars.
    enum NaturalPiece: Comparable {
        /// Digits with leading zeros stripped (so longer means larger) plus the original length.
        case number(digits: [UInt8], width: Int)
        case text([UInt32])

        static func < (a: NaturalPiece, b: NaturalPiece) -> Bool {
            switch (a, b) {
            case let (.number(x, wx), .number(y, wy)):
                if x.count != y.count { return x.count < y.count }
                if x != y { return x.lexicographicallyPrecedes(y) }
                return wx < wy
            case let (.text(x), .text(y)):
                return x.lexicographicallyPrecedes(y)
            // Numbers before letters, as in most file browsers.
            case (.number, .text): return true
            case (.text, .number): return false
            }
        }
    }

    /// Folded text split into digit and non-digit runs, for "Track 2" < "Track 10" ordering.
    static func naturalKey(_ text: String) -> [NaturalPiece] {
        var pieces: [NaturalPiece] = []
        var digits: [UInt8] = []
        var width = 0
        var other: [UInt32] = []
        func flushDigits() {
            if width > 0 {
                var start = 0
                while start < digits.count - 1 && digits[start] == 0 { start += 1 }
                pieces.append(.number(digits: Array(digits[start...]), width: width))
                digits.removeAll(keepingCapacity: true)
                width = 0
            }
        }
        func flushOther() {
            if !other.isEmpty { pieces.append(.text(other)); other.removeAll(keepingCapacity: true) }
        }
        for scalar in fold(text).unicodeScalars {
            if scalar.value >= 48 && scalar.value <= 57 {
                flushOther()
                digits.append(UInt8(scalar.value - 48))
                width += 1
            } else {
                flushDigits()
                other.append(scalar.value)
            }
        }
        flushDigits()
        flushOther()
        return pieces
    }

    /// Seconds as people read them: "4.2 s", "30 s", "3 min 20 s", "1 h 02 min". `decimals` applies
    /// below a minute only.
    static func duration(_ seconds: Double, decimals: Int = 1) -> String {
        if seconds < 60 {
            let text = number(seconds, decimals: decimals)
            if text != "60" { return text + " s" }
        }
        let total = Int(seconds.rounded())
        if total < 3600 {
            let s = total % 60
            return s == 0 ? "\(total / 60) min" : "\(total / 60) min \(s) s"
        }
        let minutes = (total + 30) / 60
        let m = minutes % 60
        return m == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h " + (m < 10 ? "0" : "") + "\(m) min"
    }

    /// A number with at most `decimals` places and no trailing zeros: 4.20 → "4.2", 30.0 → "30".
    static func number(_ value: Double, decimals: Int) -> String {
        var s = String(format: "%.\(decimals)f", locale: nil, value)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }
}
