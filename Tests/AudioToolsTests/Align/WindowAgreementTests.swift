import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Whether the windows that show the backing back a placement: in take order, by a clear majority.
/// Windows every 2 s at 48 kHz, lags in frames, tolerance 24 frames (0.5 ms).
@Suite struct WindowAgreementTests {
    typealias P = LatencySegments.Point
    let tol = 24.0
    let a = 10_320.0, b = 7_680.0, c = 9_120.0  // 215, 160, 190 ms

    /// Windows every 2 s whose lags follow `lag(i)`.
    func points(_ count: Int, _ lag: (Int) -> Double) -> [P] {
        (0..<count).map { i in P(x: Double(i) * 96_000 + 48_000, y: lag(i)) }
    }

    func tally(_ pts: [P], _ lines: [Double], slope: Double = 0) -> WindowAgreement.Tally {
        WindowAgreement.tally(pts, intercepts: lines, slope: slope, tolerance: tol)
    }

    @Test func steadyTakeIsBackedByEveryWindow() {
        let t = tally(points(20) { _ in 8_640 }, [8_640])
        #expect(t.agreeing == Array(0..<20) && t.contradicting.isEmpty && t.elsewhere.isEmpty)
        #expect(t.withBacking == 20 && t.stands)
    }

    @Test func aFewMisfiresAreElsewhereNotContradictions() {
        // Two windows fooled by loud words land far from the line: 18 of 20 still back it.
        var pts = points(20) { _ in 8_640 }
        pts[3].y = 1_234; pts[11].y = -20_000
        let t = tally(pts, [8_640])
        #expect(t.elsewhere == [3, 11] && t.contradicting.isEmpty && t.agreeing.count == 18 && t.stands)
    }

    @Test func oneStep() {
        let t = tally(points(20) { $0 < 10 ? a : b }, [a, b])
        #expect(t.agreeing == Array(0..<20))
        #expect(t.stretchOf == Array(repeating: 0, count: 10) + Array(repeating: 1, count: 10))
        #expect(t.contradicting.isEmpty && t.stands)
    }

    @Test func twoSteps() {
        let t = tally(points(30) { $0 < 10 ? a : $0 < 20 ? b : c }, [a, b, c])
        #expect(t.agreeing.count == 30 && t.stands)
        #expect(t.stretchOf == (0..<30).map { $0 / 10 })
    }

    @Test func aStepBackToTheFirstLatency() {
        // 215 → 160 → 215 ms: the last windows lie on stretches 0 and 2 alike, and back stretch 2.
        let t = tally(points(30) { $0 < 10 || $0 >= 20 ? a : b }, [a, b, a])
        #expect(t.agreeing.count == 30 && t.contradicting.isEmpty && t.stands)
        #expect(t.stretchOf == (0..<30).map { $0 / 10 })
    }

    @Test func driftOf100ppmIsOneLine() {
        // 100 ppm over 10 minutes moves the lag by 60 ms (2880 frames): every window on the line.
        let pts = (0..<300).map { i -> P in let x = Double(i) * 96_000; return P(x: x, y: 8_640 + 1e-4 * x) }
        let t = tally(pts, [8_640], slope: 1e-4)
        #expect(t.agreeing.count == 300 && t.stands)
        // Against a constant, only the windows within 24 frames (240 000 frames = 2.5 windows) agree.
        let flat = tally(pts, [8_640])
        #expect(flat.agreeing == [0, 1, 2] && !flat.stands)
    }

    @Test func windowsGoingBackAndForthContradictTheStretches() {
        // A repeating score searched in the wrong place: mostly A then mostly B, but windows 4 and 6
        // show B among the A's, and 14 and 16 show A among the B's. 16 of 20 in order (80 %), yet
        // a genuine step can't make a window hear a latency that is not in effect during it.
        let pts = points(20) { i in [4, 6, 10, 11, 12, 13, 15, 17, 18, 19].contains(i) ? b : a }
        let t = tally(pts, [a, b])
        #expect(t.agreeing.count == 16)
        #expect(t.contradicting == [4, 6, 14, 16])
        #expect(t.elsewhere.isEmpty && !t.stands)
        let places = WindowAgreement.places(pts, slope: 0, tolerance: tol)
        #expect(places == [.init(lag: b, windows: 10), .init(lag: a, windows: 10)])
    }

    @Test func aMinorityIsNoPlacement() {
        // 12 of 29 windows on A, 9 on B, 8 scattered: A is the largest group but no majority.
        let pts = points(29) { i in i < 12 ? a : i < 21 ? b : 20_000 + Double(i) * 1_000 }
        let t = tally(pts, [a])
        #expect(t.agreeing.count == 12 && t.withBacking == 29 && t.contradicting.isEmpty && t.elsewhere.count == 17)
        #expect(!t.stands)
        let places = WindowAgreement.places(pts, slope: 0, tolerance: tol)
        #expect(places.prefix(2) == [.init(lag: a, windows: 12), .init(lag: b, windows: 9)])
        #expect(places.count == 10 && places.dropFirst(2).allSatisfy { $0.windows == 1 })
    }

    @Test func twoInThreeIsAClearMajority() {
        // 20 of 30 on the line stands (every rival has at most half as many); 19 of 30 does not.
        let t20 = tally(points(30) { $0 < 20 ? a : 40_000 + Double($0) * 1_000 }, [a])
        #expect(t20.agreeing.count == 20 && t20.stands)
        let t19 = tally(points(30) { $0 < 19 ? a : 40_000 + Double($0) * 1_000 }, [a])
        #expect(t19.agreeing.count == 19 && !t19.stands)
    }

    @Test func placesFollowTheDrift() {
        // Two places on the same 50 ppm drift: each window taken back to frame 0 along the slope.
        let pts = points(10) { i in (i % 2 == 0 ? a : b) + 5e-5 * (Double(i) * 96_000 + 48_000) }
        let places = WindowAgreement.places(pts, slope: 5e-5, tolerance: tol)
        #expect(places.count == 2 && places.allSatisfy { $0.windows == 5 })
        #expect(abs(places[0].lag - b) < 1e-6 && abs(places[1].lag - a) < 1e-6)
    }

    @Test func nothingShowsTheBacking() {
        let t = tally([], [a])
        #expect(t.agreeing.isEmpty && t.withBacking == 0 && !t.stands)
    }
}
