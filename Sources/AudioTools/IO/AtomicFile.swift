import Foundation

/// Writes a small text file completely or not at all: to a temporary file in the same folder,
/// then renamed over the destination.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let tmp = dir + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: tmp))
            guard rename(tmp, path) == 0 else {
                throw ToolError(.unreadable, "\(ToolError.quoted(path)) can't be written: \(String(cString: strerror(errno))).",
                                suggestion: "Check that the folder exists and is writable.")
            }
        } catch {
            unlink(tmp)
            throw error
        }
    }
}
