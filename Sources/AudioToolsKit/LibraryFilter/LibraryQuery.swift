import ToolRunner

/// A query or sort text that could not be understood: `message` names the bad term and where it
/// starts, `suggestion` says how to write it instead.
public struct LibraryParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The whole sentence, e.g. "unknown field 'colour' in 'colour:red' at character 7 (fields: …)".
    public var message: String
    /// The offending term as typed (quotes included).
    public var term: String
    /// 1-based character position in the query text where the problem starts.
    public var position: Int
    public var suggestion: String

    public init(message: String, term: String, position: Int, suggestion: String) {
        self.message = message
        self.term = term
        self.position = position
        self.suggestion = suggestion
    }

    public var description: String { message }

    /// The same refusal as the record contract carries it.
    public var toolError: ToolError { ToolError(.badInput, message, suggestion: suggestion) }
}

/// A beets-style search over library items. Terms are separated by spaces and must all match;
/// double quotes group words. Forms:
/// - `word` — case- and accent-insensitive substring of title, artist, album or genre;
/// - `field:text` — substring of that text field; `field:` (empty) matches a missing value;
/// - `field:N` — numeric field equal to N at the precision written (`duration:180` is 179.5–180.5 s,
///   `size:5M` is 4.5–5.5 MB); `field:A..B`, `field:A..`, `field:..B` — inclusive ranges;
/// - `-term` — the term must not match.
/// Durations may be written `m:ss` or `h:mm:ss`; sizes take `k`/`M`/`G` (×1000) or `KiB`/`MiB`/`GiB`.
public struct LibraryQuery: Sendable {
    public typealias ParseError = LibraryParseError

    package enum Condition: Equatable, Sendable {
        /// Folded needle (UTF-8) in any of title, artist, album, genre.
        case anyText([UInt8])
        /// Folded needle (UTF-8) in one text field.
        case text(LibraryField, [UInt8])
        /// The field has no value (or only whitespace).
        case missing(LibraryField)
        /// lower ≤ value and value ≤ upper (or < upper when `upperOpen`); nil ends are unbounded.
        case range(LibraryField, lower: Double?, upper: Double?, upperOpen: Bool)
    }

    package struct Term: Equatable, Sendable {
        package var condition: Condition
        package var negated: Bool
    }

    package let terms: [Term]

    /// The query that matches everything.
    public static let all = LibraryQuery(terms: [])

    package init(terms: [Term]) { self.terms = terms }

    /// True when the query has no terms (matches every item).
    public var isEmpty: Bool { terms.isEmpty }

    /// Whether `item` satisfies every term.
    public func matches(_ item: LibraryItem) -> Bool {
        var folded = FoldedFields(item: item)
        for term in terms where Self.holds(term.condition, &folded) == term.negated { return false }
        return true
    }

    /// The items that match, in their original order.
    public func filter(_ items: [LibraryItem]) -> [LibraryItem] {
        isEmpty ? items : items.filter(matches)
    }

    package static let wordFields: [LibraryField] = [.title, .artist, .album, .genre]

    /// One item's text fields, each folded on first use and kept for the other terms.
    package struct FoldedFields {
        package let item: LibraryItem
        private var cache: [[UInt8]?] = Array(repeating: nil, count: LibraryField.allCases.count)

        package init(item: LibraryItem) { self.item = item }

        package mutating func contains(_ field: LibraryField, _ needle: [UInt8]) -> Bool {
            let slot = field.ordinal
            if let bytes = cache[slot] { return LibraryText.contains(bytes, needle) }
            guard let text = field.text(of: item) else { return false }
            let bytes = LibraryText.foldedUTF8(text)
            cache[slot] = bytes
            return LibraryText.contains(bytes, needle)
        }
    }

    package static func holds(_ condition: Condition, _ folded: inout FoldedFields) -> Bool {
        let item = folded.item
        switch condition {
        case .anyText(let needle):
            for field in wordFields where folded.contains(field, needle) { return true }
            return false
        case let .text(field, needle):
            return folded.contains(field, needle)
        case .missing(let field):
            if field.isNumeric { return field.number(of: item) == nil }
            return field.text(of: item).map { $0.allSatisfy(\.isWhitespace) } ?? true
        case let .range(field, lower, upper, upperOpen):
            guard let value = field.number(of: item) else { return false }
            if let lower, value < lower { return false }
            if let upper, upperOpen ? value >= upper : value > upper { return false }
            return true
        }
    }

    // MARK: Parsing

    /// Parses query text; throws `ParseError` naming the first bad term and its position.
    public static func parse(_ text: String) throws -> LibraryQuery {
        var terms: [Term] = []
        for token in try tokenize(text) {
            if let term = try parseTerm(token) { terms.append(term) }
        }
        return LibraryQuery(terms: terms)
    }

    /// One space-separated term with its quotes resolved.
    package struct Token {
        /// As typed, quotes included.
        package var raw: String
        /// Quotes removed.
        package var body: [Character]
        /// 0-based offset in the query text of the term's first character.
        package var start: Int
        /// Index in `body` of the first ':' outside quotes.
        package var colon: Int?
        /// Whether `body` starts with a '-' typed outside quotes.
        package var leadingDash: Bool
    }

    package static func tokenize(_ text: String) throws -> [Token] {
        let chars = Array(text)
        var tokens: [Token] = []
        var i = 0
        while i < chars.count {
            if chars[i].isWhitespace { i += 1; continue }
            var token = Token(raw: "", body: [], start: i, colon: nil, leadingDash: chars[i] == "-")
            var quoteAt: Int? = nil
            while i < chars.count && (quoteAt != nil || !chars[i].isWhitespace) {
                let c = chars[i]
                token.raw.append(c)
                if c == "\"" {
                    quoteAt = quoteAt == nil ? i : nil
                } else {
                    if c == ":" && quoteAt == nil && token.colon == nil { token.colon = token.body.count }
                    token.body.append(c)
                }
                i += 1
            }
            if let quoteAt {
                throw ParseError(
                    message: "unclosed double quote in '\(token.raw)' at character \(quoteAt + 1)",
                    term: token.raw, position: quoteAt + 1,
                    suggestion: "Close the quote, e.g. artist:\"the beatles\".")
            }
            tokens.append(token)
        }
        return tokens
    }

    package static func parseTerm(_ token: Token) throws -> Term? {
        var body = token.body[...]
        var colon = token.colon
        let negated = token.leadingDash
        let position = token.start + 1
        if negated {
            body = body.dropFirst()
            colon = colon.map { $0 - 1 }
            if body.isEmpty {
                throw ParseError(
                    message: "'-' has nothing after it to leave out, at character \(position)",
                    term: token.raw, position: position,
                    suggestion: "Write the word or field right after the dash, e.g. -live or -genre:podcast.")
            }
        }
        guard let colon else {
            let word = LibraryText.foldedUTF8(String(body))
            // A quoted empty word ("") asks for nothing.
            return word.isEmpty ? nil : Term(condition: .anyText(word), negated: negated)
        }
        let name = String(body[body.startIndex..<body.startIndex + colon])
        let value = String(body[(body.startIndex + colon + 1)...])
        if name.isEmpty {
            throw ParseError(
                message: "'\(token.raw)' has no field name before ':' at character \(position)",
                term: token.raw, position: position,
                suggestion: "Put a field before the colon (e.g. title:\(value)), or quote the term to search for the text.")
        }
        guard let field = LibraryField.named(name), field != .mtime else {
            let fields = LibraryField.queryFields.map(\.rawValue).joined(separator: ", ")
            throw ParseError(
                message: "unknown field '\(name)' in '\(token.raw)' at character \(position) (fields: \(fields))",
                term: token.raw, position: position,
                suggestion: "Use one of those fields, or put the term in double quotes to search for the text itself.")
        }
        if value.allSatisfy(\.isWhitespace) {
            return Term(condition: .missing(field), negated: negated)
        }
        guard field.isNumeric else {
            return Term(condition: .text(field, LibraryText.foldedUTF8(value)), negated: negated)
        }
        return Term(condition: try numericCondition(field, value, token: token), negated: negated)
    }

    package static func numericCondition(_ field: LibraryField, _ value: String, token: Token) throws -> Condition {
        let position = token.start + 1
        let example: String
        switch field {
        case .duration: example = "duration:180, duration:3:00..5:00, duration:..300"
        case .size: example = "size:..10M, size:1G.."
        case .sampleRate: example = "sample_rate:44100, sample_rate:44100..48000"
        default: example = "\(field.rawValue):1999, \(field.rawValue):1990..1999, \(field.rawValue):1990.."
        }
        let suggestion = "Give \(field.rawValue) a number or an inclusive range with either end open, e.g. \(example)."
        guard let dots = value.range(of: "..") else {
            guard let number = parseNumber(value[...], field: field) else {
                throw ParseError(message: "'\(token.raw)' is not a number at character \(position)",
                                 term: token.raw, position: position, suggestion: suggestion)
            }
            // Equal at the precision written: half a unit of the last digit either side.
            let half = 0.5 * number.unit
            return .range(field, lower: number.value - half, upper: number.value + half, upperOpen: true)
        }
        let lowText = value[..<dots.lowerBound], highText = value[dots.upperBound...]
        let low = lowText.isEmpty ? nil : parseNumber(lowText, field: field)
        let high = highText.isEmpty ? nil : parseNumber(highText, field: field)
        if (!lowText.isEmpty && low == nil) || (!highText.isEmpty && high == nil) {
            throw ParseError(message: "'\(token.raw)' is not a number range at character \(position)",
                             term: token.raw, position: position, suggestion: suggestion)
        }
        if let low, let high, low.value > high.value {
            throw ParseError(
                message: "'\(token.raw)' is an empty range, \(lowText) is above \(highText), at character \(position)",
                term: token.raw, position: position,
                suggestion: "Put the smaller number first: \(field.rawValue):\(highText)..\(lowText).")
        }
        return .range(field, lower: low?.value, upper: high?.value, upperOpen: false)
    }

    /// A parsed number and the size of one unit of its last written digit (for equality).
    package struct WrittenNumber: Equatable {
        package var value: Double
        package var unit: Double
    }

    /// Plain decimal digits with at most one point; durations also as m:ss or h:mm:ss, sizes with
    /// a k/M/G (×1000) or KiB/MiB/GiB (×1024) suffix. No signs, exponents, hex or inf/nan.
    package static func parseNumber(_ text: Substring, field: LibraryField) -> WrittenNumber? {
        var text = text
        var scale = 1.0
        if field == .size {
            let lower = text.lowercased()
            let suffixes: [(String, Double)] = [
                ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("tib", 1_099_511_627_776),
                ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("tb", 1e12),
                ("k", 1e3), ("m", 1e6), ("g", 1e9), ("t", 1e12), ("b", 1),
            ]
            if let (suffix, factor) = suffixes.first(where: { lower.hasSuffix($0.0) }) {
                text = text.dropLast(suffix.count)
                scale = factor
            }
        }
        if field == .duration && text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 3 else { return nil }
            var seconds = 0.0
            var unit = 1.0
            for (index, part) in parts.enumerated() {
                let isLast = index == parts.count - 1
                guard let n = decimal(part), isLast || n.unit == 1 else { return nil }
                // Minutes and seconds after the first part must be below 60.
                if index > 0 && n.value >= 60 { return nil }
                seconds = seconds * 60 + n.value
                if isLast { unit = n.unit }
            }
            return WrittenNumber(value: seconds, unit: unit)
        }
        guard let n = decimal(text) else { return nil }
        return WrittenNumber(value: n.value * scale, unit: n.unit * scale)
    }

    package static func decimal(_ text: Substring) -> WrittenNumber? {
        var sawPoint = false, digits = 0, decimals = 0
        for c in text {
            if c == "." {
                if sawPoint { return nil }
                sawPoint = true
            } else if c.isASCII && c.isNumber {
                digits += 1
                if sawPoint { decimals += 1 }
            } else {
                return nil
            }
        }
        guard digits > 0, let value = Double(text) else { return nil }
        var unit = 1.0
        for _ in 0..<decimals { unit /= 10 }
        return WrittenNumber(value: value, unit: unit)
    }
}
