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

    /// Whether this is null, without parsing a raw text to find out.
    package var isNullText: Bool {
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
