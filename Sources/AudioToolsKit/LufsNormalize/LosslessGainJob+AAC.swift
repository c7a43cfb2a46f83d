import AudioIO
import Foundation
import JSONValue
import ToolRunner

/// `lufs-normalize --lossless-gain` for AAC-LC: an ADTS stream changed whole, or every audio
/// track of an MP4/M4A/MOV patched in place, each by its own gain (LosslessGainJob+MP4.swift).
extension LosslessGainJob {
    /// Where the AAC is.
    package enum AACContainer: String { case adts, mp4 }

    /// ADTS (after any ID3v2 tags) or an ISO/QuickTime file, by the first bytes; nil otherwise.
    package static func aacContainer(_ src: ByteSource) -> AACContainer? {
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
    /// ADTS header (SBR signalled only in the frames is found by the walk) or every MP4 audio
    /// track's sample entry and AudioSpecificConfig.
    package static func checkAACProfile(_ src: ByteSource, _ container: AACContainer) throws {
        switch container {
        case .mp4:
            _ = try mp4Tracks(src)
        case .adts:
            guard let b = try? src.read(at: 0, count: 1 << 16) else { throw BitstreamGainError.malformed(what: "ADTS frame header", offset: 0) }
            let layout = try MP3GlobalGain.locate(b)
            guard layout.audioStart + 7 <= b.count else { throw BitstreamGainError.malformed(what: "ADTS frame header", offset: layout.audioStart) }
            try AACGlobalGain.checkObjectType(Int(b[layout.audioStart + 2] >> 6) + 1)
        }
    }

    /// Whether the AAC is a profile this changes (for the `lossy` refusal's suggestion).
    package static func aacIsChangeable(_ src: ByteSource, _ container: AACContainer) -> Bool {
        (try? checkAACProfile(src, container)) != nil
    }

    package func processAAC(_ record: Record, path: String, outPath: String, source: FileByteSource, container: AACContainer) throws -> Record {
        if container == .mp4 { return try processMP4(record, path: path, outPath: outPath, source: source) }
        try Self.checkAACProfile(source, container)
        let identity = try FileIdentity.of(path)
        let measured = try measure(record["loudness"], path: path, identity: identity)
        let plan = try LosslessGainPlan(measuredLUFS: measured.integrated, truePeakDBTP: measured.truePeak,
                                        targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, stepDB: AACGlobalGain.stepDB)
        let r = try AACGlobalGain.applyADTS(try source.read(at: 0, count: Int(source.size)), steps: plan.steps)
        if !dryRun {
            let out = try AtomicOutput(path: outPath, overwrite: replaces)
            do {
                try out.write(r.bytes)
                try out.commit()
            } catch { out.abandon(); throw error }
        }
        var facts = Self.aacFacts(r.result)
        facts["container"] = .string(container.rawValue)
        let record2 = LosslessGainRecord(outPath: outPath, dryRun: dryRun, codec: "aac", plan: plan,
                                         sourceLUFS: measured.integrated!, sourceTruePeakDBTP: measured.truePeak,
                                         targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, presetName: presetName,
                                         measuredHere: measured.here, notes: measured.notes, bitstream: ["aac": .object(facts)])
        var r2 = record
        r2["normalized"] = record2.json
        return r2
    }

    /// What the walk changed, as the record's `aac` object has it.
    package static func aacFacts(_ result: AACGlobalGain.Result) -> [String: JSON] {
        ["blocks": .int(result.blocks), "channel_streams": .int(result.channelStreams),
         "min_global_gain": .int(result.minGain), "max_global_gain": .int(result.maxGain)]
    }
}
