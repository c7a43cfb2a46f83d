import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// ChildProcess ends its child on every path, promptly, and reports how it ended.
@Suite(.serialized) struct ChildProcessTests {
    @Test func waitReturnsStatusAndStderr() throws {
        let c = try ChildProcess("/bin/sh", ["-c", "echo out; echo oops >&2; exit 3"])
        let out = c.readData(upTo: 100)
        #expect(String(decoding: out, as: UTF8.self) == "out\n")
        #expect(c.readData(upTo: 100).isEmpty)
        let t = c.wait()
        #expect(t.status == 3)
        #expect(t.stderr == "oops\n")
    }

    /// A child blocked writing into a full pipe that nobody reads (ffmpeg after a refusal) and
    /// deaf to SIGTERM is still ended by `end()`.
    @Test func endStopsAChildBlockedOnAFullPipe() throws {
        for _ in 0..<20 {
            let c = try ChildProcess("/bin/sh", ["-c", "trap '' TERM; exec yes"])
            _ = c.readData(upTo: 10)
            let t = c.end()
            // Killed: by SIGKILL, or by SIGPIPE when the closed pipe reached it first.
            #expect(t.status == 128 + SIGKILL || t.status == 128 + SIGPIPE)
            #expect(kill(c.pid, 0) != 0)  // reaped: the pid is gone
            #expect(!ChildProcess.isRegistered(c.pid))
        }
    }

    /// Releasing the object ends the child too (the path every thrown refusal takes).
    @Test func releaseEndsTheChild() throws {
        var pid: pid_t = 0
        do {
            let c = try ChildProcess("/bin/sh", ["-c", "exec yes"])
            pid = c.pid
        }
        #expect(kill(pid, 0) != 0)
        #expect(!ChildProcess.isRegistered(pid))
    }

    @Test func stdinPipeFeedsTheChild() throws {
        let c = try ChildProcess("/bin/sh", ["-c", "wc -c"], stdin: .pipe)
        let bytes = [UInt8](repeating: 65, count: 100_000)
        // wc reads everything before it writes, so the whole input fits without reading stdout.
        #expect(bytes.withUnsafeBytes { c.write($0) })
        c.closeInput()
        let out = String(decoding: c.readData(upTo: 100), as: UTF8.self)
        #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == "100000")
        #expect(c.wait().status == 0)
    }

    /// Extra input pipes arrive as fds 3 and 4, each with its own bytes, in order.
    @Test func extraInputsArriveAsFds3And4() throws {
        let c = try ChildProcess("/bin/sh", ["-c", "a=$(wc -c <&3); b=$(cat <&4); echo $a $b"], extraInputs: 2)
        let first = [UInt8](repeating: 65, count: 70_000)   // more than a pipe holds
        let writer = Thread { _ = first.withUnsafeBytes { c.write($0, toExtra: 0) }; c.closeExtra(0) }
        writer.start()
        #expect(Array("four".utf8).withUnsafeBytes { c.write($0, toExtra: 1) })
        c.closeExtra(1)
        let out = String(decoding: c.readData(upTo: 100), as: UTF8.self)
        #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == "70000 four")
        #expect(c.wait().status == 0)
        #expect(!Array("late".utf8).withUnsafeBytes { c.write($0, toExtra: 1) })
    }

    /// A child killed while a writer is blocked on a full extra pipe: the write returns false.
    @Test func endUnblocksAnExtraPipeWriter() throws {
        signal(SIGPIPE, SIG_IGN)
        let c = try ChildProcess("/bin/sh", ["-c", "exec sleep 30"], extraInputs: 1)
        final class Box: @unchecked Sendable { var ok = true; var done = false }
        let box = Box()
        let bytes = [UInt8](repeating: 1, count: 1 << 20)
        let writer = Thread { box.ok = bytes.withUnsafeBytes { c.write($0, toExtra: 0) }; box.done = true }
        writer.start()
        usleep(100_000)
        c.end()
        var waited = 0
        while !box.done && waited < 5000 { usleep(1000); waited += 1 }
        #expect(box.done)
        #expect(!box.ok)
        #expect(kill(c.pid, 0) != 0)  // reaped
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/ffmpeg", []) }
    }
}
