/// Text for XML and HTML outputs (the JUnit report, the loudness pictures and index), escaped once
/// for all of them.
public enum XMLText {
    /// Escapes markup characters for text and attribute values alike (line breaks and tabs as
    /// character references); characters XML 1.0 cannot carry become U+FFFD.
    public static func escaped(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.unicodeScalars.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case "\r": out += "&#13;"
            default:
                let v = u.value
                let allowed = v >= 0x20 && v != 0xFFFE && v != 0xFFFF && !(0xD800...0xDFFF).contains(v)
                out.unicodeScalars.append(allowed ? u : "\u{FFFD}")
            }
        }
        return out
    }
}
