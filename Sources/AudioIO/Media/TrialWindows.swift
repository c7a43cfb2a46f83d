import AudioSignal
import Foundation

/// The trial stretches' decoded samples, copied while the analysis pass decodes the whole stream,
/// so the codec trial is fed from memory instead of starting one ffmpeg per stretch (each one
/// costs a start-up and a probe of every stream of the file). A few seconds a stretch.
package final class TrialWindows: AudioSource {
    private let inner: AudioSource
    /// Each stretch's frames in the stream.
    private let ranges: [Range<Int>]
    /// Each stretch's samples, planar, filled in order as the pass reaches them.
    package private(set) var captured: [[[Float]]]
    private var position = 0

    package var format: AudioFormat { inner.format }
    package var decodesCheaply: Bool { inner.decodesCheaply }

    /// `stretches` as CodecOvershoot.stretches (TrialStretches.choose) gives them (seconds, to the millisecond as a
    /// windowed decode would be asked for).
    package init(_ inner: AudioSource, stretches: [(start: Double, length: Double, lead: Double)]) {
        self.inner = inner
        let rate = Double(inner.format.sampleRate)
        func frames(_ s: Double) -> Int { Int(((s * 1000).rounded() / 1000 * rate).rounded()) }
        ranges = stretches.map { frames($0.start) ..< frames($0.start) + frames($0.length) }
        captured = stretches.map { _ in Array(repeating: [], count: inner.format.channelCount) }
    }

    package func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let n = try inner.read(into: &block, maxFrames: maxFrames)
        let here = position ..< position + n
        for (k, r) in ranges.enumerated() where !captured[k].isEmpty {
            // Only the next frames of a stretch (a re-read after a seek isn't copied twice).
            let next = r.lowerBound + captured[k][0].count
            guard next < r.upperBound, here.contains(next) else { continue }
            let end = min(r.upperBound, here.upperBound)
            for c in captured[k].indices {
                captured[k][c].append(contentsOf: block.channels[c][(next - position) ..< (end - position)])
            }
        }
        position += n
        return n
    }

    package func seek(toFrame frame: Int) throws {
        try inner.seek(toFrame: frame)
        position = frame
    }
}
