import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Under `ulimit -v` and `ulimit -n` the tools end, with exit 0 or with a sentence and exit 1/2:
/// never a hang (threads waiting for one that couldn't start), never a signal (an allocation
/// that failed aborting the process).
@Suite(.serialized) struct LimitsE2ETests {
    /// Runs `tool args` under `limit` with a killing timeout; nil when it hung.
    static func limited(_ limit: String, _ tool: String, _ args: [String]) throws -> ChildProcess.Termination? {
        let c = try ChildProcess("/bin/sh", ["-c", limit + "; exec \"$@\"", "sh", E2E.binDir.appendingPathComponent(tool).path] + args,
                                 stdout: .null)
        guard NoHangE2ETests.finish(c, seconds: 60) != nil else { return nil }
        return c.wait()
    }

    static func expectEndsWithASentence(_ t: ChildProcess.Termination?, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let t else {
            Issue.record("\(what): hung, killed after 60 s", sourceLocation: sourceLocation)
            return
        }
        #expect([0, 1, 2].contains(t.status), "\(what): status \(t.status) \(t.stderr.prefix(300))", sourceLocation: sourceLocation)
        if t.status != 0 {
            #expect(!t.stderr.isEmpty, "\(what): failed in silence", sourceLocation: sourceLocation)
        }
    }

    @Test func lowLimitsEndWithASentenceNeverASignalOrAHang() throws {
        let dir = E2E.tempDir("limits")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -20, seconds: 20, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s, s])
        for kb in [60_000, 90_000, 100_000, 120_000, 150_000] {
            for (tool, args) in [("lufs-measure", [dir + "/a.wav"]),
                                 ("lufs-normalize", ["--target", "-16", "--overwrite", "--out-dir", dir + "/out", dir + "/a.wav"])] {
                let t = try Self.limited("ulimit -v \(kb)", tool, args)
                // Too low for the program to load at all is the loader's refusal (127), with its sentence.
                if let t, t.status == 127, t.stderr.contains("error while loading shared libraries") { continue }
                Self.expectEndsWithASentence(t, "\(tool) under ulimit -v \(kb)")
            }
        }
        for n in [6, 8, 10, 12] {
            for (tool, args) in [("lufs-measure", [dir + "/a.wav"]),
                                 ("lufs-normalize", ["--target", "-16", "--overwrite", "--out-dir", dir + "/out", dir + "/a.wav"])] {
                Self.expectEndsWithASentence(try Self.limited("ulimit -n \(n)", tool, args), "\(tool) under ulimit -n \(n)")
            }
        }
    }
}
