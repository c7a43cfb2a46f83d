import AudioSignal
#if canImport(Glibc)
import Foundation
import Glibc
#endif

/// A file copied into an AtomicOutput by the kernel on a thread of its own while the caller works
/// out which bytes change, then those bytes written over the copy and the output committed. For a
/// bitstream change that keeps every size (the AAC samples of an MP4): the copy and the walk
/// overlap instead of running one after the other.
public final class BackgroundCopy: @unchecked Sendable {
    private let input: InputReader
    private let out: AtomicOutput
    private let done = DispatchSemaphore(value: 0)
    private var failure: Error?
    private var joined = false
    private var settled = false

    /// Starts copying `source` into a new output at `path` (unnamed until committed).
    public init(_ source: FileByteSource, to path: String, overwrite: Bool) throws {
        input = try InputReader(source)
        out = try AtomicOutput(path: path, overwrite: overwrite)
        var whole = PatchedCopy()
        whole.copy(0..<Int(source.size))
        let plan = whole
        let thread = Thread { [self] in
            do { try plan.write(from: input, to: out) } catch { failure = error }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func join() {
        if !joined { done.wait(); joined = true }
    }

    /// Waits for the copy, writes the patches of `changes` (its pieces are ignored: the copy is the
    /// whole input) over it, lets `editing` change the output through a path (a tag written by
    /// TagLib), checks the input didn't change meanwhile, and commits.
    public func finish(patching changes: PatchedCopy, editing: ((String) throws -> Void)? = nil) throws {
        join()
        guard !settled else { return }
        settled = true
        do {
            if let failure { throw failure }
            for k in 0..<changes.patchCount {
                try write(changes.patchContent(k), at: changes.patchOffsets[k])
            }
            try editing?(out.editablePath)
            try input.checkUnchanged()
            try out.commit()
        } catch { out.abandon(); throw error }
    }

    /// Waits for the copy and leaves nothing behind.
    public func abandon() {
        join()
        guard !settled else { return }
        settled = true
        out.abandon()
    }

    private func write(_ bytes: ArraySlice<UInt8>, at offset: Int) throws {
        try bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            let e = PositionedIO.writeAll(out.fd, base, count: b.count, at: Int64(offset))
            if e != 0 { throw WriteError(out.path, .failed(.writing, errno: e)) }
        }
    }
}
