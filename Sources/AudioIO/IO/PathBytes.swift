import Foundation
import Glibc

/// File names are bytes; records are UTF-8 text. A name that isn't valid UTF-8 (an old Latin-1
/// library's "Caf\xE9.mp3") is carried in text by an escape: each byte that isn't part of a
/// valid UTF-8 sequence becomes the private-use character U+EF00 + byte (U+EF80 ... U+EFFF), the
/// mapping MirBSD's OPTU-8 uses. A name that really holds one of those characters has its three
/// bytes escaped the same way, so the mapping is one-to-one and every tool opens the same file.
/// Every path a tool takes in (arguments, stdin lines, directory entries) goes through `string`,
/// and every path it hands the system goes through `bytes` / `withCString`.
public enum PathBytes {
    package static let escapeRange: ClosedRange<UInt32> = 0xEF80...0xEFFF

    /// The text form of a file name's bytes. With `text`, the bytes are text that may carry
    /// escapes already (a JSON record line): valid UTF-8 is taken as it is, and only bytes that
    /// aren't UTF-8 are escaped.
    public static func string<C: Collection>(_ bytes: C, text: Bool = false) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        // Fast path: valid UTF-8 with no byte that could start an escape character.
        if text || !b.contains(0xEE), let s = String(validating: b, as: UTF8.self) { return s }
        var scalars = String.UnicodeScalarView()
        func escape(_ x: UInt8) { scalars.append(Unicode.Scalar(0xEF00 + UInt32(x))!) }
        var i = 0
        while i < b.count {
            let x = b[i]
            if x < 0x80 { scalars.append(Unicode.Scalar(x)); i += 1; continue }
            if let (v, n) = decode(b, at: i) {
                if escapeRange.contains(v) && !text {
                    for k in i..<(i + n) { escape(b[k]) }
                } else {
                    scalars.append(Unicode.Scalar(v)!)
                }
                i += n
            } else {
                escape(x); i += 1
            }
        }
        return String(scalars)
    }

    /// One well-formed UTF-8 sequence at `i` (no overlongs, surrogates or values past U+10FFFF).
    private static func decode(_ b: [UInt8], at i: Int) -> (UInt32, Int)? {
        let x = b[i]
        let n: Int, lo: UInt8, hi: UInt8
        switch x {
        case 0xC2...0xDF: n = 2; lo = 0x80; hi = 0xBF
        case 0xE0: n = 3; lo = 0xA0; hi = 0xBF
        case 0xE1...0xEC, 0xEE...0xEF: n = 3; lo = 0x80; hi = 0xBF
        case 0xED: n = 3; lo = 0x80; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90; hi = 0xBF
        case 0xF1...0xF3: n = 4; lo = 0x80; hi = 0xBF
        case 0xF4: n = 4; lo = 0x80; hi = 0x8F
        default: return nil
        }
        guard i + n <= b.count, (lo...hi).contains(b[i + 1]) else { return nil }
        var v = UInt32(x) & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07)
        v = v << 6 | UInt32(b[i + 1] & 0x3F)
        for k in 2..<n {
            guard (0x80...0xBF).contains(b[i + k]) else { return nil }
            v = v << 6 | UInt32(b[i + k] & 0x3F)
        }
        return (v, n)
    }

    /// Whether `path` holds an escaped byte (so its bytes differ from its UTF-8).
    public static func isEscaped(_ path: String) -> Bool {
        path.utf8.contains(0xEE) && path.unicodeScalars.contains { escapeRange.contains($0.value) }
    }

    /// The file name's bytes, escapes undone.
    public static func bytes(_ path: String) -> [UInt8] {
        guard isEscaped(path) else { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for s in path.unicodeScalars {
            if escapeRange.contains(s.value) { out.append(UInt8(s.value - 0xEF00)) } else { out.append(contentsOf: String(s).utf8) }
        }
        return out
    }

    /// Calls `body` with the NUL-terminated bytes of `path`, for the system's file calls.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard isEscaped(path) else { return try path.withCString(body) }
        let raw = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try raw.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The text of a C string from the system (argv, a directory entry), escaped where needed.
    public static func string(cString p: UnsafePointer<CChar>) -> String {
        let n = strlen(p)
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { string(UnsafeBufferPointer(start: $0, count: n)) }
    }

    /// The name bytes of a directory entry, read in place up to its NUL: copying `d_name` whole
    /// reads its declared 256 bytes, past the end of a short entry and of readdir's buffer.
    public static func entryName(_ e: UnsafeMutablePointer<dirent>) -> [UInt8] {
        let name = UnsafeRawPointer(e) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let p = name.assumingMemoryBound(to: UInt8.self)
        return Array(UnsafeBufferPointer(start: p, count: strlen(name.assumingMemoryBound(to: CChar.self))))
    }

    /// `path` for a person to read: each escaped byte shown as U+FFFD, the replacement character.
    public static func display(_ path: String) -> String {
        guard isEscaped(path) else { return path }
        var v = String.UnicodeScalarView()
        for s in path.unicodeScalars { v.append(escapeRange.contains(s.value) ? "\u{FFFD}" : s) }
        return String(v)
    }

    // MARK: the system calls tools make on paths

    public static func stat(_ path: String, _ st: inout Glibc.stat) -> Int32 {
        withCString(path) { sysStat($0, &st) }
    }

    public static func lstat(_ path: String, _ st: inout Glibc.stat) -> Int32 {
        withCString(path) { sysLstat($0, &st) }
    }

    public static func exists(_ path: String) -> Bool {
        var st = Glibc.stat()
        return lstat(path, &st) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = Glibc.stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        withCString(path) { sysOpen($0, flags, mode) }
    }

    public static func access(_ path: String, _ mode: Int32) -> Int32 {
        withCString(path) { sysAccess($0, mode) }
    }

    public static func unlink(_ path: String) -> Int32 {
        withCString(path) { sysUnlink($0) }
    }

    public static func rename(_ from: String, _ to: String) -> Int32 {
        withCString(from) { f in withCString(to) { sysRename(f, $0) } }
    }

    public static func link(_ from: String, _ to: String) -> Int32 {
        withCString(from) { f in withCString(to) { sysLink(f, $0) } }
    }

    /// Creates `path` and the folders above it that are missing (mode 0777 before the umask);
    /// returns 0, or the errno of the first folder that couldn't be made.
    public static func makeDirectories(_ path: String) -> Int32 {
        if isDirectory(path) { return 0 }
        let parent = directoryName(path)
        if parent != path, !parent.isEmpty, !isDirectory(parent) {
            let e = makeDirectories(parent)
            if e != 0 { return e }
        }
        if withCString(path, { sysMkdir($0, 0o777) }) == 0 { return 0 }
        let e = errno
        // Something that isn't a folder already has the name.
        if e == EEXIST { return isDirectory(path) ? 0 : ENOTDIR }
        return e
    }

    /// The folder part of `path` ("." for a bare name, "/" for a name at the root).
    public static func directoryName(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        let d = p[..<slash]
        return d.isEmpty ? "/" : String(d)
    }

    /// The last component of `path`.
    public static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }
}

// The system calls under names the enum's own methods don't shadow.
private func sysStat(_ p: UnsafePointer<CChar>, _ st: inout stat) -> Int32 { stat(p, &st) }
private func sysLstat(_ p: UnsafePointer<CChar>, _ st: inout stat) -> Int32 { lstat(p, &st) }
private func sysOpen(_ p: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(p, flags, mode) }
private func sysAccess(_ p: UnsafePointer<CChar>, _ mode: Int32) -> Int32 { access(p, mode) }
private func sysUnlink(_ p: UnsafePointer<CChar>) -> Int32 { unlink(p) }
private func sysRename(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Int32 { rename(a, b) }
private func sysLink(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Int32 { link(a, b) }
private func sysMkdir(_ p: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 { mkdir(p, mode) }

extension PathBytes {
    /// A path's last component in curly quotes, as every sentence names a file; a name that
    /// isn't UTF-8 shows its undecodable bytes as U+FFFD.
    public static func quotedName(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        return "\u{201C}\(display(name))\u{201D}"
    }
}
