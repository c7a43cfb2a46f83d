import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct WalkerTests {
    @Test func walksSortedSkippingHidden() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for p in ["b/z.wav", "a.wav", "b/.hidden.wav", ".Song.mp3.icloud", "c/d/e.flac"] {
            let full = root + "/" + p
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: full, contents: Data())
        }
        let all = Array(DirectoryWalker(root: root)).map { String($0.dropFirst(root.count + 1)) }
        #expect(all == ["a.wav", "b/z.wav", "c/d/e.flac"])
        let withICloud = Array(DirectoryWalker(root: root, includeHidden: { $0.hasSuffix(".icloud") }))
        #expect(withICloud.count == 4)
    }
}

@Suite struct DirectoryWalkerSkipTests {
    /// The walker itself knows no rule for names: it skips what `skipFile` takes, and the
    /// library's walk is that rule plus a tally.
    @Test func skipsWhatItIsToldToAndTheLibraryWalkCounts() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-skip-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for p in ["a.wav", "cover.jpg", "b.flac"] { _ = FileManager.default.createFile(atPath: root + "/" + p, contents: Data()) }
        let bare = Array(DirectoryWalker(root: root, skipFile: { name, _ in name.hasSuffix(".flac") }, leftOut: { _ in }))
        #expect(bare.map { String($0.dropFirst(root.count + 1)) } == ["a.wav", "cover.jpg"])
        let tally = WalkTally()
        let audio = Array(DirectoryWalker(root: root, tally: tally))
        #expect(audio.map { String($0.dropFirst(root.count + 1)) } == ["a.wav", "b.flac"])
        #expect(tally.filesSkipped == 1)
        #expect(Array(DirectoryWalker(root: root, skipNonAudio: false)).count == 3)
    }
}
