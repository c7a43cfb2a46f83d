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
        let rows = keyRows([a, b])
        let width = keys.count
        if rows[0..<width] != rows[width..<2 * width] { return rows[0..<width].lexicographicallyPrecedes(rows[width..<2 * width]) }
        let (order, tied) = Self.tieBreak([0, 1], [a, b])
        return order == [0, 1] && !tied[1]
    }

    /// Indices of `items` in this order. The sort keys are ranked once each, so the sort compares
    /// integers; the tie-break (path, exact path, id) is worked out only among items whose keys
    /// are all equal: a listing newest first, where no two files share a time, needs none.
    public func sortedIndices(_ items: [LibraryItem]) -> [Int] {
        let rows = keyRows(items)
        let width = keys.count
        var order = rows.withUnsafeBufferPointer { r in
            items.indices.sorted { i, j in
                var a = i * width, b = j * width
                for _ in 0..<width {
                    if r[a] != r[b] { return r[a] < r[b] }
                    a += 1; b += 1
                }
                return false
            }
        }
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && rows[(order[end] * width)..<(order[end] * width + width)]
                    == rows[(order[start] * width)..<(order[start] * width + width)] { end += 1 }
            if end - start > 1 {
                let run = Array(order[start..<end])
                order.replaceSubrange(start..<end, with: Self.tieBreak(run, items).order)
            }
            start = end
        }
        return order
    }

    /// One row of integers per item, compared left to right: a rank per sort key (direction
    /// applied, missing always last). Ranking each column once keeps the sort to integer
    /// comparisons.
    private func keyRows(_ items: [LibraryItem]) -> [Int] {
        let width = keys.count
        var rows = [Int](repeating: 0, count: items.count * width)
        for (k, key) in keys.enumerated() {
            let ranks = Self.ranks(key.field, items)
            for i in items.indices {
                let rank = ranks[i]
                rows[i * width + k] = rank == .max ? .max : (key.ascending ? rank : -rank)
            }
        }
        return rows
    }

    /// `run` (indices of items whose sort keys are all equal) in tie-break order: path as people
    /// read it, then exact path bytes, then id; `same[n]` when run item n has the path and id of
    /// the one before (only such a pair is unordered).
    package static func tieBreak(_ run: [Int], _ items: [LibraryItem]) -> (order: [Int], same: [Bool]) {
        var pathKeys = LibraryText.NaturalKeys()
        for i in run { pathKeys.append(items[i].path) }
        var (byPath, folded) = pathKeys.sortedPositions()
        // Runs of equal folded paths are ordered by exact path bytes, then id.
        var start = 0
        while start < byPath.count {
            var end = start + 1
            while end < byPath.count && folded[end] { end += 1 }
            if end - start > 1 {
                byPath[start..<end].sort { p, q in
                    let x = items[run[p]].path, y = items[run[q]].path
                    if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
                    return items[run[p]].id.utf8.lexicographicallyPrecedes(items[run[q]].id.utf8)
                }
            }
            start = end
        }
        let order = byPath.map { run[$0] }
        let same = order.indices.map { n in
            n > 0 && folded[n] && items[order[n - 1]].path == items[order[n]].path && items[order[n - 1]].id == items[order[n]].id
        }
        return (order, same)
    }

    /// Dense ascending ranks of `field` over `items` (equal values share one); `Int.max` if missing.
    package static func ranks(_ field: LibraryField, _ items: [LibraryItem]) -> [Int] {
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
    package static func isBlank(_ text: String) -> Bool {
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
