import AudioIO
import Foundation
import JSONValue
import ToolRunner

/// `lufs-normalize --undo-lossless-gain`: the undo record a lossless gain left in a file
/// (mp3gain's MP3GAIN_UNDO in MP3, aacgain's replaygain_undo item in MP4/M4A/MOV, the
/// AUDIO_TOOLS_LOSSLESS_GAIN_UNDO comment in Opus) applied to its bitstream and then removed, so
/// the audio is the original's bytes again. Nothing is measured; the output is written atomically.
package struct LosslessGainUndo {
    /// --overwrite or --in-place.
    package let replaces: Bool

    package init(replaces: Bool) { self.replaces = replaces }

    package func process(_ record: Record, path: String, outPath: String) throws -> Record {
        let source = try FileByteSource.input(path)
        let input = try InputReader(source)
        var facts: [String: JSON] = [:]
        let codec: String, steps: [Int], stepDB: Double, found: String
        if let container = LosslessGainJob.aacContainer(source) {
            guard container == .mp4 else { throw BitstreamGainError.noUndoRecord(format: "ADTS AAC, which has no place for one") }
            (steps, found, facts) = try undoMP4(source, outPath: outPath)
            codec = "aac"
            stepDB = AACGlobalGain.stepDB
        } else if try LosslessGainJob.codec(try source.read(at: 0, count: 64)) == .mp3 {
            let size = Int(source.size)
            guard let u = try MP3GlobalGain.undoRecord(size: size, { try source.read(at: UInt64($0.lowerBound), count: $0.count) }) else {
                throw BitstreamGainError.noUndoRecord(format: "MP3")
            }
            guard u.left == u.right else { throw BitstreamGainError.undoChannelsDiffer(left: u.left, right: u.right) }
            let out = try AtomicOutput(path: outPath, overwrite: replaces)
            let r: MP3GlobalGain.Change
            do {
                r = try MP3GlobalGain.change(size: size, steps: u.left, undoing: true, read: { try input.read(at: $0, into: $1) },
                                             write: { try out.write($0) })
                try input.checkUnchanged()
                try out.commit()
            } catch { out.abandon(); throw error }
            codec = "mp3"
            steps = [u.left]
            stepDB = MP3GlobalGain.stepDB
            found = APEv2Tag.signed(u.left) + "," + APEv2Tag.signed(u.right) + "," + (u.wrap ? "W" : "N")
            facts["mp3gain"] = .object(["frames": .int(r.frames), "min_global_gain": .int(r.minGain), "max_global_gain": .int(r.maxGain)])
        } else {
            let bytes = try source.read(at: 0, count: Int(source.size))
            guard let u = try OpusHeaderGain.undoRecord(bytes) else { throw BitstreamGainError.noUndoRecord(format: "Opus") }
            let r = try OpusHeaderGain.plan(bytes, gainQ78: u, undo: .remove)
            try r.writeAtomically(from: input, to: outPath, replaces: replaces)
            codec = "opus"
            steps = [u]
            stepDB = OpusHeaderGain.stepDB
            found = String(u)
            facts["opus"] = .object(r.headerFacts)
        }
        var o: [String: JSON] = [
            "output": .string(outPath), "mode": .string("undo-lossless-gain"), "codec": .string(codec),
            "undone": .string(found), "steps": .array(steps.map { .int($0) }), "step_db": .double(stepDB, decimals: 8),
            "notes": .array([.string("The undo record (\(found)) was applied to the bitstream and removed, so the audio is the original's again; nothing was decoded or measured.")]),
        ]
        for (k, v) in facts { o[k] = v }
        var r = record
        r["normalized"] = .object(o)
        return r
    }

    /// Every audio track of an MP4/M4A/MOV moved by its undo steps (the samples patched in place
    /// over a copy), and the undo item removed by TagLib before the output is put in place.
    func undoMP4(_ source: FileByteSource, outPath: String) throws -> (steps: [Int], found: String, facts: [String: JSON]) {
        let tracks = try LosslessGainJob.mp4Tracks(source)
        guard let found = try AACUndoRecord.read(source) else { throw BitstreamGainError.noUndoRecord(format: "MP4") }
        guard let steps = AACUndoRecord.steps(found), steps.count == tracks.count else {
            throw BitstreamGainError.malformed(what: "replaygain_undo item (one \"left,right\" pair for each of the \(tracks.count) audio tracks)", offset: 0)
        }
        let copy = try BackgroundCopy(source, to: outPath, overwrite: replaces)
        var blocks = 0
        do {
            var lists: [[AACMP4Samples.Patch]] = []
            for (t, s) in zip(tracks, steps) {
                let r = try LosslessGainJob.naming(t.ordinal, of: tracks.count) { try AACMP4Samples.patches(source, track: t, steps: s) }
                lists.append(s == 0 ? [] : r.patches)
                blocks += r.result.blocks
            }
            var changes = PatchedCopy()
            for p in try AACMP4Samples.merged(lists) { changes.patch(at: Int(p.offset), p.bytes) }
            try copy.finish(patching: changes) { try AACUndoRecord.write(nil, to: $0, reported: outPath) }
        } catch { copy.abandon(); throw error }
        return (steps, found, ["aac": .object(["container": .string("mp4"), "blocks": .int(blocks)])])
    }
}
