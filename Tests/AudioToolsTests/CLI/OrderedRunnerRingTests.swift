import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The runner keeps results in a ring of `window` slots: with small windows, as many jobs as
/// slots, and results finishing out of order, every result still comes out once, in order.
@Suite struct OrderedRunnerRingTests {
    @Test(arguments: [(1, 1), (2, 2), (3, 3), (4, 2), (8, 3)])
    func smallWindowsKeepOrder(window: Int, jobs: Int) {
        var out: [Int] = []
        let runner = OrderedRunner<Int, Int>(jobs: jobs, window: window) { i in
            // Later items often finish first.
            if (i * 7) % 5 < 2 { usleep(UInt32((i * 13) % 300)) }
            return i
        }
        runner.run(input: 0..<1500) { out.append($0) }
        #expect(out == Array(0..<1500))
    }
}
