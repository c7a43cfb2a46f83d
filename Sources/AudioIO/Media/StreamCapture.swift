import AudioSignal
import Foundation

/// A short stream's decoded samples, kept while the analysis pass decodes it whole, so its encode
/// is fed from memory instead of decoding the stream a second time (one ffmpeg start-up and one
/// decode fewer). Only up to `limit` samples (all channels): a longer stream is not kept, so
/// memory stays flat on a long film. Frames are kept in order from the first; a pass that seeks
/// away and back keeps nothing twice.
package final class StreamCapture: AudioSource {
    /// At most this many samples (frames times channels) are kept: 32 MiB of floats, about 80 s of
    /// 48 kHz stereo.
    package static let limit = 1 << 23

    private let inner: AudioSource
    private let limit: Int
    private var kept: [[Float]]
    private var position = 0
    private var over = false
    private var ended = false

    package var format: AudioFormat { inner.format }
    package var decodesCheaply: Bool { inner.decodesCheaply }

    /// `expectedFrames`: the stream's length as the container states it, for a decoder that
    /// doesn't know it (an ffmpeg pipe): a stream known to be longer is not kept at all, rather
    /// than kept up to the limit and dropped (about 35 MB of growing arrays on every limited
    /// stream of a film).
    package init(_ inner: AudioSource, limit: Int = StreamCapture.limit, expectedFrames: Int? = nil) {
        self.inner = inner
        self.limit = limit
        kept = Array(repeating: [], count: inner.format.channelCount)
        // A stream the header says is longer is not kept at all.
        if let n = inner.format.frameCount ?? expectedFrames, n * max(1, inner.format.channelCount) > limit { over = true }
    }

    package func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let n = try inner.read(into: &block, maxFrames: maxFrames)
        let have = kept.first?.count ?? 0
        if n == 0 {
            if position == have { ended = true }
        } else if !over, position <= have, have < position + n, !kept.isEmpty {
            // Only the frames after those kept (a re-read after a seek back isn't kept twice).
            if (position + n) * kept.count > limit {
                over = true
                kept = []
            } else {
                for c in kept.indices { kept[c].append(contentsOf: block.channels[c][(have - position) ..< n]) }
            }
        }
        position += n
        return n
    }

    package func seek(toFrame frame: Int) throws {
        try inner.seek(toFrame: frame)
        position = frame
    }

    /// The whole stream, planar, when it was read to its end and kept; else nil.
    package var whole: [[Float]]? { ended && !over && !kept.isEmpty && !kept[0].isEmpty ? kept : nil }
}
