import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// `lufs-normalize --lossless-gain`: the gain of an MP3 (global_gain) or an Opus file (the ID
/// header's output gain) changed in its bitstream, from the record's measurement, never decoding
/// the audio, with the undo record added to; the output written atomically, or only described
/// with --dry-run.
package struct LosslessGainJob {
    package let targetLUFS: Double
    package let ceilingDBTP: Double
    package let presetName: String?
    /// --overwrite or --in-place.
    package let replaces: Bool
    package let dryRun: Bool

    /// The codecs whose gain this changes, by what the file's bytes are.
    package enum Codec: String { case mp3, opus }

    /// What the bytes are: a codec this changes, or a refusal naming the format.
    package static func codec(_ b: [UInt8]) throws(BitstreamGainError) -> Codec {
        if b.count >= 4, b[0] == 0x4F, b[1] == 0x67, b[2] == 0x67, b[3] == 0x53 {
            if b.count >= 36, Array(b[28..<36]) == Array("OpusHead".utf8) { return .opus }
            throw .unsupportedFormat("Ogg without an Opus stream (Vorbis, FLAC or Speex)")
        }
        if b.count >= 3, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 { return .mp3 }
        if MP3GlobalGain.FrameHeader(b, 0) != nil { return .mp3 }
        throw .unsupportedFormat("not MP3, AAC or Opus")
    }

    /// Whether a lossy `path` could reach the target this way (for the `lossy` refusal's
    /// suggestion), from the record's `loudness`: its codec is one this changes and the plan
    /// reaches the target; in an MP4/MOV, every audio track is AAC-LC and each reaches it from
    /// its own stream's measurement.
    package static func couldReach(path: String, loudness: JSON?, targetLUFS: Double, ceilingDBTP: Double) -> Bool {
        guard let src = try? FileByteSource.input(path), let head = try? src.read(at: 0, count: 64) else { return false }
        func reaches(_ l: JSON?, _ step: Double) -> Bool {
            guard let lufs = l?["integrated_lufs"]?.doubleValue else { return false }
            return (try? LosslessGainPlan(measuredLUFS: lufs, truePeakDBTP: l?["true_peak_dbtp"]?.doubleValue, targetLUFS: targetLUFS,
                                          ceilingDBTP: ceilingDBTP, stepDB: step)) != nil
        }
        switch aacContainer(src) {
        case .mp4?:
            guard let tracks = try? mp4Tracks(src) else { return false }
            return tracks.allSatisfy { reaches(RecordedLoudness.stream(loudness, ordinal: $0.ordinal), AACGlobalGain.stepDB) }
        case .adts?:
            return aacIsChangeable(src, .adts) && reaches(loudness, AACGlobalGain.stepDB)
        case nil:
            guard let c = try? codec(head) else { return false }
            return reaches(loudness, c == .mp3 ? MP3GlobalGain.stepDB : OpusHeaderGain.stepDB)
        }
    }

    /// The sentence a `lossy` (or can't-write-back) refusal adds when --lossless-gain would reach
    /// the target from the record's measurement (empty otherwise; nothing is measured for it).
    package static func hint(_ record: Record, path: String, targetLUFS: Double, ceilingDBTP: Double) -> String {
        guard couldReach(path: path, loudness: record["loudness"], targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP) else { return "" }
        return " Or pass --lossless-gain: this file's gain can reach the target in its bitstream, with no re-encoding."
    }

    /// The measurement the gain comes from: `loudness` (a record's) when it is of this file as it
    /// is now, else measured here as lufs-measure measures, weighted by the speakers the file
    /// names (Opus and Vorbis surround are in Vorbis order, not the standard one).
    package func measure(_ loudness: JSON?, path: String, identity: FileIdentity)
        throws -> (integrated: Double?, truePeak: Double?, here: Bool, notes: [String]) {
        let recorded = try RecordedLoudness.check(loudness, identity: identity, path: path)
        let notes = recorded.note.map { [$0] } ?? []
        if let m = recorded.measured { return (m.integrated, m.truePeak, false, notes) }
        let opened = try Decoder.open(path)
        let layout = try ChannelLayout.choose(override: nil, speakerNames: opened.speakerNames,
                                              channelCount: opened.source.format.channelCount).layout
        let meter = LoudnessMeter(sampleRate: opened.source.format.sampleRate, weights: layout.weights)
        try Decoder.forEachBlock(opened.source) { meter.add($0) }
        let m = meter.finish()
        return (m.integratedLUFS, m.truePeakDBTP, true, notes)
    }

    package func process(_ record: Record, path: String, outPath: String) throws -> Record {
        let source = try FileByteSource.input(path)
        if let aac = Self.aacContainer(source) { return try processAAC(record, path: path, outPath: outPath, source: source, container: aac) }
        // Read a window at a time, never whole.
        let input = try InputReader(source)
        let identity = try FileIdentity.of(path)
        let codec = try Self.codec(try source.read(at: 0, count: 64))

        // The measurement: the record's, if it is of this file as it is now; else measured here.
        let m = try measure(record["loudness"], path: path, identity: identity)
        var notes = m.notes
        let measured = (integrated: m.integrated, truePeak: m.truePeak)
        let step = codec == .mp3 ? MP3GlobalGain.stepDB : OpusHeaderGain.stepDB
        let plan = try LosslessGainPlan(measuredLUFS: measured.integrated, truePeakDBTP: measured.truePeak,
                                        targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, stepDB: step)

        var facts: [String: JSON] = [:]
        switch codec {
        case .mp3:
            let r: MP3GlobalGain.Change
            if dryRun, let planned = try input.withMappedBytes(size: Int(source.size), { try MP3GlobalGain.plan($0, steps: plan.steps) }) {
                // Nothing to write: the frames are walked where the page cache holds them, uncopied.
                r = planned
            } else {
                // One pass: each window of the file read, its frames changed and written out (nothing
                // is written with --dry-run); a refusal met on the way drops what was written.
                let out = dryRun ? nil : try AtomicOutput(path: outPath, overwrite: replaces)
                do {
                    r = try MP3GlobalGain.change(size: Int(source.size), steps: plan.steps, read: { try input.read(at: $0, into: $1) },
                                                 write: out.map { out in { try out.write($0) } })
                    if let out {
                        // The file must not have changed while it was read.
                        try input.checkUnchanged()
                        try out.commit()
                    }
                } catch { out?.abandon(); throw error }
            }
            facts["mp3gain"] = .object([
                "frames": .int(r.frames),
                "min_global_gain": .int(r.minGain), "max_global_gain": .int(r.maxGain),
                "undo": .string(APEv2Tag.signed(r.undo.left) + "," + APEv2Tag.signed(r.undo.right)),
                "previous_undo": r.previousUndo.map { .string(APEv2Tag.signed($0.left) + "," + APEv2Tag.signed($0.right)) } ?? .null,
            ])
            if let p = r.previousUndo {
                notes.append("The file already carried mp3gain's undo record (\(APEv2Tag.signed(p.left)) steps); this change was added to it, so `mp3gain -u` restores the file as it was before either.")
            }
        case .opus:
            // The gain taken away is added to the file's undo record (a comment in OpusTags).
            let r = try OpusHeaderGain.plan(try source.read(at: 0, count: Int(source.size)), gainQ78: plan.steps, undo: .add)
            facts["opus"] = .object(r.headerFacts.merging([
                "undo": r.undoQ78.map { .int($0) } ?? .null, "previous_undo": r.previousUndoQ78.map { .int($0) } ?? .null,
            ]) { $1 })
            if let p = r.previousUndoQ78 {
                notes.append("The file already carried an undo record of lossless gain (\(p) in Q7.8); this change was added to it, so --undo-lossless-gain restores the file as it was before either.")
            }
            if !dryRun {
                try r.writeAtomically(from: input, to: outPath, replaces: replaces)
            }
        }
        let result = LosslessGainRecord(outPath: outPath, dryRun: dryRun, codec: codec.rawValue, plan: plan,
                                        sourceLUFS: measured.integrated!, sourceTruePeakDBTP: measured.truePeak,
                                        targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, presetName: presetName,
                                        measuredHere: m.here, notes: notes, bitstream: facts)
        var r = record
        r["normalized"] = result.json
        return r
    }
}
