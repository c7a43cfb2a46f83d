import Foundation

/// `lufs-normalize --lossless-gain` for AAC-LC: an ADTS stream changed whole, or the first audio
/// track of an MP4/M4A/MOV patched in place (the samples keep their sizes, so everything else in
/// the file stays byte for byte).
extension LosslessGainJob {
    /// Where the AAC is.
    enum AACContainer: String { case adts, mp4 }

    /// ADTS (after any ID3v2 tags) or an ISO/QuickTime file, by the first bytes; nil otherwise.
    static func aacContainer(_ src: ByteSource) -> AACContainer? {
        guard let head = try? src.read(at: 0, count: 16), head.count >= 8 else { return nil }
        if ["ftyp", "moov", "mdat", "wide", "free", "skip"].contains(String(decoding: head[4..<8], as: UTF8.self)) { return .mp4 }
        var at: UInt64 = 0
        while let h = try? src.read(at: at, count: 10), h.count == 10, h[0] == 0x49, h[1] == 0x44, h[2] == 0x33 {
            let size = Int(h[6] & 0x7F) << 21 | Int(h[7] & 0x7F) << 14 | Int(h[8] & 0x7F) << 7 | Int(h[9] & 0x7F)
            at += UInt64(10 + size + (h[5] & 0x10 != 0 ? 10 : 0))
        }
        guard let s = try? src.read(at: at, count: 2), s.count == 2, s[0] == 0xFF, s[1] & 0xF6 == 0xF0 else { return nil }
        return .adts
    }

    /// Refuses, before anything is measured, AAC of a profile this doesn't change: by the first
    /// ADTS header (SBR signalled only in the frames is found by the walk) or the MP4 track's
    /// AudioSpecificConfig.
    static func checkAACProfile(_ src: ByteSource, _ container: AACContainer) throws(BitstreamGainError) {
        switch container {
        case .mp4:
            _ = try AACGlobalGain.audioSpecificConfig(try AACMP4Samples.firstAudioTrack(src).asc)
        case .adts:
            guard let b = try? src.read(at: 0, count: 1 << 16) else { throw .malformed(what: "ADTS frame header", offset: 0) }
            let layout = try MP3GlobalGain.locate(b)
            guard layout.audioStart + 7 <= b.count else { throw .malformed(what: "ADTS frame header", offset: layout.audioStart) }
            try AACGlobalGain.checkObjectType(Int(b[layout.audioStart + 2] >> 6) + 1)
        }
    }

    /// Whether the AAC is a profile this changes (for the `lossy` refusal's suggestion).
    static func aacIsChangeable(_ src: ByteSource, _ container: AACContainer) -> Bool {
        (try? checkAACProfile(src, container)) != nil
    }

    /// The measurement of the audio changed: the record's when it is of this file as it is now
    /// (of its first audio stream), else measured here as lufs-measure measures.
    func measureAAC(_ record: Record, path: String, identity: FileIdentity, container: AACContainer)
        throws -> (integrated: Double?, truePeak: Double?, here: Bool, notes: [String]) {
        try measure(container == .mp4 ? RecordedLoudness.stream(record["loudness"], ordinal: 0) : record["loudness"],
                    path: path, identity: identity)
    }

    func processAAC(_ record: Record, path: String, outPath: String, source: FileByteSource, container: AACContainer) throws -> Record {
        try Self.checkAACProfile(source, container)
        let identity = try FileIdentity.of(path)
        let measured = try measureAAC(record, path: path, identity: identity, container: container)
        var notes = measured.notes
        let plan = try LosslessGainPlan(measuredLUFS: measured.integrated, truePeakDBTP: measured.truePeak,
                                        targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, stepDB: AACGlobalGain.stepDB)
        let result: AACGlobalGain.Result
        var facts: [String: JSON] = ["container": .string(container.rawValue)]
        switch container {
        case .adts:
            let r = try AACGlobalGain.applyADTS(try source.read(at: 0, count: Int(source.size)), steps: plan.steps)
            result = r.result
            if !dryRun {
                let out = try AtomicOutput(path: outPath, overwrite: replaces)
                do {
                    try out.write(r.bytes)
                    try out.commit()
                } catch { out.abandon(); throw error }
            }
        case .mp4:
            // The file is copied by the kernel on a thread of its own while the AAC is walked; the
            // changed chunks (same sizes) are then written over the copy.
            let copy = dryRun ? nil : try BackgroundCopy(source, to: outPath, overwrite: replaces)
            do {
                let r = try AACMP4Samples.patches(source, steps: plan.steps)
                result = r.result
                facts["patched_bytes"] = .int(r.patches.reduce(0) { $0 + $1.bytes.count })
                if r.audioTracks > 1 {
                    notes.append("The file has \(r.audioTracks) audio streams; the gain was taken by the first (the one measured), and the others were copied unchanged.")
                }
                var changes = PatchedCopy()
                for p in r.patches.sorted(by: { $0.offset < $1.offset }) { changes.patch(at: Int(p.offset), p.bytes) }
                try copy?.finish(patching: changes)
            } catch { copy?.abandon(); throw error }
        }
        facts["blocks"] = .int(result.blocks)
        facts["channel_streams"] = .int(result.channelStreams)
        facts["min_global_gain"] = .int(result.minGain)
        facts["max_global_gain"] = .int(result.maxGain)
        let record2 = LosslessGainRecord(outPath: outPath, dryRun: dryRun, codec: "aac", plan: plan,
                                         sourceLUFS: measured.integrated!, sourceTruePeakDBTP: measured.truePeak,
                                         targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, presetName: presetName,
                                         measuredHere: measured.here, notes: notes, bitstream: ["aac": .object(facts)])
        var r = record
        r["normalized"] = record2.json
        return r
    }
}
