import Foundation

/// The shape of a fade, shared by lufs-normalize's fades and vo-align's ducking transitions.
/// Gain at position x in [0, 1] of a fade-in is x·e^(v(x−1)): v = 0 is linear, larger v is
/// more exponential (slow start, fast finish). A fade-out mirrors it: gain(1 − x).
public struct FadeCurve: Equatable, Sendable {
    public var velocity: Double

    public init(velocity: Double = 0) { self.velocity = velocity }

    public static let linear = FadeCurve(velocity: 0)

    /// Gain of a fade-in at position `x` (clamped to [0, 1]).
    @inline(__always)
    public func fadeIn(_ x: Double) -> Double {
        let t = min(max(x, 0), 1)
        return velocity == 0 ? t : t * exp(velocity * (t - 1))
    }

    /// Gain of a fade-out at position `x` (clamped to [0, 1]): 1 at the start, 0 at the end.
    @inline(__always)
    public func fadeOut(_ x: Double) -> Double { fadeIn(1 - x) }
}
