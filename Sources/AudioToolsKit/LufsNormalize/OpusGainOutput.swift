import AudioIO
import JSONValue

/// What a lossless gain and its undo both do with an Opus plan: write it in one atomic step and
/// report the header's figures the same way.
extension OpusHeaderGain.Plan {
    /// Writes the changed copy of `input` to `path` atomically; the input must still be the file
    /// the plan was made from (it is read twice: for the plan, then for the copy).
    func writeAtomically(from input: InputReader, to path: String, replaces: Bool) throws {
        let out = try AtomicOutput(path: path, overwrite: replaces)
        do {
            try copy.write(from: input, to: out)
            try input.checkUnchanged()
            try out.commit()
        } catch { out.abandon(); throw error }
    }

    /// The header gain before and after, and the R128 tags as written, in record order.
    var headerFacts: [String: JSON] {
        ["header_gain_q78": .int(newGainQ78), "previous_header_gain_q78": .int(oldGainQ78),
         "r128_tags": .object(Dictionary(uniqueKeysWithValues: tags.map { ($0.name, JSON.int($0.new)) }))]
    }
}
