import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// An Opus file whose first audio page is damaged: libopusfile passed over it, and the file was
/// measured a page short (3 s of 4) with exit 0. It is `malformed`, as a hole later in the file is.
@Suite struct OpusStartE2ETests {
    static let hasFFmpeg = E2E.has("ffmpeg")

    @Test(.enabled(if: hasFFmpeg, "ffmpeg (with libopus) makes the Opus file; make test-deps installs it"))
    func aDamagedFirstAudioPageIsMalformed() throws {
        let dir = E2E.tempDir("opus-start")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.opus"
        let made = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=4",
                                                    "-c:a", "libopus", "-page_duration", "1000000", f])
        #expect(made.status == 0, "\(made.stderr)")
        let whole = try E2E.run("lufs-measure", [f])
        #expect(whole.status == 0)
        #expect((whole.records.first?["loudness"]?["duration_seconds"]?.doubleValue ?? 0) > 3.9, "\(whole.stdout)")
        // One byte of the first audio page's body changed (page 2, after OpusHead and OpusTags).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: f)))
        var at = 0, page = 0
        while page < 2, let h = OggPageHeader(bytes, at: at) { at += h.headerLength + h.bodyLength; page += 1 }
        let h = try #require(OggPageHeader(bytes, at: at))
        #expect(h.sequence == 2 && h.granule != 0 && h.granule != UInt64.max)
        bytes[at + h.headerLength + h.bodyLength / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: f))
        let r = try E2E.run("lufs-measure", [f])
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.records.first?["error"]?["code"]?.stringValue == "malformed", "\(r.stdout)")
        #expect(r.records.first?["error"]?["message"]?.stringValue?.contains("first audio page") == true, "\(r.stdout)")
    }
}
