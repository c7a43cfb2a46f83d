import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct RunnerTests {
    @Test(arguments: [1, 2, 7])
    func outputKeepsInputOrder(jobs: Int) {
        var out: [Int] = []
        let runner = OrderedRunner<Int, Int>(jobs: jobs, window: 8) { i in
            if i % 3 == 0 { usleep(2000) }
            return i * 10
        }
        runner.run(input: 0..<200) { out.append($0) }
        #expect(out == (0..<200).map { $0 * 10 })
    }

    @Test func emptyInput() {
        var count = 0
        OrderedRunner<Int, Int>(jobs: 2, window: 4) { $0 }.run(input: [Int]()) { _ in count += 1 }
        #expect(count == 0)
    }

    @Test func readsLazilyWithinTheWindow() {
        // The reader may run at most `window` items ahead of what has been emitted.
        let lock = NSLock()
        var produced = 0
        var maxAhead = 0
        var emitted = 0
        let input = AnySequence { () -> AnyIterator<Int> in
            var i = 0
            return AnyIterator {
                guard i < 100 else { return nil }
                lock.lock(); produced += 1; maxAhead = max(maxAhead, produced - emitted); lock.unlock()
                i += 1
                return i
            }
        }
        OrderedRunner<Int, Int>(jobs: 2, window: 5) { $0 }.run(input: input) { _ in
            lock.lock(); emitted += 1; lock.unlock()
        }
        #expect(emitted == 100)
        #expect(maxAhead <= 6)
    }
}
