/// Why a file's gain can't be changed in its bitstream: facts only (the sentences are the tool's,
/// in Tools/Errors/BitstreamGainSentences.swift).
public enum BitstreamGainError: Error, Equatable, Sendable {
    /// The format has no bitstream gain this build changes (`format` names what it is).
    case unsupportedFormat(String)
    /// The bytes at `offset` are not what the format requires there (`what` names the structure).
    case malformed(what: String, offset: Int)
    /// An Ogg page's stored checksum is wrong (page number `page`, counted from 0).
    case badChecksum(page: Int)
    /// More than one logical stream (multiplexed or chained Ogg).
    case severalStreams(Int)
    /// Opus's output gain would leave its signed 16-bit Q7.8 range (−128 … +128 dB).
    case opusGainOutOfRange(q78: Int)
    /// An R128 gain tag, kept true relative to the new header gain, would leave the Q7.8 range.
    case r128TagOutOfRange(name: String, q78: Int)
    /// A granule's (or channel stream's) `global_gain` would leave 0…255: `frame` counted from 0,
    /// `value` what it would become.
    case globalGainOutOfRange(frame: Int, value: Int)
    /// An AAC scale factor (0…255) or noise energy (−100…155), coded relative to global_gain, would
    /// leave its range: `frame` (raw_data_block, counted from 0), `value` what it would become.
    case scaleFactorOutOfRange(frame: Int, value: Int)
    /// The integrated loudness is undefined (silence), so there is no gain to reach a target.
    case undefinedLoudness
    /// The nearest reachable gain misses the target by more than half a step: `neededDB` asked,
    /// `reachedDB` the gain that keeps the true peak under the ceiling, `stepDB` the format's step.
    case targetOutOfReach(neededDB: Double, reachedDB: Double, stepDB: Double)
    /// Nothing to undo: the file (`format` names it) carries no undo record of lossless gain.
    case noUndoRecord(format: String)
    /// An undo record this can't apply: `left` and `right` steps differ (mp3gain's per-channel gain).
    case undoChannelsDiffer(left: Int, right: Int)
}
