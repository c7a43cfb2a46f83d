import Foundation

/// The lowest correlation of a pair of channels over windows of `hopsPerWindow` hops, one window
/// starting at every hop (QC's 3-s windows every 100 ms): fed each hop's sums Σab, Σa², Σb², it
/// keeps the window's hops in a ring and their running sums, so each window costs an add and a
/// subtract per sum. The sums are added up afresh from the ring once a window, so rounding can't
/// build up over a long file.
package struct SlidingCorrelation {
    package struct Hop {
        package var ab = 0.0, aa = 0.0, bb = 0.0
        package var frames = 0
    }

    package let hopsPerWindow: Int
    /// A window counts only when both channels' mean power is at least this (linear).
    package let floorPower: Double
    private var ring: [Hop]
    private var next = 0
    private var filled = 0
    private var pushed = 0
    private var framesPushed = 0
    private var sum = Hop()
    /// The lowest correlation so far and the frame its window starts at (the first such window).
    package private(set) var minimum: Double?
    package private(set) var minimumStartFrame = 0
    package private(set) var counted = 0

    package init(hopsPerWindow: Int, floorPower: Double) {
        self.hopsPerWindow = max(1, hopsPerWindow)
        self.floorPower = floorPower
        ring = [Hop](repeating: Hop(), count: max(1, hopsPerWindow))
    }

    /// The next whole hop; a window ending with it is judged once the ring is full.
    package mutating func push(_ h: Hop) {
        if filled == hopsPerWindow {
            let old = ring[next]
            sum.ab -= old.ab; sum.aa -= old.aa; sum.bb -= old.bb; sum.frames -= old.frames
        } else {
            filled += 1
        }
        ring[next] = h
        next = (next + 1) % hopsPerWindow
        sum.ab += h.ab; sum.aa += h.aa; sum.bb += h.bb; sum.frames += h.frames
        framesPushed += h.frames
        pushed += 1
        if pushed % hopsPerWindow == 0 { sum = ring.reduce(into: Hop()) { $0.ab += $1.ab; $0.aa += $1.aa; $0.bb += $1.bb; $0.frames += $1.frames } }
        if filled == hopsPerWindow { consider(sum, startFrame: framesPushed - sum.frames) }
    }

    /// After the last hop, with the frames after it (`partial`, under a hop): a file shorter than
    /// one window is one window; a longer one also gets the window that ends at its last frame
    /// (the last hops but one, and the partial hop).
    package mutating func finish(partial: Hop) {
        if filled < hopsPerWindow {
            var all = sum
            all.ab += partial.ab; all.aa += partial.aa; all.bb += partial.bb; all.frames += partial.frames
            if all.frames > 0 { consider(all, startFrame: 0) }
        } else if partial.frames > 0 {
            let oldest = ring[next]
            var last = sum
            last.ab += partial.ab - oldest.ab; last.aa += partial.aa - oldest.aa; last.bb += partial.bb - oldest.bb
            last.frames += partial.frames - oldest.frames
            consider(last, startFrame: framesPushed + partial.frames - last.frames)
        }
    }

    private mutating func consider(_ w: Hop, startFrame: Int) {
        let floor = floorPower * Double(w.frames)
        guard w.aa > floor, w.bb > floor else { return }
        let r = w.ab / (w.aa * w.bb).squareRoot()
        counted += 1
        if minimum == nil || r < minimum! {
            minimum = r
            minimumStartFrame = startFrame
        }
    }
}
