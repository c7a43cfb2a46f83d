import Foundation

/// A JSON value that round-trips: numbers read from input keep their exact text, objects are
/// written with keys sorted, so a record passes through a tool byte-for-byte unchanged.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number as written in the input (or as this tool formatted it).
    case number(String)
    case string(String)
    case array([JSON])
    case object([String: JSON])
    /// A JSON text exactly as `serialized()` wrote it, kept unparsed: written out verbatim and
    /// parsed only when looked into. Made by `verbatim(_:)` and `members(_:)`, which check it.
    case raw(String)

    public static func int<I: BinaryInteger>(_ v: I) -> JSON { .number(String(v)) }

    /// A finite double, rounded to `decimals` places when given; non-finite values become null.
    public static func double(_ v: Double, decimals: Int? = nil) -> JSON {
        guard v.isFinite else { return .null }
        var x = v
        if let d = decimals {
            let p = pow(10.0, Double(d))
            x = (v * p).rounded() / p
        }
        if x == 0 { x = 0 } // no "-0.0"
        if x == x.rounded(), abs(x) < 1e15 { return .number(String(Int64(x))) }
        return .number(String(describing: x))
    }

    /// A double, or null when the value is nil or non-finite.
    public static func optional(_ v: Double?, decimals: Int? = nil) -> JSON {
        v.map { double($0, decimals: decimals) } ?? .null
    }

    /// The value with a `.raw` text parsed (every other value as it is). Parse once with this
    /// before reading many fields of a raw value: each accessor on a raw value parses it anew.
    public var resolved: JSON {
        guard case .raw(let text) = self else { return self }
        // Scalars (the checked text of one value) need no parser: most members read are these.
        switch text.utf8.first ?? 0 {
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(text)
        case UInt8(ascii: "\"") where !text.utf8.contains(UInt8(ascii: "\\")):
            return .string(String(text.dropFirst().dropLast()))
        default: return (try? JSON.parse(text)) ?? .null
        }
    }

    /// A raw object opened one level (its members still raw): for reading several members of it
    /// at the cost of one scan. Any other value is returned as it is.
    public var opened: JSON {
        guard case .raw(let text) = self, text.utf8.first == UInt8(ascii: "{"), let o = JSON.members(text) else { return self }
        return .object(o)
    }

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

    /// Whether this is null, without parsing a raw text to find out.
    var isNullText: Bool {
        if case .raw(let t) = self { return t == "null" }
        return self == .null
    }

    public subscript(key: String) -> JSON? {
        switch self {
        case .object(let o): return o[key]
        case .raw: return resolved[key]
        default: return nil
        }
    }

    public var stringValue: String? { if case .string(let s) = resolved { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = resolved { return b }; return nil }
    public var objectValue: [String: JSON]? { if case .object(let o) = resolved { return o }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = resolved { return a }; return nil }
    public var doubleValue: Double? { if case .number(let n) = resolved { return Double(n) }; return nil }
    public var intValue: Int? {
        if case .number(let n) = resolved { return Int(n) ?? Double(n).flatMap { $0 == $0.rounded() && abs($0) < 9e15 ? Int($0) : nil } }
        return nil
    }
    public var isNull: Bool { self == .null }

    /// Equal values, whether kept as text or parsed.
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        case (.raw(let x), .raw(let y)): return x == y || a.resolved == b.resolved
        case (.raw, _): return a.resolved == b
        case (_, .raw): return a == b.resolved
        default: return false
        }
    }
}

// MARK: - Writing

extension JSON {
    /// Compact serialisation with sorted keys; deterministic for equal values.
    public func serialized() -> String {
        var out = ""
        // Room for the texts kept raw (a cached probe is most of a line), so the line is built
        // without growing.
        var room = 256
        if case .object(let o) = self {
            for case .raw(let t) in o.values { room += t.utf8.count }
        }
        out.reserveCapacity(room)
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .raw(let text): out += text
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            // Sort by UTF-8 bytes so the order never depends on locale or Unicode collation.
            let members = o.sorted { JSON.utf8Precedes($0.key, $1.key) }
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                JSON.writeString(m.key, to: &out)
                out += ":"
                m.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes: memcmp on the contiguous bytes native
    /// strings have, the element-wise comparison otherwise.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let r = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }
        if let r, let r { return r }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Most strings (paths, tags, codes) need no escaping: appended whole, the same bytes as
        // the scalar-by-scalar loop below writes, at a fraction of the cost.
        var plain = true
        var t = s
        t.withUTF8 { b in
            for c in b where c < 0x20 || c == 0x22 || c == 0x5C || c == 0xE2 { plain = false; break }
        }
        if plain {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    out += "\\u" + String(format: "%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

// MARK: - Reading

/// Why a line is not JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, CustomStringConvertible {
    public var reason: String
    public var offset: Int
    public var description: String { "\(reason) at byte \(offset + 1)" }
}

extension JSON {
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
    static func forEachMember(of text: UnsafeBufferPointer<UInt8>,
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

    /// Parses one JSON text; nesting deeper than `maxDepth` is refused rather than recursed into.
    public static func parse(_ text: String, maxDepth: Int = 256) throws -> JSON {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buf in
            var p = Parser(bytes: buf, count: buf.count - 1, maxDepth: maxDepth)
            p.skipSpace()
            let v = try p.value(depth: 0)
            p.skipSpace()
            if p.i != p.count { throw p.error("unexpected text after the JSON value") }
            return v
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        let count: Int
        let maxDepth: Int
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>, count: Int, maxDepth: Int) {
            self.bytes = bytes; self.count = count; self.maxDepth = maxDepth
        }

        func error(_ r: String) -> JSONParseError { JSONParseError(reason: r, offset: i) }

        mutating func skipSpace() {
            while i < count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        mutating func expect(_ word: String, _ v: JSON) throws -> JSON {
            for b in word.utf8 {
                guard i < count, bytes[i] == b else { throw error("invalid literal") }
                i += 1
            }
            return v
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            guard i < count else { throw error("unexpected end of input") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var o: [String: JSON] = [:]
                skipSpace()
                if i < count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                while true {
                    skipSpace()
                    guard i < count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                    let k = try string()
                    skipSpace()
                    guard i < count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                    i += 1
                    skipSpace()
                    o[k] = try value(depth: depth + 1)
                    skipSpace()
                    guard i < count else { throw error("unterminated object") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                    throw error("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                i += 1
                var a: [JSON] = []
                skipSpace()
                if i < count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                while true {
                    skipSpace()
                    a.append(try value(depth: depth + 1))
                    skipSpace()
                    guard i < count else { throw error("unterminated array") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                    throw error("expected ',' or ']'")
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            default: return try number()
            }
        }

        mutating func number() throws -> JSON {
            let start = i
            if i < count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < count else { throw error("invalid number") }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { throw error("invalid value") }
            if i < count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                if digits() == 0 { throw error("invalid number") }
            }
            if i < count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                if digits() == 0 { throw error("invalid number") }
            }
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
        }

        mutating func digits() -> Int {
            let s = i
            while i < count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            return i - s
        }

        mutating func hex4() throws -> UInt32 {
            guard i + 4 <= count else { throw error("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw error("invalid \\u escape")
                }
                v = v * 16 + d
                i += 1
            }
            return v
        }

        mutating func string() throws -> String {
            i += 1 // opening quote
            var raw: [UInt8] = []
            while true {
                guard i < count else { throw error("unterminated string") }
                let c = bytes[i]
                if c == UInt8(ascii: "\"") { i += 1; break }
                if c < 0x20 { throw error("control character in string") }
                if c != UInt8(ascii: "\\") { raw.append(c); i += 1; continue }
                i += 1
                guard i < count else { throw error("unterminated escape") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): raw.append(0x22)
                case UInt8(ascii: "\\"): raw.append(0x5C)
                case UInt8(ascii: "/"): raw.append(0x2F)
                case UInt8(ascii: "b"): raw.append(0x08)
                case UInt8(ascii: "f"): raw.append(0x0C)
                case UInt8(ascii: "n"): raw.append(0x0A)
                case UInt8(ascii: "r"): raw.append(0x0D)
                case UInt8(ascii: "t"): raw.append(0x09)
                case UInt8(ascii: "u"):
                    var u = try hex4()
                    if (0xD800..<0xDC00).contains(u), i + 6 <= count,
                       bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                        let save = i
                        i += 2
                        let lo = try hex4()
                        if (0xDC00..<0xE000).contains(lo) {
                            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                        } else { i = save }
                    }
                    let scalar = Unicode.Scalar(u) ?? "\u{FFFD}"
                    raw.append(contentsOf: Array(String(scalar).utf8))
                default: throw error("invalid escape")
                }
            }
            return String(decoding: raw, as: UTF8.self)
        }
    }
}
