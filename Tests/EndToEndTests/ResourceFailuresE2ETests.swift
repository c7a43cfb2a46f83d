import Foundation
import Testing
@testable import AudioTools

/// Failures of the machine's resources are said as such, with the system's reason.
@Suite struct ResourceFailuresE2ETests {
    /// Records to a full standard output (/dev/full) end the run with a sentence, not silently.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
    func aFullStandardOutputIsSaid() throws {
        let dir = E2E.tempDir("dev-full")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s])
        for tool in ["lufs-measure", "library-filter"] {
            let r = try E2E.program("/bin/sh", ["-c", "exec \"$0\" \"$1\" > /dev/full", E2E.binDir.appendingPathComponent(tool).path, dir + "/a.wav"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("can't write the records to standard output: No space left on device"), "\(tool): \(r.stderr)")
        }
    }
}
