import Foundation

/// Text helpers the library tools share: locale-independent folding for search and sort, natural
/// ordering of numbers inside names, and fixed-format counts for sentences.
package enum LibraryText {
    /// Lowercased with accents removed ("Beyoncé" → "beyonce"), the same on every machine.
    package static func fold(_ text: String) -> String {
        String(decoding: foldedUTF8(text), as: UTF8.self)
    }

    /// `fold` as UTF-8 bytes. ASCII (most tags and paths) is lowercased directly and Latin letters
    /// with accents through a table; other scripts go through Foundation's locale-free folding,
    /// which is far slower.
    package static func foldedUTF8(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        var ascii = true
        for i in bytes.indices {
            let b = bytes[i]
            if b >= 0x80 { ascii = false; break }
            if b >= 65 && b <= 90 { bytes[i] = b + 32 }
        }
        if ascii { return bytes }
        bytes.removeAll(keepingCapacity: true)
        // Latin scalars fold through the table; runs of anything else go through Foundation.
        var other = String.UnicodeScalarView()
        func flushOther() {
            guard !other.isEmpty else { return }
            let folded = String(other).folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive],
                                               locale: nil)
            bytes.append(contentsOf: folded.precomposedStringWithCanonicalMapping.utf8)
            other.removeAll()
        }
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                flushOther()
                bytes.append(v >= 65 && v <= 90 ? UInt8(v + 32) : UInt8(v))
            } else if v < latinEnd {
                flushOther()
                bytes.append(contentsOf: latinFolds[Int(v - 0x80)])
            } else {
                other.append(scalar)
            }
        }
        flushOther()
        return bytes
    }

    /// End of the Latin ranges (Latin-1 Supplement, Extended-A and -B, IPA) kept in `latinFolds`,
    /// plus combining diacritical marks (U+0300–U+036F), which fold to nothing.
    private static let latinEnd: UInt32 = 0x370

    /// Letters whose stroke or ligature is part of the letter, so Unicode does not decompose them,
    /// but which people type without it: "lodz" finds "Łódź", "mo" finds "MØ".
    private static let plainLetters: [Character: String] = [
        "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "ı": "i", "æ": "ae", "œ": "oe", "þ": "th", "ð": "d",
    ]

    /// Folded UTF-8 of each scalar from U+0080 to `latinEnd`, computed once with Foundation.
    /// Folding scalar by scalar matches folding the whole string in these ranges: each letter
    /// folds on its own and combining marks vanish.
    private static let latinFolds: [[UInt8]] = (0x80..<latinEnd).map { v in
        // Foundation keeps a combining mark that has no letter before it; here it always follows one.
        guard v < 0x300, let scalar = Unicode.Scalar(v) else { return [] }
        let folded = String(Character(scalar))
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        let plain = folded.map { plainLetters[$0] ?? String($0) }.joined()
        return Array(plain.precomposedStringWithCanonicalMapping.utf8)
    }

    /// Whether `needle` occurs in `haystack` (both folded bytes); an empty needle always does.
    package static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        let n = needle.count, h = haystack.count
        if n == 0 { return true }
        if n > h { return false }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var i = 0
                while i <= h - n {
                    if hay[i] == first {
                        var j = 1
                        while j < n && hay[i + j] == pin[j] { j += 1 }
                        if j == n { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    /// A count with ',' between thousands whatever the locale: 1204 → "1,204".
    package static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return n < 0 ? "-" + out : out
    }

    /// "1 song" / "2 songs" with the count formatted by `count(_:)`.
    package static func count(_ n: Int, _ singular: String, _ plural: String) -> String {
        "\(count(n)) \(n == 1 ? singular : plural)"
    }

    /// A natural sort key as one flat array, compared lexicographically: a run of digits becomes
    /// [1, digit count without leading zeros, the digits…, written width] so it compares by value
    /// and sorts before text; any other scalar becomes its value + 2. "Track 2" < "Track 10".
    package static func naturalKey(_ text: String) -> [UInt32] {
        var key: [UInt32] = []
        appendNaturalKey(text, to: &key)
        return key
    }

    /// `naturalKey(text)` appended to `key`.
    package static func appendNaturalKey(_ text: String, to key: inout [UInt32]) {
        let bytes = foldedUTF8(text)
        var i = 0
        let scalars: [UInt32] = bytes.allSatisfy { $0 < 0x80 }
            ? bytes.map { UInt32($0) }
            : String(decoding: bytes, as: UTF8.self).unicodeScalars.map(\.value)
        while i < scalars.count {
            let v = scalars[i]
            if v >= 48 && v <= 57 {
                var end = i
                while end < scalars.count && scalars[end] >= 48 && scalars[end] <= 57 { end += 1 }
                var start = i
                while start < end - 1 && scalars[start] == 48 { start += 1 }
                key.append(1)
                key.append(UInt32(end - start))
                for k in start..<end { key.append(scalars[k] - 48) }
                key.append(UInt32(end - i))
                i = end
            } else {
                key.append(v + 2)
                i += 1
            }
        }
    }

    /// Many natural keys in one buffer, so sorting compares them without reference counting.
    package struct NaturalKeys {
        package var storage: [UInt32] = []
        /// Key k is storage[starts[k]..<starts[k + 1]].
        package var starts: [Int] = [0]

        package var count: Int { starts.count - 1 }

        package mutating func append(_ text: String) {
            LibraryText.appendNaturalKey(text, to: &storage)
            starts.append(storage.count)
        }

        /// Positions 0..<count in ascending key order, plus whether each equals the one before.
        package func sortedPositions() -> (order: [Int], sameAsPrevious: [Bool]) {
            storage.withUnsafeBufferPointer { st in
                starts.withUnsafeBufferPointer { sp in
                    func compare(_ a: Int, _ b: Int) -> Int {
                        let a0 = sp[a], a1 = sp[a + 1], b0 = sp[b], b1 = sp[b + 1]
                        let n = min(a1 - a0, b1 - b0)
                        var i = 0
                        while i < n {
                            let x = st[a0 + i], y = st[b0 + i]
                            if x != y { return x < y ? -1 : 1 }
                            i += 1
                        }
                        return (a1 - a0) - (b1 - b0)
                    }
                    let order = (0..<count).sorted { compare($0, $1) < 0 }
                    let same = order.indices.map { $0 > 0 && compare(order[$0 - 1], order[$0]) == 0 }
                    return (order, same)
                }
            }
        }
    }

    /// Seconds as people read them: "4.2 s", "30 s", "3 min 20 s", "1 h 02 min". `decimals` applies
    /// below a minute only.
    package static func duration(_ seconds: Double, decimals: Int = 1) -> String {
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
    package static func number(_ value: Double, decimals: Int) -> String {
        var s = String(format: "%.\(decimals)f", locale: nil, value)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }
}
