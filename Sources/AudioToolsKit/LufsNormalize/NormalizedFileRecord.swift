import AudioIO
import AudioSignal
import Foundation
import JSONValue

/// The `normalized` object of a file lufs-normalize wrote: what was done to it and what was
/// measured on the samples written, with a note for everything a reader should know (limiting,
/// a shortfall, peaks let through, a target out of reach, lossy encoding, fades).
public struct NormalizedFileRecord {
    public var outPath: String
    public var format: LufsNormalizeFormat
    public var report: NormalizeReport
    /// The measurement of the samples written.
    public var written: LoudnessMeasurement
    public var gain: NormalizeGainPlan
    public var decision: NormalizeDecision
    public var targetLUFS: Double
    public var ceilingDBTP: Double
    public var presetName: String?
    public var peakMode: PeakMode
    /// One gain for the album (its shortfall is the album's, and it gets no compensation).
    public var album: Bool
    /// The most compensation the search may add, dB (named in the out-of-reach note).
    public var maxCompensationDB: Double
    /// What the output loses, in words (the format's and the channel positions').
    public var losses: [String]
    /// Notes gathered before the pass over the samples.
    public var notes: [String]
    /// Reads of the input in all, the measuring ones included.
    public var passes: Int
    public var measuredHere: Bool
    public var sourceLUFS: Double?
    public var sourceTruePeakDBTP: Double?
    /// A lossy output decoded again and checked after its codec (`written` is then the decoded
    /// file's measurement); `uncheckedReason` when it couldn't be.
    public var landing: CodecLandingReport? = nil
    public var uncheckedReason: String? = nil
    /// A dialogue-gated target: the source's dialogue loudness. The landing is judged on it plus
    /// the gain applied (as `normalized.dialogue.after_lufs`), not on the programme's loudness.
    public var dialogueLUFS: Double? = nil
    /// `--channels`: the matrix the source went through (`downmix` in the record).
    public var downmix: Downmix? = nil
    /// `--bit-rate` or `--quality` (`encoding` in the record).
    public var rate: LossyRate? = nil

    public init(outPath: String, format: LufsNormalizeFormat, report: NormalizeReport, written: LoudnessMeasurement,
                gain: NormalizeGainPlan, decision: NormalizeDecision, targetLUFS: Double, ceilingDBTP: Double,
                presetName: String?, peakMode: PeakMode, album: Bool, maxCompensationDB: Double, losses: [String],
                notes: [String], passes: Int, measuredHere: Bool, sourceLUFS: Double?, sourceTruePeakDBTP: Double?) {
        self.outPath = outPath; self.format = format; self.report = report; self.written = written
        self.gain = gain; self.decision = decision; self.targetLUFS = targetLUFS; self.ceilingDBTP = ceilingDBTP
        self.presetName = presetName; self.peakMode = peakMode; self.album = album
        self.maxCompensationDB = maxCompensationDB; self.losses = losses; self.notes = notes
        self.passes = passes; self.measuredHere = measuredHere
        self.sourceLUFS = sourceLUFS; self.sourceTruePeakDBTP = sourceTruePeakDBTP
    }

    /// The loudness judged against the target: the written programme's, or with a dialogue-gated
    /// target the dialogue's after the gain.
    package var landedLUFS: Double? { dialogueLUFS.map { $0 + report.gainDB } ?? written.integratedLUFS }

    public var json: JSON {
        let m = written, out = format
        var losses = self.losses
        var notes = self.notes
        if report.clampedSamples > 0 {
            losses.append("\(report.clampedSamples) samples were over full scale and were clamped when quantising")
        }
        var shortfall: Double? = nil
        if let l = landing {
            notes += CodecLandingNotes.notes(l, codec: out.displayName, targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP,
                                             compensationDB: report.compensationDB, maxCompensationDB: maxCompensationDB)
            shortfall = CodecLandingNotes.shortfall(l, targetLUFS: targetLUFS)
        } else if out.isLossy {
            notes.append("The loudness and true peak are of the samples handed to the \(out.displayName) encoder; decoding the file gives them back only to within the codec's error" +
                         (uncheckedReason.map { " (it was not checked after the codec: \($0))." } ?? "."))
        }
        if report.framesLimited > 0 {
            let seconds = Double(report.framesLimited) / Double(out.sampleRate)
            notes.append("The limiter reduced \(report.framesLimited) frames (\(String(format: "%.2f", seconds)) s) by up to \(String(format: "%.2f", report.maxReductionDB)) dB" +
                         (abs(report.compensationDB) >= 0.005 ? "; \(String(format: "%.2f", report.compensationDB)) dB of extra gain " + (shortfall == nil ? "kept the loudness on target." : "made up part of what it took.") : "."))
        }
        if let miss = report.predictionMissLU {
            notes.append("The predicted compensation left the first write \(String(format: "%.2f", abs(miss))) LU \(miss < 0 ? "under" : "over") the target, so the file was written a second time with that miss taken off.")
        }
        if peakMode == .reduce, gain.shortfallLU > 0 {
            // An album track is not meant to reach the target itself: the album is what falls short.
            let s = album ? gain.shortfallLU : (landedLUFS.map { targetLUFS - $0 } ?? gain.shortfallLU)
            shortfall = s
            notes.append("The gain was lowered by \(String(format: "%.2f", gain.shortfallLU)) dB to keep the true peak under the ceiling: the \(album ? "album" : "file") is \(String(format: "%.2f", s)) LU under the \(LoudnessGate.compact(targetLUFS)) LUFS target.")
        } else if peakMode == .ignore, let tp = m.truePeakDBTP, tp > ceilingDBTP {
            notes.append("--peak ignore let the true peak reach \(String(format: "%.2f", tp)) dBTP, over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling (the floating-point file holds it).")
        }
        if landing == nil, !album, peakMode != .reduce, let lufs = landedLUFS, abs(lufs - targetLUFS) > 0.3 {
            let what = dialogueLUFS == nil ? "The output is" : "The output's dialogue is"
            notes.append("\(what) \(String(format: "%.2f", abs(lufs - targetLUFS))) LU \(lufs < targetLUFS ? "under" : "over") the target: reaching it would take more than \(Int(maxCompensationDB)) dB of limiting, which would squash the programme rather than touch its peaks. Use --peak reduce, a lower --target, or compress the programme first.")
        }
        if m.integratedLUFS == nil { notes.append("The output has no measurable integrated loudness (under the −70 LUFS gate or shorter than 0.4 s).") }
        if decision.hasFades { notes.append("Fades are included in the loudness measured on the output.") }

        var o: [String: JSON] = [
            "output": .string(outPath),
            "gain_db": .double(report.gainDB, decimals: 2),
            "compensation_db": .double(report.compensationDB, decimals: 2),
            "integrated_lufs": .optional(m.integratedLUFS, decimals: 2),
            "true_peak_dbtp": .optional(m.truePeakDBTP, decimals: 2),
            "sample_peak_dbfs": .optional(m.samplePeakDBFS, decimals: 2),
            "limiter": .object([
                "frames": .int(report.framesLimited),
                "max_reduction_db": .double(report.maxReductionDB, decimals: 2),
                "applied": .bool(report.framesLimited > 0),
            ]),
            "losses": .array(losses.map { .string($0) }),
            "target_lufs": .double(targetLUFS),
            "ceiling_dbtp": .double(ceilingDBTP),
            "preset": presetName.map { .string($0) } ?? .null,
            "peak_mode": .string(peakMode.rawValue),
            "passes": .int(passes),
            "measured_here": .bool(measuredHere),
            "source_integrated_lufs": .optional(sourceLUFS, decimals: 2),
            "source_true_peak_dbtp": .optional(sourceTruePeakDBTP, decimals: 2),
            "shortfall_lu": .optional(shortfall, decimals: 2),
            "format": out.json,
            "dither": .bool(decision.plan.ditherBitDepth != nil),
            "frames": .int(report.framesWritten),
            "notes": .array(notes.map { .string($0) }),
        ]
        if let l = landing {
            o["encodes"] = .int(l.encodes)
            o["codec_check"] = CodecLandingNotes.json(l)
            o["codec_trial"] = l.trial.map(CodecLandingNotes.trialJSON) ?? .null
            if let outcome = l.outcome { o["landing"] = CodecLandingNotes.landingJSON(outcome) }
        }
        if let d = downmix { o["downmix"] = DownmixWords.json(d) }
        if let r = rate { o["encoding"] = r.json(codec: LossyRate.Codec(codec: out.codec)) }
        if decision.hasFades {
            let fadeIn = decision.fadeInFrames, fadeOut = decision.fadeOutFrames, rate = out.sampleRate
            o["fades"] = .object([
                "in": .object(["frames": .int(fadeIn), "rate": .int(rate)]),
                "out": .object(["frames": .int(fadeOut), "rate": .int(rate)]),
                "in_seconds": .double(Double(fadeIn) / Double(rate), decimals: 6),
                "out_seconds": .double(Double(fadeOut) / Double(rate), decimals: 6),
                "velocity": .double(decision.plan.fadeCurve.velocity),
            ])
        }
        return .object(o)
    }
}
