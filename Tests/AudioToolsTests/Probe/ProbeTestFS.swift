import Foundation

/// Minimal file helpers for the byte-source tests, in the system's temporary directory.
enum ProbeTestFS {
    /// A fresh directory for one test; remove it with `removeTree`.
    static func makeTempDir() throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("probe-bytesource-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func removeTree(_ p: String) { try? FileManager.default.removeItem(atPath: p) }

    static func write(_ p: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: p))
    }
}
