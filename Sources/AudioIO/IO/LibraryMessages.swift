import Foundation

/// What C libraries print on stderr by themselves (libmpg123 inside libsndfile: "Warning: Xing
/// stream size off by more than 1%, …"), caught while a decoder opens a file and handed to the
/// tool once per file and message, so it reaches the user with the tool's prefix, never bare.
public enum LibraryMessages {
    /// Held while fd 2 is redirected, and by this process's own writers of fd 2 (Diagnostics),
    /// so nothing of the tool's is caught.
    public static let stderrLock = NSLock()
    /// Where caught messages go: the file, and its messages on one line. The tools hand in their
    /// diagnostics; unset, the text goes to stderr as it came.
    nonisolated(unsafe) public static var sink: @Sendable (_ path: String, _ text: String) -> Void = { _, text in
        var t = text + "\n"
        t.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
    private static let reportedLock = NSLock()
    nonisolated(unsafe) private static var reported: Set<String> = []

    /// Runs `body` (a library opening `path`) with fd 2 sent to an unlinked temporary file, then
    /// hands what was written there to `sink`.
    public static func catching<T>(for path: String, _ body: () throws -> T) rethrows -> T {
        stderrLock.lock()
        let saved = fcntl(2, F_DUPFD_CLOEXEC, 0)
        if saved >= 0, spare < 0 { spare = anonymousFile() }
        let file = saved < 0 ? -1 : spare
        // Emptied, and its shared offset put back to the start, before fd 2 points at it.
        let redirected = file >= 0 && ftruncate(file, 0) == 0 && lseek(file, 0, SEEK_SET) == 0 && dup2(file, 2) >= 0
        defer {
            var caught: [UInt8] = []
            if redirected {
                fflush(stderr)
                _ = dup2(saved, 2)
                // Nothing said (the usual case): nothing to read.
                let said = lseek(file, 0, SEEK_CUR)
                var chunk = [UInt8](repeating: 0, count: 4096)
                var offset: off_t = 0
                while said > 0, caught.count < 1 << 16 {
                    let n = chunk.withUnsafeMutableBytes { pread(file, $0.baseAddress, 4096, offset) }
                    if n <= 0 { break }
                    caught += chunk[0..<n]
                    offset += off_t(n)
                }
            }
            if saved >= 0 { close(saved) }
            stderrLock.unlock()
            report(path: path, String(decoding: caught, as: UTF8.self))
        }
        return try body()
    }

    /// The lines of `text` not yet reported for `path`, handed on as one line.
    package static func report(path: String, _ text: String) {
        var fresh: [String] = []
        reportedLock.lock()
        for line in text.split(whereSeparator: \.isNewline) {
            let l = line.trimmingCharacters(in: .whitespaces)
            guard !l.isEmpty, !fresh.contains(l), reported.insert(path + "\n" + l).inserted else { continue }
            fresh.append(l)
        }
        reportedLock.unlock()
        if !fresh.isEmpty { sink(path, fresh.joined(separator: " ")) }
    }

    /// The file fd 2 goes to while a library opens a file: made once and emptied before each use
    /// (every libsndfile open passes here, so no file is made and unlinked per open).
    nonisolated(unsafe) private static var spare: Int32 = -1

    /// An unlinked temporary file (as ChildProcess keeps a child's stderr), closed on exec.
    private static func anonymousFile() -> Int32 {
        var template = Array((NSTemporaryDirectory() + "/audio-tools-library-stderr-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return -1 }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}
