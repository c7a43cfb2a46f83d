import Foundation

/// lufs-normalize --write-tags: the gain tags of the inputs rewritten, no audio written.
typealias LufsNormalizeTags = GainTagging

extension GainTagging {
    /// Options that make new audio, which --write-tags doesn't.
    static let audioOptions = ["out-dir", "output-template", "relative-to", "in-place", "overwrite", "format", "bit-depth",
                               "sample-rate", "allow-loss", "fade-in", "fade-out", "fade-curve", "fade-velocity",
                               "peak", "true-peak", "decode-encode-only"]

    init(options o: ParsedOptions, referenceLUFS: Double, album: Bool) throws {
        if let clash = Self.audioOptions.first(where: { o.has($0) }) {
            throw UsageError("--write-tags changes only the gain tags of the inputs and writes no audio, so it can't be combined with --\(clash).")
        }
        self.init(referenceLUFS: referenceLUFS, album: album, dryRun: o.flag("dry-run"))
    }
}
