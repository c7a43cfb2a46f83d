import AudioSignal
import Foundation

/// The limiter's analysis of a file kept in the cache (LimitedLoudnessModel's columns, about
/// 29 MB an hour of audio, written and read in place a piece at a time): written by lufs-measure --keep-analysis as it measures, and by
/// lufs-normalize after an analysis pass of its own; read by lufs-normalize, which then writes a
/// limited file in one pass. Keyed like every entry on the file as it is, and on what decides the
/// columns: the channel weights, the rate and the decoders installed. The columns are the same
/// bits the analysis pass would make, so the file written is the same either way.
public struct LimiterAnalysisCache {
    package static let kind = "limiter-analysis"
    package let cache: ResultCache

    public init(cache: ResultCache) { self.cache = cache }

    package static func settings(weights: [Double], sampleRate: Int) -> String {
        "weights=" + weights.map { String(describing: $0) }.joined(separator: ",") + ";rate=\(sampleRate);" + DecoderSignature.current
    }

    /// The stamp to store a fresh analysis of the file at `path` under, when it is still the file
    /// opened (`identity`); nil when it can't be stamped.
    public static func stamp(path: String, identity: FileIdentity) -> FileStamp? {
        guard let s = FileStamp.of(path), s.identity == identity else { return nil }
        return s
    }

    /// The kept analysis of the file at `path`, when it is the file opened (`identity`) and was
    /// analysed under these weights at this rate, as a model for a limiter with `settings`.
    public func model(path: String, identity: FileIdentity, weights: [Double], sampleRate: Int,
                      settings: TruePeakLimiter.Settings) -> LimitedLoudnessModel? {
        guard let stamp = Self.stamp(path: path, identity: identity), access(path, R_OK) == 0 else { return nil }
        return cache.readBytes(kind: Self.kind, settings: Self.settings(weights: weights, sampleRate: sampleRate),
                               path: path, stamp: stamp) { blob in
            try LimitedLoudnessModel.fromStored(count: blob.count, sampleRate: sampleRate, settings: settings) { buffer, n, at in
                try blob.read(into: buffer, count: n, at: at)
            }
        }
    }

    /// Whether an analysis of the file at `path` under these weights is kept.
    public func has(path: String, identity: FileIdentity, weights: [Double], sampleRate: Int) -> Bool {
        guard let stamp = Self.stamp(path: path, identity: identity) else { return false }
        return cache.contains(kind: Self.kind, settings: Self.settings(weights: weights, sampleRate: sampleRate), path: path, stamp: stamp)
    }

    /// Keeps `model`'s columns for the file `stamp` describes, when the file is still that file
    /// and the model is one of the source itself.
    public func store(_ model: LimitedLoudnessModel, path: String, stamp: FileStamp?, weights: [Double]) {
        guard let stamp, FileStamp.of(path) == stamp, let count = model.storedByteCount else { return }
        cache.storeBytes(kind: Self.kind, settings: Self.settings(weights: weights, sampleRate: model.sampleRate),
                         path: path, stamp: stamp, count: count) { blob in
            try model.writeStored { piece, at in try blob.write(from: piece.baseAddress!, count: piece.count, at: at) }
        }
    }
}
