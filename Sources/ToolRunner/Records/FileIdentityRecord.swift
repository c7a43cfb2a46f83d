import AudioIO
import Foundation
import JSONValue

/// A file's identity as records carry it, so a later tool can tell the file has changed since.
/// Every integer stays below 2^53, so a record read and written again by a program that holds
/// numbers as doubles (jq 1.6) keeps them exactly: times are whole seconds plus nanoseconds, as
/// stat(2) gives them.
extension FileIdentity {
    /// The record form: `{"size_bytes": N, "mtime_sec": S, "mtime_nsec": NS, "ctime_sec": S,
    /// "ctime_nsec": NS, "fingerprint": "hex"}`; the change time and the fingerprint only when known.
    public var json: JSON {
        func sec(_ ns: Int64) -> JSON { .int(Int(ns.floorDiv(1_000_000_000))) }
        func nsec(_ ns: Int64) -> JSON { .int(Int(ns.floorMod(1_000_000_000))) }
        var o: [String: JSON] = ["size_bytes": .int(sizeBytes), "mtime_sec": sec(modifiedNanoseconds), "mtime_nsec": nsec(modifiedNanoseconds)]
        if let c = changedNanoseconds { o["ctime_sec"] = sec(c); o["ctime_nsec"] = nsec(c) }
        if let f = fingerprint { o["fingerprint"] = .string(f) }
        return .object(o)
    }

    /// Reads the record form, and the one audio-tools wrote before (`modified_ns`, nanoseconds in
    /// one integer, without change time or fingerprint).
    public init?(json: JSON?) {
        guard let j = json?.resolved, let s = j["size_bytes"]?.intValue, s >= 0 else { return nil }
        func time(_ name: String) -> Int64?? {
            guard let sv = j[name + "_sec"] else { return .some(nil) }
            guard let sec = sv.intValue, let ns = j[name + "_nsec"]?.intValue, (0..<1_000_000_000).contains(ns),
                  abs(sec) < Int.max / 2_000_000_000 else { return nil }
            return .some(Int64(sec) * 1_000_000_000 + Int64(ns))
        }
        guard let modified = time("mtime"), let changed = time("ctime") else { return nil }
        if let m = modified {
            self.init(sizeBytes: UInt64(s), modifiedNanoseconds: m, changedNanoseconds: changed,
                      fingerprint: j["fingerprint"]?.stringValue)
        } else if let m = j["modified_ns"]?.intValue {
            self.init(sizeBytes: UInt64(s), modifiedNanoseconds: Int64(m))
        } else {
            return nil
        }
    }
}

private extension Int64 {
    /// Division rounding towards minus infinity, so a time before 1970 has nanoseconds 0...999_999_999.
    func floorDiv(_ d: Int64) -> Int64 { let q = self / d; return (self % d < 0) ? q - 1 : q }
    func floorMod(_ d: Int64) -> Int64 { let r = self % d; return r < 0 ? r + d : r }
}
