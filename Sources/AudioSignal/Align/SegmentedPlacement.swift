import Foundation

/// A take re-timed per stretch: where each stretch of steady latency lands on the reference
/// timeline, and how the stretches hand over to each other.
///
/// Stretch k begins at take frame `from_k` and has delay D_k (take frame t lands on output frame
/// t − D_k). Stretch k + 1 takes over at the output frame where its first take frame lands,
/// J_k = from_{k+1} − D_{k+1}, so every stretch starts exactly where it was performed. When the
/// latency fell at the change (D_{k+1} < D_k) stretch k runs on past its end by D_k − D_{k+1}
/// frames (those take frames are heard twice, once in each placement); when it rose, the last
/// D_{k+1} − D_k frames of stretch k are not heard. Around each J_k the two placements cross
/// over with equal-power gains (sin/cos) over `crossfade` frames centred on J_k.
package struct SegmentedPlacement: Sendable {
    public struct Stretch: Sendable, Equatable {
        public var from: Int
        public var delay: Int
        public init(from: Int, delay: Int) { self.from = from; self.delay = delay }
    }

    public let stretches: [Stretch]
    public let takeFrames: Int
    public let crossfade: Int
    /// J_k for k in 0..<stretches.count − 1 (output frames).
    public let joints: [Int]
    /// Output length: where the take's last frame lands in the last stretch, plus one.
    public let outputFrames: Int

    public init(stretches: [Stretch], takeFrames: Int, crossfade: Int) {
        precondition(!stretches.isEmpty && stretches[0].from == 0)
        self.stretches = stretches
        self.takeFrames = takeFrames
        self.crossfade = max(0, crossfade)
        joints = stretches.dropFirst().map { $0.from - $0.delay }
        outputFrames = max(0, takeFrames - stretches[stretches.count - 1].delay)
    }

    /// Frames each joint repeats (positive: the latency fell) or leaves out (negative).
    public func change(at joint: Int) -> Int { stretches[joint].delay - stretches[joint + 1].delay }

    /// Output frames where stretch k has any weight.
    public func span(_ k: Int) -> Range<Int> {
        let lo = k == 0 ? Int.min / 2 : joints[k - 1] - crossfade / 2
        let hi = k == stretches.count - 1 ? Int.max / 2 : joints[k] - crossfade / 2 + crossfade
        return max(lo, 0)..<max(min(hi, outputFrames), max(lo, 0))
    }

    /// Weight of stretch k at output frame n: 1 inside, sin/cos across the crossfades, 0 outside.
    public func gain(_ k: Int, at n: Int) -> Float {
        var g: Double = 1
        if k > 0 { g *= rise(n, joints[k - 1]) }
        if k < stretches.count - 1 { g *= (1 - rise(n, joints[k]) * rise(n, joints[k])).squareRoot() }
        return Float(g)
    }

    /// sin(π/2·u), u the position of n in the crossfade centred on `joint` (0 before, 1 after).
    private func rise(_ n: Int, _ joint: Int) -> Double {
        guard crossfade > 0 else { return n >= joint ? 1 : 0 }
        let start = joint - crossfade / 2
        let u = min(max((Double(n - start) + 0.5) / Double(crossfade), 0), 1)
        return sin(Double.pi / 2 * u)
    }
}
