import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What a decoding library prints by itself reaches the user through the tool: prefixed, with the
/// file named, once per file, however often the file is opened.
@Suite struct LibraryMessagesE2ETests {
    /// A VBR MP3 whose Xing header claims three times the bytes the file has: libmpg123 (inside
    /// libsndfile) warns "Xing stream size off by more than 1%" as it opens it.
    static func xingSizeOff(_ dir: String) throws -> String {
        try E2E.write(dir + "/src.wav", rate: 44100, channels: [E2E.sine(440, dBFS: -12, seconds: 3, rate: 44100)])
        let lame = try E2E.program("/usr/bin/env", ["lame", "--quiet", "-V", "2", dir + "/src.wav", dir + "/off.mp3"])
        #expect(lame.status == 0, "\(lame.stderr)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/off.mp3")))
        let xing = try #require((0..<(bytes.count - 16)).first { bytes[$0..<($0 + 4)].elementsEqual("Xing".utf8) })
        let flags = bytes[xing + 7]
        #expect(flags & 3 == 3, "frames and bytes fields present")
        let field = xing + 12  // after the tag, the flags and the frame count
        let claimed = UInt32(bytes.count * 3)
        for k in 0..<4 { bytes[field + k] = UInt8(truncatingIfNeeded: claimed >> (24 - 8 * k)) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/off.mp3"))
        return dir + "/off.mp3"
    }

    @Test(.enabled(if: E2E.has("lame"), "needs lame (make test-deps installs it)"))
    func mpg123sXingWarningIsSaidByTheToolOncePerFile() throws {
        let dir = E2E.tempDir("xing")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mp3 = try Self.xingSizeOff(dir)
        for tool in ["lufs-measure", "audio-probe"] {
            // Named twice: opened twice, said once.
            let r = try E2E.run(tool, ["--jobs", "1", mp3, mp3])
            #expect(r.status == 0, "\(tool): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.allSatisfy { $0.hasPrefix("\(tool): ") }, "\(tool): an unprefixed line: \(r.stderr)")
            let said = lines.filter { $0.contains("Xing stream size off") }
            #expect(said.count == 1, "\(tool): \(r.stderr)")
            #expect(said.first?.hasPrefix("\(tool): “off.mp3”: the decoding library said: Warning: Xing stream size off") == true, "\(r.stderr)")
        }
    }
}
