import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// `lufs-normalize --lossless-gain` for the AAC-LC audio tracks of an MP4/M4A/MOV: every audio
/// track takes its own gain, from its own stream's measurement, and its samples are patched in
/// place (they keep their sizes, so the video, the subtitles and the samples' tables stay byte for
/// byte), and the undo record (aacgain's replaygain_undo item) is added to by TagLib. A track that
/// can't take its gain refuses the whole file, naming the stream, before anything is written.
extension LosslessGainJob {
    /// One audio track with its measurement and plan.
    package struct PlannedTrack {
        package var track: AACMP4Samples.Track
        package var measured: (integrated: Double?, truePeak: Double?, here: Bool, notes: [String])
        package var plan: LosslessGainPlan
    }

    /// Every audio track of the file, each checked to be AAC-LC with 1024-sample frames; a file
    /// with several names the stream that isn't.
    package static func mp4Tracks(_ src: ByteSource) throws -> [AACMP4Samples.Track] {
        let found = try AACMP4Samples.audioTracks(src)
        return try found.enumerated().map { k, t in
            try naming(k, of: found.count) {
                let track = try AACMP4Samples.track(src, t.trak, ordinal: k, index: t.index)
                _ = try AACGlobalGain.audioSpecificConfig(track.asc)
                return track
            }
        }
    }

    /// `body`, its BitstreamGainError naming audio stream `k` when the file has several.
    package static func naming<T>(_ k: Int, of count: Int, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as BitstreamGainError where count > 1 {
            throw BitstreamGainStreamError(stream: k, reason: e)
        }
    }

    /// Audio stream `k`'s measurement: the record's (its `loudness.streams` entry, or `loudness`
    /// when it is of that stream) when it is of this file as it is now, else measured here as
    /// lufs-measure measures that stream (weighted by the positions ffmpeg decodes for it).
    package func measureStream(_ loudness: JSON?, _ k: Int, of count: Int, path: String, identity: FileIdentity)
        throws -> (integrated: Double?, truePeak: Double?, here: Bool, notes: [String]) {
        let entry = RecordedLoudness.stream(loudness, ordinal: k)
        if count == 1 { return try measure(entry, path: path, identity: identity) }
        if let m = try RecordedLoudness.check(entry, identity: identity, path: path).measured { return (m.integrated, m.truePeak, false, []) }
        let why = entry?["integrated_lufs"] == nil ? "the record carried no measurement of it"
            : "the record's measurement of it carries no file identity to check it against"
        let note = "Audio stream \(k): \(why), so it was measured here (one extra pass)."
        if k == 0 {
            let m = try measure(nil, path: path, identity: identity)
            return (m.integrated, m.truePeak, true, [note])
        }
        let source = try FFmpegSource(path: path, audioStream: k)
        let channels = source.format.channelCount
        let names = source.channelMask.flatMap { ChannelLayout.speakerNames(waveMask: $0, channelCount: channels) }
        let layout = ChannelLayout.resolve(speakerNames: names, channelCount: channels).layout
        let meter = LoudnessMeter(sampleRate: source.format.sampleRate, weights: layout.weights)
        try Decoder.forEachBlock(source) { meter.add($0) }
        let m = meter.finish()
        return (m.integratedLUFS, m.truePeakDBTP, true, [note])
    }

    /// Every track's patches, the tracks walked at once, one thread each (they are independent);
    /// each track's outcome in stream order, so the refusal reported is the first stream's
    /// whatever the threads' timing.
    package static func walk(_ planned: [PlannedTrack], _ source: FileByteSource)
        throws -> [Result<(patches: [AACMP4Samples.Patch], result: AACGlobalGain.Result), Error>] {
        typealias Walked = Result<(patches: [AACMP4Samples.Patch], result: AACGlobalGain.Result), Error>
        final class Slots: @unchecked Sendable {
            let lock = NSLock()
            var walked: [Walked?]
            init(_ n: Int) { walked = Array(repeating: nil, count: n) }
        }
        let slots = Slots(planned.count)
        DispatchQueue.concurrentPerform(iterations: planned.count) { k in
            let p = planned[k]
            let r = Walked { try naming(p.track.ordinal, of: planned.count) { try AACMP4Samples.patches(source, track: p.track, steps: p.plan.steps) } }
            slots.lock.lock(); slots.walked[k] = r; slots.lock.unlock()
        }
        return slots.walked.map { $0! }
    }

    package func processMP4(_ record: Record, path: String, outPath: String, source: FileByteSource) throws -> Record {
        let tracks = try Self.mp4Tracks(source)
        let identity = try FileIdentity.of(path)
        let n = tracks.count
        // Every stream measured and planned before anything is written.
        let planned = try tracks.map { t in
            let m = try measureStream(record["loudness"], t.ordinal, of: n, path: path, identity: identity)
            let plan = try Self.naming(t.ordinal, of: n) {
                try LosslessGainPlan(measuredLUFS: m.integrated, truePeakDBTP: m.truePeak, targetLUFS: targetLUFS,
                                     ceilingDBTP: ceilingDBTP, stepDB: AACGlobalGain.stepDB)
            }
            return PlannedTrack(track: t, measured: m, plan: plan)
        }
        // The file is copied by the kernel on a thread of its own while the tracks are walked; the
        // changed chunks (same sizes) of every track are then written over the copy, in one
        // ascending pass.
        // The undo record (aacgain's item) added to, one pair for each track.
        let previousUndo = try AACUndoRecord.read(source)
        let before = previousUndo.flatMap(AACUndoRecord.steps)
        if previousUndo != nil, before == nil || before!.count != n {
            throw BitstreamGainError.malformed(what: "replaygain_undo item (one \"left,right\" pair for each of the \(n) audio tracks)", offset: 0)
        }
        let undo = AACUndoRecord.value(planned.indices.map { (before?[$0] ?? 0) - planned[$0].plan.steps })
        let copy = dryRun ? nil : try BackgroundCopy(source, to: outPath, overwrite: replaces)
        var streams: [LosslessGainRecord.Stream] = []
        do {
            var lists: [[AACMP4Samples.Patch]] = []
            for (p, walked) in zip(planned, try Self.walk(planned, source)) {
                let r = try walked.get()
                // A track whose gain is 0 steps is walked (so a damaged one is still refused) but
                // not written.
                let patches = p.plan.steps == 0 ? [] : r.patches
                lists.append(patches)
                var facts = Self.aacFacts(r.result)
                facts["patched_bytes"] = .int(patches.reduce(0) { $0 + $1.bytes.count })
                streams.append(LosslessGainRecord.Stream(ordinal: p.track.ordinal, index: p.track.index, plan: p.plan,
                                                         sourceLUFS: p.measured.integrated!, sourceTruePeakDBTP: p.measured.truePeak,
                                                         measuredHere: p.measured.here, facts: facts, factsKey: "aac"))
            }
            var merged = try AACMP4Samples.merged(lists)
            lists = []
            var changes = PatchedCopy()
            // Each chunk's bytes let go once copied into the patch list, so they are held once.
            for k in merged.indices {
                changes.patch(at: Int(merged[k].offset), merged[k].bytes)
                merged[k].bytes = []
            }
            try copy?.finish(patching: changes) { try AACUndoRecord.write(undo, to: $0, reported: outPath) }
        } catch { copy?.abandon(); throw error }

        let first = streams[0]
        var facts = first.facts
        facts["container"] = .string(AACContainer.mp4.rawValue)
        facts["undo"] = .string(undo)
        facts["previous_undo"] = previousUndo.map { .string($0) } ?? .null
        let undoNote = previousUndo.map { ["The file already carried an undo record of lossless gain (replaygain_undo \($0)); this change was added to it, so --undo-lossless-gain restores the file as it was before either."] } ?? []
        let result = LosslessGainRecord(outPath: outPath, dryRun: dryRun, codec: "aac", plan: first.plan,
                                        sourceLUFS: first.sourceLUFS, sourceTruePeakDBTP: first.sourceTruePeakDBTP,
                                        targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, presetName: presetName,
                                        measuredHere: first.measuredHere, notes: planned.flatMap(\.measured.notes) + undoNote,
                                        bitstream: ["aac": .object(facts)], streams: n > 1 ? streams : [])
        var r = record
        r["normalized"] = result.json
        return r
    }
}
