import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// BlockBehind: every frame reaches the body once, in order, gathered into runs; `finish` waits
/// for the last; a handle dropped mid-stream stops its thread without waiting for the rest.
@Suite struct BlockBehindTests {
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var samples: [[Float]] = [[], []]
        var runs: [Int] = []
        func add(_ b: AudioBlock) {
            lock.lock(); defer { lock.unlock() }
            for c in 0..<2 { samples[c] += b.channels[c][0..<b.frames] }
            runs.append(b.frames)
        }
    }

    static func block(from start: Int, count n: Int) -> AudioBlock {
        AudioBlock(channels: [(start..<(start + n)).map { Float($0) }, (start..<(start + n)).map { -Float($0) }], frames: n)
    }

    @Test func everyFrameInOrderInRuns() {
        let seen = Seen()
        let behind = BlockBehind(channels: 2) { seen.add($0) }
        var at = 0
        for n in [1, 8192, 70_000, 0, 3, 65_536, 12_345] {
            behind.add(Self.block(from: at, count: n))
            at += n
        }
        behind.finish()
        behind.finish()  // a second finish does nothing
        #expect(seen.samples[0] == (0..<at).map { Float($0) })
        #expect(seen.samples[1] == (0..<at).map { -Float($0) })
        #expect(seen.runs.dropLast().allSatisfy { $0 == BlockBehind.handOverFrames }, "\(seen.runs)")
        #expect(seen.runs.reduce(0, +) == at)
    }

    @Test func droppedMidStreamItStopsWithoutTheRest() {
        let seen = Seen()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        do {
            let behind = BlockBehind(channels: 2) { b in
                seen.add(b)
                if seen.runs.count == 1 { started.signal(); release.wait() }
            }
            // Two runs queued behind a body that waits: the handle goes before they are seen.
            behind.add(Self.block(from: 0, count: 3 * BlockBehind.handOverFrames))
            #expect(started.wait(timeout: .now() + 10) == .success)
            release.signal()
        }
        // The deinit has returned: the thread has ended, having seen at most what was queued.
        let count = seen.runs.count
        usleep(50_000)
        #expect(seen.runs.count == count && count >= 1 && count <= 3)
    }
}
