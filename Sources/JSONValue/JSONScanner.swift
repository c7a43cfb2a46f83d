import Foundation

/// Reading records fast: a well-formed compact value kept verbatim, or an object cut into its
/// members without parsing what is inside them.
extension JSON {
    /// A raw object cut down to the members named `keys` (still raw), from one scan that makes
    /// nothing of the others: for reading a few members of a large text. Any other value is
    /// returned as it is.
    public func picking(_ keys: [String]) -> JSON {
        guard case .raw(var text) = self, text.utf8.first == UInt8(ascii: "{") else { return self }
        let wanted = keys.map { Array($0.utf8) }
        let picked = text.withUTF8 { buf -> [String: JSON]? in
            var s = Scanner(bytes: buf)
            guard let o = s.members(depth: 0, only: wanted), s.i == buf.count else { return nil }
            return o
        }
        return picked.map { .object($0) } ?? self
    }

    /// `text` kept as a `.raw` value when it is one well-formed JSON value with no space around
    /// or inside it outside strings, as `serialized()` writes; nil otherwise. Checked, not parsed.
    public static func verbatim(_ text: String) -> JSON? {
        var t = text
        return t.withUTF8 { buf in
            var s = Scanner(bytes: buf)
            guard s.skipValue(depth: 0), s.i == buf.count else { return nil }
            return .raw(text)
        }
    }

    /// The members of the object `text`, each kept as a `.raw` value: the one level a reader
    /// needs to pick members apart, without parsing what is inside them. nil unless `text` is a
    /// compact, well-formed object (as `serialized()` writes) with no key twice.
    public static func members(_ text: String) -> [String: JSON]? {
        var t = text
        return t.withUTF8 { buf -> [String: JSON]? in
            var s = Scanner(bytes: buf)
            guard let o = s.members(depth: 0), s.i == buf.count else { return nil }
            return o
        }
    }

    /// Calls `body` with each member of the compact object `text` (as `serialized()` writes it):
    /// the key's bytes between its quotes (escapes as written) and the value's text, checked but
    /// not parsed. For readers that want a few members of many objects without building any.
    /// false when `text` is not such an object (`body` may have seen some members by then).
    package static func forEachMember(of text: UnsafeBufferPointer<UInt8>,
                              _ body: (_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        var s = Scanner(bytes: text)
        guard !text.isEmpty, text[0] == UInt8(ascii: "{") else { return false }
        s.i = 1
        if s.i < text.count, text[s.i] == UInt8(ascii: "}") { return s.i + 1 == text.count }
        while true {
            let keyStart = s.i
            guard s.skipString(), s.i < text.count, text[s.i] == UInt8(ascii: ":") else { return false }
            let key = UnsafeBufferPointer(rebasing: text[(keyStart + 1)..<(s.i - 1)])
            s.i += 1
            let valueStart = s.i
            guard s.skipValue(depth: 1), s.i < text.count else { return false }
            body(key, UnsafeBufferPointer(rebasing: text[valueStart..<s.i]))
            if text[s.i] == UInt8(ascii: ",") { s.i += 1; continue }
            return text[s.i] == UInt8(ascii: "}") && s.i + 1 == text.count
        }
    }

    /// Steps over compact JSON values without building them: the check behind `verbatim` and `members`.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// The object at `i`, its members kept as text; with `only`, just the members whose keys
        /// (unescaped UTF-8) are among those.
        mutating func members(depth: Int, only: [[UInt8]]? = nil) -> [String: JSON]? {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
            i += 1
            var o: [String: JSON] = [:]
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return o }
            while true {
                let keyStart = i
                guard skipString(), i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                let quoted = UnsafeBufferPointer(rebasing: bytes[keyStart..<i])
                if let only, !only.contains(where: { $0.count == quoted.count - 2 && memcmp($0, quoted.baseAddress! + 1, $0.count) == 0 }) {
                    i += 1
                    guard skipValue(depth: depth + 1), i < bytes.count else { return nil }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "}") { i += 1; return o }
                    return nil
                }
                // A key without escapes is its bytes between the quotes; one with them is parsed.
                let key = quoted.contains(UInt8(ascii: "\\"))
                    ? (try? JSON.parse(String(decoding: quoted, as: UTF8.self)))?.stringValue
                    : String(decoding: UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast()), as: UTF8.self)
                guard let key, o[key] == nil else { return nil }
                i += 1
                let valueStart = i
                guard skipValue(depth: depth + 1) else { return nil }
                o[key] = .raw(String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<i]), as: UTF8.self))
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return o }
                return nil
            }
        }

        mutating func skipValue(depth: Int) -> Bool {
            guard depth <= 256, i < bytes.count else { return false }
            switch bytes[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let object = bytes[i] == UInt8(ascii: "{")
                let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
                i += 1
                if i < bytes.count, bytes[i] == close { i += 1; return true }
                while true {
                    if object {
                        guard skipString(), i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return false }
                        i += 1
                    }
                    guard skipValue(depth: depth + 1), i < bytes.count else { return false }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == close { i += 1; return true }
                    return false
                }
            case UInt8(ascii: "\""): return skipString()
            case UInt8(ascii: "t"): return skipWord("true")
            case UInt8(ascii: "f"): return skipWord("false")
            case UInt8(ascii: "n"): return skipWord("null")
            default: return skipNumber()
            }
        }

        mutating func skipWord(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard i + n <= bytes.count, memcmp(bytes.baseAddress! + i, word.utf8Start, n) == 0 else { return false }
            i += n
            return true
        }

        /// A string with valid escapes and no raw control characters (its UTF-8 was checked when
        /// the text became a String).
        mutating func skipString() -> Bool {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return false }
            i += 1
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") { i += 1; return true }
                if c < 0x20 { return false }
                i += 1
                guard c == UInt8(ascii: "\\") else { continue }
                guard i < bytes.count else { return false }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count else { return false }
                    for _ in 0..<4 {
                        guard isxdigit(Int32(bytes[i])) != 0 else { return false }
                        i += 1
                    }
                default: return false
                }
            }
            return false
        }

        mutating func skipNumber() -> Bool {
            func digits() -> Int {
                let s = i
                while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
                return i - s
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count else { return false }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                if digits() == 0 { return false }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                if digits() == 0 { return false }
            }
            return true
        }
    }

}
