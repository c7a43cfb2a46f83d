/// An order for library items, parsed from `field[+|-][,field…]` (`+` ascending, the default;
/// `-` descending), e.g. `artist,year-`. Missing values sort last in either direction; text
/// compares case- and accent-insensitively with numbers inside it by value ("Track 2" before
/// "Track 10"), the same on every machine. Ties always fall back to path, then id, so the order is
/// total and the same on every run.
public struct LibrarySort: Equatable, Sendable {
    public typealias ParseError = LibraryParseError

    public struct Key: Equatable, Sendable {
        public var field: LibraryField
        public var ascending: Bool

        public init(_ field: LibraryField, ascending: Bool = true) {
            self.field = field
            self.ascending = ascending
        }
    }

    public var keys: [Key]

    public init(keys: [Key]) { self.keys = keys }

    /// Most recently modified first: what a listing shows when no sort is asked for.
    public static let `default` = LibrarySort(keys: [Key(.mtime, ascending: false)])

    /// Parses `artist,year-`; empty text gives the default. Throws naming the bad field.
    public static func parse(_ text: String) throws -> LibrarySort {
        var keys: [Key] = []
        var offset = 0
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { offset += part.count + 1 }
            let leading = part.prefix(while: \.isWhitespace).count
            var spec = part.trimmingWhitespace()
            let position = offset + leading + 1
            if spec.isEmpty {
                if text.allSatisfy(\.isWhitespace) { return .default }
                throw ParseError(
                    message: "empty sort field at character \(position) in '\(text)'",
                    term: text, position: position,
                    suggestion: "Separate sort fields with single commas, e.g. artist,year-.")
            }
            var ascending = true
            if spec.hasSuffix("-") { ascending = false; spec.removeLast() }
            else if spec.hasSuffix("+") { spec.removeLast() }
            spec = spec.trimmingWhitespace()
            guard let field = LibraryField.named(String(spec)) else {
                let fields = LibraryField.allCases.map(\.rawValue).joined(separator: ", ")
                throw ParseError(
                    message: "unknown sort field '\(spec)' at character \(position) in '\(text)' (fields: \(fields))",
                    term: String(part), position: position,
                    suggestion: "Sort by one of those fields, each optionally followed by + (ascending) or - (descending).")
            }
            keys.append(Key(field, ascending: ascending))
        }
        return LibrarySort(keys: keys)
    }

    /// `items` in this order.
    public func sorted(_ items: [LibraryItem]) -> [LibraryItem] {
        // Compute each item's keys once: folding text per comparison would dominate large libraries.
        let prepared = items.map { item in
            (item, keys.map { LibrarySortValue($0.field, item) }, LibrarySortValue(.path, item))
        }
        return prepared.sorted { a, b in
            precedes(a.1, a.2, a.0, b.1, b.2, b.0)
        }.map(\.0)
    }

    /// Whether `a` comes before `b` in this order (a strict total order on distinct path/id pairs).
    public func areInIncreasingOrder(_ a: LibraryItem, _ b: LibraryItem) -> Bool {
        precedes(keys.map { LibrarySortValue($0.field, a) }, LibrarySortValue(.path, a), a,
                 keys.map { LibrarySortValue($0.field, b) }, LibrarySortValue(.path, b), b)
    }

    private func precedes(_ ka: [LibrarySortValue], _ pa: LibrarySortValue, _ a: LibraryItem,
                          _ kb: [LibrarySortValue], _ pb: LibrarySortValue, _ b: LibraryItem) -> Bool {
        for (index, key) in keys.enumerated() {
            if let order = LibrarySortValue.order(ka[index], kb[index], ascending: key.ascending) { return order }
        }
        if let order = LibrarySortValue.order(pa, pb, ascending: true) { return order }
        // Paths equal when folded: exact bytes, then id, make the order total.
        if a.path != b.path { return a.path.utf8.lexicographicallyPrecedes(b.path.utf8) }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }
}

/// One item's value for one sort field, prepared for fast comparison.
enum LibrarySortValue {
    case missing
    case integer(Int64)
    case real(Double)
    case text([LibraryText.NaturalPiece])

    init(_ field: LibraryField, _ item: LibraryItem) {
        switch field {
        case .mtime: self = .integer(item.modifiedNanoseconds)
        case .size: self = .integer(item.sizeBytes)
        case .duration:
            if let d = item.durationSeconds, d.isFinite { self = .real(d) } else { self = .missing }
        default:
            if field.isNumeric {
                self = field.number(of: item).map { .real($0) } ?? .missing
            } else if let text = field.text(of: item), !text.allSatisfy(\.isWhitespace) {
                self = .text(LibraryText.naturalKey(text))
            } else {
                self = .missing
            }
        }
    }

    /// true if a goes first, false if b goes first, nil if they tie. Missing goes last either way.
    static func order(_ a: LibrarySortValue, _ b: LibrarySortValue, ascending: Bool) -> Bool? {
        let less: Bool, greater: Bool
        switch (a, b) {
        case (.missing, .missing): return nil
        case (.missing, _): return false
        case (_, .missing): return true
        case let (.integer(x), .integer(y)): less = x < y; greater = x > y
        case let (.real(x), .real(y)): less = x < y; greater = x > y
        case let (.text(x), .text(y)):
            less = x.lexicographicallyPrecedes(y); greater = y.lexicographicallyPrecedes(x)
        default: return nil  // one field always yields one kind
        }
        if !less && !greater { return nil }
        return ascending ? less : greater
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return s
    }
}
