import Foundation

/// Counts the stretches where one channel's oversampled signal passes full scale (0 dBTP), from
/// per-frame inter-sample peaks handed over in frame order (as `TruePeakOversampler.kernel` gives
/// them): a frame over 1 more than `hold` frames after the last one starts a stretch, and the
/// first `kept` stretches' start frames are kept. Frames never handed over count as not over, so
/// whoever feeds it must hand over every frame whose value could pass 1.
package final class TruePeakOverCounter {
    /// Overs closer than this many frames are one stretch.
    public let hold: Int
    /// Start frames kept.
    public let kept: Int
    public private(set) var count = 0
    /// The first `kept` stretches' start frames (never below 0).
    public private(set) var startFrames: [Int] = []
    /// The last frame over full scale (far in the past before the first).
    private var lastOver = Int.min / 2

    public init(hold: Int, kept: Int) {
        self.hold = hold
        self.kept = kept
    }

    /// Takes `peaks[from ..< to]`, where `peaks[k]` is the peak of input position `start + k`,
    /// which covers frame `start + k − latency` (the oversampler's delay).
    package func add(_ peaks: UnsafePointer<Float>, from: Int, to: Int, start: Int, latency: Int) {
        for k in from..<to where peaks[k] > 1 {
            let f = start + k - latency
            if f - lastOver > hold {
                count += 1
                if startFrames.count < kept { startFrames.append(max(0, f)) }
            }
            lastOver = f
        }
    }
}
