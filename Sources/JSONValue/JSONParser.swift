import Foundation

/// Why a line is not JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, CustomStringConvertible {
    public var reason: String
    public var offset: Int
    public var description: String { "\(reason) at byte \(offset + 1)" }
}

/// Parsing any JSON text into a value, with the byte offset of the first error.
extension JSON {
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
