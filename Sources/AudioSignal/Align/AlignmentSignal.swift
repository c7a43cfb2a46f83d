/// A mono signal the aligner reads in windows, at the take's sample rate. The tool implements it
/// over decoded (and, for the reference, resampled and downmixed) files; only the windows the
/// aligner asks for need to be decoded, so memory stays bounded on long files.
public protocol AlignmentSignal {
    /// Total frames of the signal.
    var frameCount: Int { get }
    /// Returns exactly `count` samples starting at `from`. The aligner only asks for ranges
    /// inside `0..<frameCount` (it pads outside ranges with silence itself).
    func read(from: Int, count: Int) throws -> [Float]
}

/// An `AlignmentSignal` over samples already in memory (tests, short signals).
public struct MemoryAlignmentSignal: AlignmentSignal {
    /// The whole signal, mono, at the take's sample rate.
    public let samples: [Float]
    /// A signal over `samples` (mono, at the take's sample rate).
    public init(_ samples: [Float]) { self.samples = samples }
    /// The number of samples.
    public var frameCount: Int { samples.count }
    /// `count` samples from `from` (never throws).
    public func read(from: Int, count: Int) throws -> [Float] { Array(samples[from..<(from + count)]) }
}

extension AlignmentSignal {
    /// `count` samples from `from`, with silence wherever the range leaves the signal.
    package func readPadded(from: Int, count: Int) throws -> [Float] {
        let lo = max(from, 0), hi = min(from + count, frameCount)
        if lo == from && hi == from + count { return try read(from: from, count: count) }
        var out = [Float](repeating: 0, count: count)
        if hi > lo {
            let part = try read(from: lo, count: hi - lo)
            out.replaceSubrange((lo - from)..<(hi - from), with: part)
        }
        return out
    }
}
