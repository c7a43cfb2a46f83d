/// Bounds-checked integer and text reads from byte arrays; every accessor returns nil instead of
/// trapping, so hostile input can never crash a parser.
package enum ProbeBytes {
    @inline(__always)
    package static func u8(_ b: [UInt8], _ i: Int) -> UInt8? { i >= 0 && i < b.count ? b[i] : nil }

    package static func be16(_ b: [UInt8], _ i: Int) -> UInt16? {
        guard i >= 0, i <= b.count - 2 else { return nil }
        return UInt16(b[i]) << 8 | UInt16(b[i + 1])
    }

    package static func be24(_ b: [UInt8], _ i: Int) -> UInt32? {
        guard i >= 0, i <= b.count - 3 else { return nil }
        return UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
    }

    package static func be32(_ b: [UInt8], _ i: Int) -> UInt32? {
        guard i >= 0, i <= b.count - 4 else { return nil }
        return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    package static func be64(_ b: [UInt8], _ i: Int) -> UInt64? {
        guard let hi = be32(b, i), let lo = be32(b, i + 4) else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }

    package static func le16(_ b: [UInt8], _ i: Int) -> UInt16? {
        guard i >= 0, i <= b.count - 2 else { return nil }
        return UInt16(b[i]) | UInt16(b[i + 1]) << 8
    }

    package static func le32(_ b: [UInt8], _ i: Int) -> UInt32? {
        guard i >= 0, i <= b.count - 4 else { return nil }
        return UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    package static func le64(_ b: [UInt8], _ i: Int) -> UInt64? {
        guard let lo = le32(b, i), let hi = le32(b, i + 4) else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }

    /// True when `b` holds exactly `ascii` at `i`.
    package static func matches(_ b: [UInt8], _ i: Int, _ ascii: String) -> Bool {
        matches(b, i, Array(ascii.utf8))
    }

    package static func matches(_ b: [UInt8], _ i: Int, _ bytes: [UInt8]) -> Bool {
        guard i >= 0, i <= b.count - bytes.count else { return false }
        for k in 0..<bytes.count where b[i + k] != bytes[k] { return false }
        return true
    }

    /// Four-character code as text; bytes outside printable Latin-1 become "?" (©nam stays ©nam).
    package static func fourCC(_ v: UInt32) -> String {
        var s = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let c = UInt8(truncatingIfNeeded: v >> UInt32(shift))
            if c >= 0x20 && c < 0x7F || c >= 0xA0 { s.unicodeScalars.append(Unicode.Scalar(c)) } else { s += "?" }
        }
        return s
    }

    package static func fourCC(_ s: String) -> UInt32 {
        var v: UInt32 = 0
        for scalar in s.unicodeScalars.prefix(4) { v = v << 8 | (UInt32(scalar.value) & 0xFF) }
        return v
    }

    /// Latin-1 decoding (every byte is a character), stopping at the first NUL.
    package static func latin1(_ b: ArraySlice<UInt8>) -> String {
        var s = ""
        for c in b {
            if c == 0 { break }
            s.unicodeScalars.append(Unicode.Scalar(c))
        }
        return s
    }

    /// UTF-8 decoding with replacement of bad sequences, stopping at the first NUL.
    package static func utf8(_ b: ArraySlice<UInt8>) -> String {
        let end = b.firstIndex(of: 0) ?? b.endIndex
        return String(decoding: b[b.startIndex..<end], as: UTF8.self)
    }

    /// Trimmed text, or nil when nothing printable is left.
    package static func cleaned(_ s: String) -> String? {
        var t = Substring(s)
        while let f = t.first, f.isWhitespace || f == "\u{0}" { t.removeFirst() }
        while let l = t.last, l.isWhitespace || l == "\u{0}" { t.removeLast() }
        return t.isEmpty ? nil : String(t)
    }

    /// `a + b` when it fits in UInt64.
    @inline(__always)
    package static func add(_ a: UInt64, _ b: UInt64) -> UInt64? {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? nil : r
    }
}

/// A read-through cache of 4 KiB pages over a ByteSource. Parsers issue many tiny header reads;
/// this turns them into few page reads and counts how many bytes really came from the source.
package final class ProbeReader {
    package static let pageSize = 4096
    /// Never keep more than this many pages (256 KiB); evicts everything when full (simple, bounded).
    package static let maxPages = 64

    package let source: ByteSource
    package let size: UInt64
    private var pages: [UInt64: [UInt8]] = [:]
    /// Bytes fetched from the underlying source so far.
    package private(set) var bytesRead: UInt64 = 0

    package init(_ source: ByteSource) {
        self.source = source
        self.size = source.size
    }

    private func page(_ index: UInt64) throws -> [UInt8] {
        if let p = pages[index] { return p }
        if pages.count >= ProbeReader.maxPages { pages.removeAll(keepingCapacity: true) }
        let p = try source.read(at: index * UInt64(ProbeReader.pageSize), count: ProbeReader.pageSize)
        bytesRead += UInt64(p.count)
        pages[index] = p
        return p
    }

    /// Up to `count` bytes at `offset` (fewer at EOF). `count` is clamped by the caller's bound and the file.
    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let want = Int(min(UInt64(count), size - offset))
        // Big reads bypass the cache: they are payloads, not headers.
        if want > ProbeReader.pageSize * 2 {
            let b = try source.read(at: offset, count: want)
            bytesRead += UInt64(b.count)
            return b
        }
        var out = [UInt8]()
        out.reserveCapacity(want)
        var pos = offset
        let end = offset + UInt64(want)
        while pos < end {
            let pi = pos / UInt64(ProbeReader.pageSize)
            let p = try page(pi)
            let inPage = Int(pos - pi * UInt64(ProbeReader.pageSize))
            if inPage >= p.count { break }
            let take = min(p.count - inPage, Int(end - pos))
            out.append(contentsOf: p[inPage..<(inPage + take)])
            pos += UInt64(take)
        }
        return out
    }
}
