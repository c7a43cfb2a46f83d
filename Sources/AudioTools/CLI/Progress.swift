import Foundation

/// A one-line progress report on stderr: rewritten in place on a terminal, otherwise a line at
/// most every two seconds.
final class Progress {
    private let enabled: Bool
    private let terminal: Bool
    private let tool: String
    private var done = 0
    private var failed = 0
    private var last = Date.distantPast
    private var shown = false

    init(enabled: Bool, terminal: Bool, tool: String) {
        self.enabled = enabled; self.terminal = terminal; self.tool = tool
    }

    func step(failed f: Bool, path: String?) {
        guard enabled else { return }
        done += 1
        if f { failed += 1 }
        let now = Date()
        guard now.timeIntervalSince(last) >= (terminal ? 0.1 : 2) else { return }
        last = now
        let name = path.map { String($0.split(separator: "/").last ?? "") } ?? ""
        let text = "\(tool): \(done) done, \(failed) failed\(name.isEmpty ? "" : " — \(name)")"
        if terminal { Diagnostics.write("\r\u{1B}[K" + text); shown = true } else { Diagnostics.write(text + "\n") }
    }

    /// Writes a line of its own on stderr, taking the progress line off the terminal first (the
    /// next step draws it again).
    func interject(_ line: String) {
        if enabled, terminal, shown { Diagnostics.write("\r\u{1B}[K" + line); shown = false } else { Diagnostics.write(line) }
    }

    func clear() {
        guard enabled else { return }
        if terminal, shown { Diagnostics.write("\r\u{1B}[K"); shown = false }
        if !terminal, done > 0 { Diagnostics.write("\(tool): \(done) done, \(failed) failed\n"); done = 0 }
    }
}
