import Foundation

/// A file's identity as records carry it, so a later tool can tell the file has changed since.
extension FileIdentity {
    /// The record form: `{"size_bytes": N, "modified_ns": T}`.
    public var json: JSON {
        .object(["size_bytes": .int(sizeBytes), "modified_ns": .int(modifiedNanoseconds)])
    }

    public init?(json: JSON?) {
        guard let j = json?.resolved, let s = j["size_bytes"]?.intValue, let m = j["modified_ns"]?.intValue, s >= 0 else { return nil }
        self.init(sizeBytes: UInt64(s), modifiedNanoseconds: Int64(m))
    }
}
