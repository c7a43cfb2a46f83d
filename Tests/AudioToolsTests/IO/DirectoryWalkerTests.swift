import Foundation
import Testing
@testable import AudioTools

@Suite struct WalkerTests {
    @Test func walksSortedSkippingHidden() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for p in ["b/z.wav", "a.wav", "b/.hidden.wav", ".Song.mp3.icloud", "c/d/e.flac"] {
            let full = root + "/" + p
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: full, contents: Data())
        }
        let all = Array(DirectoryWalker(root: root)).map { String($0.dropFirst(root.count + 1)) }
        #expect(all == ["a.wav", "b/z.wav", "c/d/e.flac"])
        let withICloud = Array(DirectoryWalker(root: root, includeHidden: { $0.hasSuffix(".icloud") }))
        #expect(withICloud.count == 4)
    }
}
