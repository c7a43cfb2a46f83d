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
        let order = sortedIndices(items)
        return order.map { items[$0] }
    }

    /// Whether `a` comes before `b` in this order (a strict total order on distinct path/id pairs).
    public func areInIncreasingOrder(_ a: LibraryItem, _ b: LibraryItem) -> Bool {
        let rows = rankRows([a, b])
        let width = keys.count + 1
        return rows[0..<width].lexicographicallyPrecedes(rows[width..<2 * width])
    }

    /// Indices of `items` in this order.
    public func sortedIndices(_ items: [LibraryItem]) -> [Int] {
        let rows = rankRows(items)
        let width = keys.count + 1
        return rows.withUnsafeBufferPointer { r in
            items.indices.sorted { i, j in
                var a = i * width, b = j * width
                for _ in 0..<width {
                    if r[a] != r[b] { return r[a] < r[b] }
                    a += 1; b += 1
                }
                return false
            }
        }
    }

    /// One row of integers per item, compared left to right: a rank per sort key (direction
    /// applied, missing always last), then a tie-break rank from path, exact path, id. Ranking
    /// each column once keeps the final sort to integer comparisons.
    private func rankRows(_ items: [LibraryItem]) -> [Int] {
        let width = keys.count + 1
        var rows = [Int](repeating: 0, count: items.count * width)
        for (k, key) in keys.enumerated() {
            let ranks = Self.ranks(key.field, items)
            for i in items.indices {
                let rank = ranks[i]
                rows[i * width + k] = rank == .max ? .max : (key.ascending ? rank : -rank)
            }
        }
        var pathKeys = LibraryText.NaturalKeys()
        for item in items { pathKeys.append(item.path) }
        var (byPath, same) = pathKeys.sortedPositions()
        // Runs of equal folded paths are ordered by exact path bytes, then id.
        var start = 0
        while start < byPath.count {
            var end = start + 1
            while end < byPath.count && same[end] { end += 1 }
            if end - start > 1 {
                byPath[start..<end].sort { i, j in
                    let x = items[i].path, y = items[j].path
                    if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
                    return items[i].id.utf8.lexicographicallyPrecedes(items[j].id.utf8)
                }
            }
            start = end
        }
        // Dense ranks: only an identical path and id share one (so no item precedes itself).
        var rank = 0
        for (n, i) in byPath.enumerated() {
            if n > 0 {
                let previous = items[byPath[n - 1]]
                if !(same[n] && previous.path == items[i].path && previous.id == items[i].id) { rank += 1 }
            }
            rows[i * width + keys.count] = rank
        }
        return rows
    }

    /// Dense ascending ranks of `field` over `items` (equal values share one); `Int.max` if missing.
    static func ranks(_ field: LibraryField, _ items: [LibraryItem]) -> [Int] {
        switch field {
        case .mtime: return denseRanks(items.indices.map { (items[$0].modifiedNanoseconds, $0) }, items.count)
        case .size: return denseRanks(items.indices.map { (items[$0].sizeBytes, $0) }, items.count)
        default:
            if field.isNumeric {
                let present = items.indices.compactMap { i in
                    field.number(of: items[i]).flatMap { $0.isFinite ? ($0, i) : nil }
                }
                return denseRanks(present, items.count)
            }
            var textKeys = LibraryText.NaturalKeys()
            var owners: [Int] = []
            for i in items.indices {
                guard let text = field.text(of: items[i]), !LibrarySort.isBlank(text) else { continue }
                textKeys.append(text)
                owners.append(i)
            }
            let (order, same) = textKeys.sortedPositions()
            var ranks = [Int](repeating: .max, count: items.count)
            var rank = 0
            for (n, p) in order.enumerated() {
                if n > 0 && !same[n] { rank += 1 }
                ranks[owners[p]] = rank
            }
            return ranks
        }
    }

    /// Empty or only whitespace: a tag that says nothing sorts as missing.
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }

    private static func denseRanks<Value: Comparable>(_ pairs: [(Value, Int)], _ count: Int) -> [Int] {
        var ranks = [Int](repeating: .max, count: count)
        let sorted = pairs.sorted { $0.0 < $1.0 }
        var rank = 0
        for (n, pair) in sorted.enumerated() {
            if n > 0 && sorted[n - 1].0 < pair.0 { rank += 1 }
            ranks[pair.1] = rank
        }
        return ranks
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
