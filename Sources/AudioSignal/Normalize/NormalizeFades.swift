import Foundation

/// Sample-accurate fade-in and fade-out for a stream of known length, applied block by block.
/// Fade-in frame k (0-based) gets `curve.fadeIn(k / fadeInFrames)`, so frame 0 is silent; the
/// fade-out mirrors it, frame `totalFrames − 1 − k` gets the same gain, so the last frame is silent.
/// Where the two overlap (a file shorter than both) the gains multiply.
package struct NormalizeFades: Equatable, Sendable {
    public let fadeInFrames: Int
    public let fadeOutFrames: Int
    public let totalFrames: Int
    public let curve: FadeCurve
    /// Frame index of the next block's first frame.
    public private(set) var position = 0

    public init(fadeInFrames: Int, fadeOutFrames: Int, totalFrames: Int, curve: FadeCurve) {
        self.fadeInFrames = max(0, fadeInFrames)
        self.fadeOutFrames = max(0, fadeOutFrames)
        self.totalFrames = max(0, totalFrames)
        self.curve = curve
    }

    /// Nothing to do: no fade in either direction.
    public var isIdentity: Bool { fadeInFrames == 0 && fadeOutFrames == 0 }

    /// The fade gain of frame `n` (frames past `totalFrames` are after the fade-out: 0).
    public func gain(atFrame n: Int) -> Double {
        var g = 1.0
        if n < fadeInFrames { g = curve.fadeIn(Double(max(n, 0)) / Double(fadeInFrames)) }
        let fromEnd = totalFrames - 1 - n
        if fromEnd < fadeOutFrames { g *= curve.fadeIn(Double(max(fromEnd, 0)) / Double(fadeOutFrames)) }
        return g
    }

    /// Multiplies the block by the fade gains of its frames and moves on by `block.frames`.
    public mutating func apply(to block: inout AudioBlock) {
        let n = block.frames
        defer { position += n }
        let fadeOutStart = totalFrames - fadeOutFrames
        // Frames [position, position + n) touch a fade only where they meet [0, fadeIn) or [fadeOutStart, ∞).
        let inEnd = min(n, max(0, fadeInFrames - position))
        let outStart = max(0, min(n, fadeOutStart - position))
        if inEnd == 0 && outStart == n { return }
        for c in 0..<block.channels.count {
            block.channels[c].withUnsafeMutableBufferPointer { ch in
                for i in 0..<inEnd { ch[i] *= Float(gain(atFrame: position + i)) }
                for i in max(outStart, inEnd)..<n { ch[i] *= Float(gain(atFrame: position + i)) }
            }
        }
    }
}
