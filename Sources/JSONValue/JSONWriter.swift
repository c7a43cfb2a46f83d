import Foundation

/// Writing JSON: compact, keys sorted, so equal values always give the same bytes.
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
    package static func utf8Precedes(_ a: String, _ b: String) -> Bool {
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

    package static func writeString(_ s: String, to out: inout String) {
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
