import AudioSignal
import Foundation

/// A spill's values past its first chunk, in an unlinked temporary file: nothing is left on disk
/// whatever happens to the process. What every tool installs before its first measurement.
public final class TemporarySpillFile: SpillStorage {
    private let fd: Int32

    /// nil when no temporary file can be made (the spill then keeps its values in memory).
    public init?() {
        var template = Array((FileManager.default.temporaryDirectory.path + "/audio-tools-units-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        fd = made
    }

    deinit { close(fd) }

    public func write(_ bytes: UnsafeRawPointer, count: Int, at offset: Int) -> Bool {
        PositionedIO.writeAll(fd, bytes, count: count, at: Int64(offset)) == 0
    }

    public func read(into bytes: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        PositionedIO.read(fd, into: bytes, count: count, at: Int64(offset)) == count
    }

    /// Every spill made from now on keeps its values past the first chunk in a file of its own.
    public static func install() { SpillStorageMaker.make = { TemporarySpillFile() } }
}
