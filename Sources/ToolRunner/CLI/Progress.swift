import Foundation

/// A one-line progress report on stderr: rewritten in place on a terminal, otherwise a line at
/// most every two seconds. When stdout is the same terminal, the line is cleared before records
/// are written there, so a record never starts on the progress line.
package final class Progress {
    private let enabled: Bool
    private let terminal: Bool
    private let sharesTerminalWithStdout: Bool
    private let tool: String
    private let write: (String) -> Void
    private var done = 0
    private var failed = 0
    private var last = Date.distantPast
    private var shown = false

    package init(enabled: Bool, terminal: Bool, sharesTerminalWithStdout: Bool = false, tool: String,
         write: @escaping (String) -> Void = Diagnostics.write) {
        self.enabled = enabled; self.terminal = terminal; self.tool = tool
        self.sharesTerminalWithStdout = sharesTerminalWithStdout; self.write = write
    }

    /// Whether stdout and stderr are one terminal (the same device): then what is written to
    /// stdout lands on the progress line.
    package static func stdoutSharesTerminalWithStderr() -> Bool {
        guard isatty(1) != 0, isatty(2) != 0 else { return false }
        var out = stat(), err = stat()
        guard fstat(1, &out) == 0, fstat(2, &err) == 0 else { return false }
        return out.st_rdev == err.st_rdev
    }

    /// Clears the progress line before stdout is written, when they share a terminal; the next
    /// step draws it again.
    package func yieldToStdout() {
        guard enabled, terminal, sharesTerminalWithStdout, shown else { return }
        write("\r\u{1B}[K"); shown = false
    }

    package func step(failed f: Bool, path: String?) {
        guard enabled else { return }
        done += 1
        if f { failed += 1 }
        let now = Date()
        guard now.timeIntervalSince(last) >= (terminal ? 0.1 : 2) else { return }
        last = now
        let name = path.map { String($0.split(separator: "/").last ?? "") } ?? ""
        let text = "\(tool): \(done) done, \(failed) failed\(name.isEmpty ? "" : " — \(name)")"
        if terminal { write("\r\u{1B}[K" + text); shown = true } else { write(text + "\n") }
    }

    /// Writes a line of its own on stderr, taking the progress line off the terminal first (the
    /// next step draws it again).
    package func interject(_ line: String) {
        if enabled, terminal, shown { Diagnostics.write("\r\u{1B}[K" + line); shown = false } else { Diagnostics.write(line) }
    }

    package func clear() {
        guard enabled else { return }
        if terminal, shown { write("\r\u{1B}[K"); shown = false }
        if !terminal, done > 0 { write("\(tool): \(done) done, \(failed) failed\n"); done = 0 }
    }
}
