import AudioSignal
import Foundation
import JSONValue

/// The record's `qc` object: what `QCAnalyser` found, channels by their layout names, times in
/// seconds to the millisecond, and with a QC gate its verdict under `qc.gate`.
package enum QCRecord {
    package static func json(_ r: QCAnalyser.Result, names: [String], programmeLUFS: Double?, gate: QCGate?) -> JSON {
        func name(_ c: Int) -> JSON { .string(c < names.count ? names[c] : "ch\(c + 1)") }
        func seconds(_ v: Double) -> JSON { .double(v, decimals: 3) }
        var notes: [String] = []
        var monoLoss: Double?
        let front = r.frontPairLUFS ?? programmeLUFS
        if !r.hasFrontPair {
            notes.append("A file of one channel has no pair, so its correlation and mono loss are undefined.")
        } else if r.monoFoldDownLUFS == nil {
            notes.append("The mono fold-down is silent (or below the −70 LUFS gate), so the mono loss is undefined: the front channels cancel.")
        } else if let p = front, let m = r.monoFoldDownLUFS {
            monoLoss = p - m
        } else {
            notes.append("The programme's loudness is undefined, so the mono loss is undefined.")
        }
        if r.hasFrontPair, r.minCorrelation == nil {
            notes.append("No 3-s window has signal in both front channels, so the minimum correlation is undefined.")
        }
        if r.dropoutCount > r.dropouts.count {
            notes.append("\(r.dropoutCount) dropouts; the first \(r.dropouts.count) are listed.")
        }
        if r.allSilent { notes.append("The whole file is digital silence.") }
        var o: [String: JSON] = [
            "clipping": .object([
                "runs": .int(r.clippedRuns),
                "times": .array(r.clippedRunTimes.map(seconds)),
                "time_channels": .array(r.clippedRunChannels.map { .array($0.map(name)) }),
                "overs": .int(r.overs),
                "over_times": .array(r.overTimes.map(seconds)),
                "over_time_channels": .array(r.overChannels.map { .array($0.map(name)) }),
            ]),
            "dc_offset_dbfs": .array(r.dcOffsetDBFS.map { .optional($0, decimals: 1) }),
            "phase": .object([
                "min_correlation": .optional(r.minCorrelation, decimals: 2),
                "min_correlation_at_seconds": r.minCorrelationAtSeconds.map(seconds) ?? .null,
                "mono_fold_down_lufs": .optional(r.monoFoldDownLUFS, decimals: 2),
                "mono_loss_db": .optional(monoLoss, decimals: 2),
            ]),
            "silence": .object([
                "head_seconds": seconds(r.headSilenceSeconds),
                "tail_seconds": seconds(r.tailSilenceSeconds),
                "dropouts": .array(r.dropouts.map { .object(["at_seconds": seconds($0.atSeconds), "duration_seconds": seconds($0.durationSeconds)]) }),
            ]),
            "channels": .object([
                "silent": .array(r.silentChannels.map(name)),
                "identical": .array(r.identicalPairs.map { .array($0.map(name)) }),
                "inverted": .array(r.invertedPairs.map { .array($0.map(name)) }),
            ]),
            "notes": .array(notes.map { .string($0) }),
        ]
        if let l = r.levels, gate?.needsLevels == true {
            o["levels"] = levelsJSON(l, names: names)
            if l.samplePeakDBFS == nil { notes.append("The whole file is digital silence, so its sample peak, RMS and noise floor are -inf dBFS (null).") } else if l.noiseFloorDBFS == nil {
                notes.append("The quietest 0.5 s is digital silence, so the noise floor is -inf dBFS (null): ACX asks for room tone, not silence.")
            }
            if l.shorterThanWindow { notes.append("The file is shorter than 0.5 s, so its noise floor is the whole file's RMS.") }
            o["notes"] = .array(notes.map { .string($0) })
        }
        if let g = gate {
            let failures = g.evaluate(r, names: names)
                + g.levelFaults(r).map { QCGate.Failure(gate: $0.gate, reason: $0.reason(names: names), atSeconds: $0.atSeconds) }
            o["gate"] = .object([
                "pass": .bool(failures.isEmpty),
                "reasons": .array(failures.map { .string($0.reason) }),
                "failures": .array(failures.map {
                    .object(["gate": .string($0.gate), "reason": .string($0.reason), "at_seconds": $0.atSeconds.map(seconds) ?? .null])
                }),
            ])
        }
        return .object(o)
    }

    /// `qc.levels`: ACX's figures, dBFS to 0.01, times in seconds to the millisecond.
    package static func levelsJSON(_ l: LevelMeter.Levels, names: [String]) -> JSON {
        let c = l.samplePeakChannel
        return .object([
            "sample_peak_dbfs": .optional(l.samplePeakDBFS, decimals: 2),
            "sample_peak_at_seconds": l.samplePeakDBFS == nil ? .null : .double(l.samplePeakAtSeconds, decimals: 3),
            "sample_peak_channel": l.samplePeakDBFS == nil ? .null : .string(c < names.count ? names[c] : "ch\(c + 1)"),
            "rms_dbfs": .optional(l.rmsDBFS, decimals: 2),
            "noise_floor_dbfs": .optional(l.noiseFloorDBFS, decimals: 2),
            "noise_floor_at_seconds": .double(l.noiseFloorAtSeconds, decimals: 3),
        ])
    }

    /// The failed QC gates of a record, for the report's picture: (gate, seconds).
    package static func failures(_ record: JSON?) -> [(gate: String, atSeconds: Double)] {
        (record?["gate"]?["failures"]?.arrayValue ?? []).compactMap { f in
            guard let g = f["gate"]?.stringValue, let t = f["at_seconds"]?.doubleValue else { return nil }
            return (g, t)
        }
    }
}
