import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The trial stretches kept while a pass reads the whole stream are exactly those frames.
struct TrialWindowsTests {
    @Test func keepsEachStretchOnceWhateverTheBlocksAndSeeks() throws {
        let rate = 1000, n = 30_000
        let left = (0..<n).map { Float($0) }, right = (0..<n).map { -Float($0) }
        let stretches = CodecOvershoot.stretches(durationSeconds: 30)  // 0–2.5 s, 12–15 s, 22.5–25.5 s
        let w = TrialWindows(MemoryAudioSource(sampleRate: rate, channels: [left, right]), stretches: stretches)
        var block = AudioBlock(channelCount: 2, capacity: 777)
        // A pass over the whole stream in odd-sized blocks, then a second one after a seek to 0.
        for _ in 0..<2 {
            try w.seek(toFrame: 0)
            while try w.read(into: &block, maxFrames: 777) > 0 {}
        }
        let expected = [0 ..< 2500, 12_000 ..< 15_000, 22_500 ..< 25_500]
        #expect(w.captured.count == 3)
        for (k, r) in expected.enumerated() {
            #expect(w.captured[k][0] == Array(left[r]))
            #expect(w.captured[k][1] == Array(right[r]))
        }
    }

    @Test func aStretchPastTheEndKeepsWhatThereIs() throws {
        let w = TrialWindows(MemoryAudioSource(sampleRate: 1000, channels: [(0..<5000).map { Float($0) }]),
                             stretches: [(start: 0, length: 2, lead: 0), (start: 4, length: 3, lead: 0.5)])
        var block = AudioBlock(channelCount: 1, capacity: 4096)
        while try w.read(into: &block, maxFrames: 4096) > 0 {}
        #expect(w.captured[0][0] == (0..<2000).map { Float($0) })
        #expect(w.captured[1][0] == (4000..<5000).map { Float($0) })
    }
}
