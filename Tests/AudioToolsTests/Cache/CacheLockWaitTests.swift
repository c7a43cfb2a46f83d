import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A stuck lock costs the documented 15 seconds when opening the cache, not 15 of retries and
/// then a last attempt that waits 15 more.
@Suite struct CacheLockWaitTests {
    @Test func eachOpeningAttemptWaitsOnlyForTheTimeLeft() {
        #expect(ResultCache.openingBusyTimeout(remainingNanoseconds: 15_000_000_000) == 15_000)
        #expect(ResultCache.openingBusyTimeout(remainingNanoseconds: 2_500_000_000) == 2_500)
        // Past the deadline the last attempt doesn't wait at all (1 ms, SQLite's least).
        #expect(ResultCache.openingBusyTimeout(remainingNanoseconds: 0) == 1)
        #expect(ResultCache.openingBusyTimeout(remainingNanoseconds: -3_000_000_000) == 1)
        #expect(ResultCache.openingBusyTimeout(remainingNanoseconds: 60_000_000_000) == 15_000)
    }
}
