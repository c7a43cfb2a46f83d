import AudioSignal
import Foundation
import ToolRunner

/// What the report knows about one input: its verdict, its numbers and the series behind its
/// picture. Built by the tools from a measurement; holds no file access of its own.
public struct LoudnessReportItem: Equatable, Sendable {
    public enum Verdict: Equatable, Sendable {
        /// Passed the gate.
        case pass
        /// Failed the gate, with one sentence per failed condition.
        case fail([String])
        /// Measured, with no gate to pass or fail.
        case measured
        /// Could not be measured: the error record's message.
        case error(String)

        public var word: String {
            switch self {
            case .pass: "PASS"
            case .fail: "FAIL"
            case .measured: "MEASURED"
            case .error: "ERROR"
            }
        }
        public var cssClass: String {
            switch self {
            case .pass: "pass"
            case .fail: "fail"
            case .measured: "measured"
            case .error: "error"
            }
        }
        public var reasons: [String] {
            switch self {
            case .fail(let r): r
            case .error(let m): [m]
            default: []
            }
        }
    }

    /// The input's path as it came in (shown, never opened).
    public var name: String
    public var verdict: Verdict
    public var integratedLUFS: Double?
    public var loudnessRangeLU: Double?
    public var truePeakDBTP: Double?
    public var momentaryMaxLUFS: Double?
    public var shortTermMaxLUFS: Double?
    /// One sentence per undefined value, as the measurement gives them.
    public var notes: [String]
    /// The series drawn; nil for an input that could not be measured.
    public var timeline: LoudnessTimeline?
    /// lufs-normalize: the source's series, drawn under the output's (before and after).
    public var source: LoudnessTimeline?
    public var sourceIntegratedLUFS: Double?
    public var sourceTruePeakDBTP: Double?
    /// A few words on what was done (lufs-normalize: the gain and the limiter).
    public var caption: String?
    public var targetLUFS: Double?
    public var toleranceLU: Double?
    public var ceilingDBTP: Double?
    /// The gate's limits on short-term and momentary loudness (`--max-short-term`,
    /// `--max-momentary`, a preset's), drawn as lines with the curve above them in red.
    public var maxShortTermLUFS: Double?
    public var maxMomentaryLUFS: Double?
    /// Failed QC gates at their times (lufs-measure --qc with a QC gate).
    public var marks: [LoudnessReportMark] = []
    /// `--dialogue`: dialogue loudness and its spans (LoudnessReportDialogue.swift).
    public var dialogue: LoudnessReportDialogue? = nil
    /// `--per-channel`: each channel's own figures, as a small table (LoudnessReportChannels.swift).
    public var channels: [LoudnessReportChannel] = []
    /// A file of several audio streams (or `--stream N`): which stream this is, counted from 0
    /// among the audio streams, and its label ("stream 1 of 2 · stereo · fra").
    public var streamOrdinal: Int? = nil
    public var streamLabel: String? = nil
    /// Drawn after the label: whose verdict the panel's is (with a gate).
    public var streamNote: String? = nil
    /// The file's further audio streams, each drawn in a panel of its own under this one
    /// (LoudnessReportStreams.swift).
    public var streams: [LoudnessReportItem] = []

    public init(name: String, verdict: Verdict, integratedLUFS: Double? = nil, loudnessRangeLU: Double? = nil,
                truePeakDBTP: Double? = nil, momentaryMaxLUFS: Double? = nil, shortTermMaxLUFS: Double? = nil,
                notes: [String] = [], timeline: LoudnessTimeline? = nil, source: LoudnessTimeline? = nil,
                sourceIntegratedLUFS: Double? = nil, sourceTruePeakDBTP: Double? = nil, caption: String? = nil,
                targetLUFS: Double? = nil, toleranceLU: Double? = nil, ceilingDBTP: Double? = nil) {
        self.name = name; self.verdict = verdict
        self.integratedLUFS = integratedLUFS; self.loudnessRangeLU = loudnessRangeLU
        self.truePeakDBTP = truePeakDBTP; self.momentaryMaxLUFS = momentaryMaxLUFS
        self.shortTermMaxLUFS = shortTermMaxLUFS; self.notes = notes
        self.timeline = timeline; self.source = source
        self.sourceIntegratedLUFS = sourceIntegratedLUFS; self.sourceTruePeakDBTP = sourceTruePeakDBTP
        self.caption = caption
        self.targetLUFS = targetLUFS; self.toleranceLU = toleranceLU; self.ceilingDBTP = ceilingDBTP
    }

    /// An item for a measurement, with the gate's verdict when there is a gate.
    public init(name: String, measurement m: LoudnessMeasurement, timeline: LoudnessTimeline?, gate: LoudnessGate?) {
        let verdict: Verdict
        if let gate {
            let v = gate.verdict(m)
            verdict = v.pass ? .pass : .fail(v.reasons)
        } else {
            verdict = .measured
        }
        self.init(name: name, verdict: verdict, integratedLUFS: m.integratedLUFS, loudnessRangeLU: m.loudnessRangeLU,
                  truePeakDBTP: m.truePeakDBTP, momentaryMaxLUFS: m.momentaryMaxLUFS, shortTermMaxLUFS: m.shortTermMaxLUFS,
                  notes: m.sentences, timeline: timeline, targetLUFS: gate?.targetLUFS,
                  toleranceLU: gate?.targetLUFS == nil ? nil : (gate?.toleranceLU ?? 0), ceilingDBTP: gate?.maxTruePeakDBTP)
        maxShortTermLUFS = gate?.maxShortTermLUFS
        maxMomentaryLUFS = gate?.maxMomentaryLUFS
    }

    /// The loudness limits with what each applies to: (id, the curve's series, limit, label).
    package var loudnessLimits: [(id: String, series: [Double?], limit: Double, label: String)] {
        guard let t = timeline else { return [] }
        var out: [(String, [Double?], Double, String)] = []
        if let l = maxShortTermLUFS { out.append(("short-term", t.shortTermLUFS, l, "S max")) }
        if let l = maxMomentaryLUFS { out.append(("momentary", t.momentaryLUFS, l, "M max")) }
        return out
    }

    /// Stretches where the true peak is over the ceiling, in seconds (from the full-resolution
    /// series, so a single 100 ms over in a long file is found).
    public var overs: [(start: Double, end: Double, peakDBTP: Double)] {
        guard let t = timeline, let ceiling = ceilingDBTP else { return [] }
        return Self.overs(t, ceiling: ceiling)
    }

    package static func overs(_ t: LoudnessTimeline, ceiling: Double) -> [(start: Double, end: Double, peakDBTP: Double)] {
        var out: [(Double, Double, Double)] = []
        var i = 0
        let p = t.truePeakDBTP
        while i < p.count {
            guard let v = p[i], v > ceiling + LoudnessGate.slack else { i += 1; continue }
            var j = i, peak = v
            while j + 1 < p.count, let w = p[j + 1], w > ceiling + LoudnessGate.slack { j += 1; peak = max(peak, w) }
            out.append((Double(i * t.hopFrames) / Double(t.sampleRate), t.endSeconds(j), peak))
            i = j + 1
        }
        return out
    }
}

/// Number and time spellings shared by the picture and the index.
package enum ReportText {
    /// One decimal with a real minus sign (for pictures); "—" for nil.
    package static func dB(_ v: Double?) -> String {
        guard let v else { return "—" }
        let s = String(format: "%.1f", v)
        if s == "-0.0" { return "0.0" }
        return s.hasPrefix("-") ? "\u{2212}" + s.dropFirst() : s
    }

    /// One decimal with an ASCII minus (for tables people copy from); "—" for nil.
    package static func plain(_ v: Double?) -> String {
        guard let v else { return "—" }
        let s = String(format: "%.1f", v)
        return s == "-0.0" ? "0.0" : s
    }

    /// A signed gain: "+3.2", "−1.0".
    package static func signed(_ v: Double) -> String { v >= 0.05 ? "+" + dB(v) : dB(v) }

    /// m:ss, or h:mm:ss from an hour; tenths when `tenths`.
    package static func time(_ seconds: Double, tenths: Bool = false, hours: Bool = false) -> String {
        let s = max(0, seconds)
        let whole = tenths ? Int((s * 10).rounded()) : Int(s.rounded())
        let secs = tenths ? whole / 10 : whole
        let h = secs / 3600, m = (secs / 60) % 60, sec = secs % 60
        var out = hours || h > 0 ? "\(h):" + String(format: "%02d", m) : "\(m)"
        out += ":" + String(format: "%02d", sec)
        if tenths { out += ".\(whole % 10)" }
        return out
    }

    package static func escape(_ s: String) -> String { XMLText.escaped(s) }

    /// A long name shortened in the middle so that both its folder and its file name show.
    package static func shortened(_ s: String, to limit: Int) -> String {
        guard s.count > limit, limit > 10 else { return s }
        let tail = limit * 2 / 3, head = limit - tail - 1
        return String(s.prefix(head)) + "…" + String(s.suffix(tail))
    }
}

extension LoudnessReportItem {
    /// An item for a normalised output drawn over its source: the verdict is the output checked
    /// against the target (± `toleranceLU`) and the ceiling, as lufs-measure's gate would; with
    /// `dialogue` (a dialogue-gated target), its loudness is what is checked against the target.
    public static func normalized(name: String, output m: LoudnessMeasurement, timeline: LoudnessTimeline?,
                                  source: LoudnessTimeline?, sourceIntegratedLUFS: Double?, sourceTruePeakDBTP: Double?,
                                  targetLUFS: Double, toleranceLU: Double, ceilingDBTP: Double,
                                  gainDB: Double, limitedSeconds: Double, maxReductionDB: Double,
                                  dialogue: LoudnessReportDialogue? = nil) -> LoudnessReportItem {
        let gate = LoudnessGate(targetLUFS: targetLUFS, toleranceLU: toleranceLU, maxTruePeakDBTP: ceilingDBTP)
        var judged = m
        if let d = dialogue { judged.integratedLUFS = d.integratedLUFS }
        var item = LoudnessReportItem(name: name, measurement: judged, timeline: timeline, gate: gate)
        item.integratedLUFS = m.integratedLUFS
        item.dialogue = dialogue
        item.source = source
        item.sourceIntegratedLUFS = sourceIntegratedLUFS
        item.sourceTruePeakDBTP = sourceTruePeakDBTP
        var caption = "gain " + ReportText.signed(gainDB) + " dB"
        if limitedSeconds > 0 {
            caption += " · limiter " + String(format: "%.2f", limitedSeconds) + " s, up to " + ReportText.dB(maxReductionDB) + " dB"
        } else {
            caption += " · no limiting"
        }
        item.caption = caption
        return item
    }
}
