import AudioIO
import AudioSignal
import Foundation
import JSONValue

/// lufs-measure's `--dialogue`: a speech detector riding on the meter's decode, and
/// `loudness.dialogue` from what it found (loudness gated over the dialogue blocks, share,
/// spans, the fallback rule); with a dialogue-gated gate, `loudness.gate` judges dialogue loudness.
package struct DialogueMeasurement {
    /// Under this share of dialogue, a gate judges programme loudness (`fallback`).
    package let minimumShare: Double
    /// Whether the gate judges dialogue loudness (`--gate-on dialogue`, the netflix preset).
    package let gateOnDialogue: Bool

    /// A detector for one stream of `layout` at `sampleRate`, listening to its centre or downmix.
    package func detector(layout: ChannelLayout, sampleRate: Int) throws -> SpeechDetector {
        let weights = try SpeechModelFile.shared()
        return try SpeechDetector(network: SileroNetwork(Self.prepared(weights)), sampleRate: sampleRate,
                                  listening: SpeechDetector.listening(roles: layout.roles), converter: Resampler.fastest)
    }

    /// The weights arranged for the network once per process.
    private static func prepared(_ w: SileroWeights) -> SileroNetwork.Prepared { shared ?? SileroNetwork.Prepared(w) }
    private static let shared: SileroNetwork.Prepared? = (try? SpeechModelFile.shared()).map { SileroNetwork.Prepared($0) }

    /// `loudness` with `dialogue` added (and `gate` judged on it when asked).
    /// `found` is handed the dialogue measurement itself (the cache keeps its loudness unrounded).
    package func apply(_ detector: SpeechDetector, blocks: LoudnessBlocks, measurement m: LoudnessMeasurement, layout: ChannelLayout,
               gate: (LoudnessGate, JSON)?, timeline: Bool, to loudness: JSON,
               found: ((DialogueLoudness) -> Void)? = nil) throws -> JSON {
        guard case .object(var o) = loudness else { return loudness }
        let p = try detector.finish()
        let spans = DialogueSpans.spans(probabilities: p, chunkSeconds: SpeechDetector.chunkSeconds, durationSeconds: m.seconds)
        var d = DialogueLoudness(blocks: blocks, spans: spans, durationSeconds: m.seconds, minimumShare: minimumShare)
        d.meanProbabilities = DialogueSpans.meanProbabilities(probabilities: p, chunkSeconds: SpeechDetector.chunkSeconds, spans: spans)
        found?(d)
        o["dialogue"] = Self.json(d, listening: detector.listening, layout: layout, timeline: timeline)
        if let (g, label) = gate, gateOnDialogue {
            o["gate"] = Self.gateJSON(g, label: label, m, dialogueLUFS: d.integratedLUFS, fallback: d.fallback)
        }
        return .object(o)
    }

    /// `loudness.gate` judging dialogue loudness (programme loudness under the fallback rule):
    /// on a fresh measurement and on a cache hit alike.
    package static func gateJSON(_ g: LoudnessGate, label: JSON, _ m: LoudnessMeasurement, dialogueLUFS: Double?, fallback: Bool) -> JSON {
        var judged = m
        if !fallback { judged.integratedLUFS = dialogueLUFS }
        var gj = LoudnessRecord.gateJSON(g, label: label, judged).objectValue ?? [:]
        gj["gate_on"] = .string(fallback ? "programme" : "dialogue")
        if !fallback, dialogueLUFS == nil, var reasons = gj["reasons"]?.arrayValue {
            reasons = reasons.map { r in r.stringValue.map { .string($0.replacingOccurrences(of: "integrated loudness is undefined", with: "dialogue loudness is undefined")) } ?? r }
            gj["reasons"] = .array(reasons)
        }
        return .object(gj)
    }

    /// What a cached measurement with `loudness.dialogue` is kept under: the detector (its weights'
    /// name, version and pinned checksum), the version of the span logic and the share under which
    /// the fallback rule applies. Getting it loads and checks the weights (once per process, by
    /// size and checksum), so a missing or damaged weights file is the same error on a cache hit
    /// as on a fresh measurement, never a stored result handed back without a detector.
    package var cacheKey: String {
        get throws {
            _ = try SpeechModelFile.shared()
            return Self.cacheKey(detector: SpeechModelFile.detectorName, version: SpeechModelFile.detectorVersion, minimumShare: minimumShare)
        }
    }
    package static func cacheKey(detector: String, version: String, minimumShare: Double) -> String {
        "dialogue=\(detector)@\(version)#\(SpeechModelFile.expectedDigest);spans=\(DialogueSpans.version);min-dialogue-share=\(String(describing: minimumShare))"
    }

    /// `loudness` without the dialogue spans and their probabilities (taken for the report only, or
    /// kept out of the cache).
    /// (The first of several streams carries them under `streams` too.)
    package static func withoutSpans(_ loudness: JSON) -> JSON {
        guard case .object(var o) = loudness else { return loudness }
        if case .array(let streams)? = o["streams"] { o["streams"] = .array(streams.map(withoutSpans)) }
        if case .object(var d)? = o["dialogue"], d["timeline"] != nil || d["timeline_mean_probability"] != nil {
            d["timeline"] = nil
            d["timeline_mean_probability"] = nil
            o["dialogue"] = .object(d)
        }
        return .object(o)
    }

    /// The `loudness.dialogue` object.
    package static func json(_ d: DialogueLoudness, listening: SpeechDetector.Listening, layout: ChannelLayout, timeline: Bool) -> JSON {
        let channels: [Int]
        switch listening {
        case .channel(let c): channels = [c]
        case .downmix(let cs): channels = cs
        }
        var o: [String: JSON] = [
            "integrated_lufs": .optional(d.integratedLUFS, decimals: 2),
            "loudness_range_lu": .optional(d.loudnessRangeLU, decimals: 2),
            "share": .double(d.share, decimals: 4),
            "spans": .int(d.spans.count),
            "fallback": .bool(d.fallback),
            "channels": .array(channels.map { .string($0 < layout.roles.count ? layout.roles[$0].label : "?") }),
            "listened_to": .string(channels.count == 1 ? "channel" : "downmix"),
            "detector": .object(["name": .string(SpeechModelFile.detectorName), "version": .string(SpeechModelFile.detectorVersion)]),
            "notes": .array(d.notes.map { .string($0) }),
        ]
        if timeline {
            o["timeline"] = .array(d.spans.map { .array($0.map { .double($0, decimals: 3) }) })
            // How sure the detector was of each span, in the same order (the report shades by it).
            o["timeline_mean_probability"] = .array(d.meanProbabilities.map { .double($0, decimals: 3) })
        }
        return .object(o)
    }
}
