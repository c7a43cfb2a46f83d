/// Buffers stdout lines and writes them in one go at `flush` (or once 64 KiB have gathered): one
/// system call per batch of ready records instead of one per record. `onClosed` runs when stdout
/// is closed or failing; `beforeWrite` just before each write (the progress line clears itself).
package final class LineWriter {
    private var pending = ""
    private let onClosed: () -> Void
    private let beforeWrite: () -> Void

    package init(onClosed: @escaping () -> Void, beforeWrite: @escaping () -> Void = {}) {
        self.onClosed = onClosed
        self.beforeWrite = beforeWrite
        pending.reserveCapacity(1 << 16)
    }

    package func append(_ line: String) {
        pending += line
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    package func flush() {
        guard !pending.isEmpty else { return }
        beforeWrite()
        if !ToolMain.writeStdout(pending) { onClosed() }
        pending.removeAll(keepingCapacity: true)
    }
}
