import Foundation

/// The QC gates of lufs-measure: limits on what `QCAnalyser` found, each failure a sentence that
/// names its option, with the time of the fault where it has one (the report draws it there).
public struct QCGate: Equatable, Sendable {
    public var maxClippedRuns: Int?
    public var maxOvers: Int?
    public var minCorrelation: Double?
    public var maxHeadSilenceSeconds: Double?
    public var maxTailSilenceSeconds: Double?
    public var noDropouts = false
    /// No channel but an LFE is digital silence throughout.
    public var noDeadChannels = false
    /// No pair of channels is one the other in reverse polarity.
    public var noInvertedChannels = false
    /// ACX's level rules (`LevelMeter`), dBFS: sample peak at most, RMS within, noise floor at most.
    public var maxSamplePeakDBFS: Double?
    public var minRMSDBFS: Double?
    public var maxRMSDBFS: Double?
    public var maxNoiseFloorDBFS: Double?
    /// Each channel's mean (DC) at most this, dBFS.
    public var maxDCOffsetDBFS: Double?

    public init(maxClippedRuns: Int? = nil, maxOvers: Int? = nil, minCorrelation: Double? = nil,
                maxHeadSilenceSeconds: Double? = nil, maxTailSilenceSeconds: Double? = nil, noDropouts: Bool = false,
                noDeadChannels: Bool = false, noInvertedChannels: Bool = false, maxSamplePeakDBFS: Double? = nil,
                minRMSDBFS: Double? = nil, maxRMSDBFS: Double? = nil, maxNoiseFloorDBFS: Double? = nil, maxDCOffsetDBFS: Double? = nil) {
        self.maxClippedRuns = maxClippedRuns
        self.maxOvers = maxOvers
        self.minCorrelation = minCorrelation
        self.maxHeadSilenceSeconds = maxHeadSilenceSeconds
        self.maxTailSilenceSeconds = maxTailSilenceSeconds
        self.noDropouts = noDropouts
        self.noDeadChannels = noDeadChannels
        self.noInvertedChannels = noInvertedChannels
        self.maxSamplePeakDBFS = maxSamplePeakDBFS
        self.minRMSDBFS = minRMSDBFS
        self.maxRMSDBFS = maxRMSDBFS
        self.maxNoiseFloorDBFS = maxNoiseFloorDBFS
        self.maxDCOffsetDBFS = maxDCOffsetDBFS
    }

    /// Whether a gate needs `LevelMeter`'s figures.
    public var needsLevels: Bool { maxSamplePeakDBFS != nil || minRMSDBFS != nil || maxRMSDBFS != nil || maxNoiseFloorDBFS != nil }

    public var isEmpty: Bool {
        maxClippedRuns == nil && maxOvers == nil && minCorrelation == nil && maxHeadSilenceSeconds == nil
            && maxTailSilenceSeconds == nil && !noDropouts && !noDeadChannels && !noInvertedChannels
            && !needsLevels && maxDCOffsetDBFS == nil
    }

    /// A failed gate: its option, the sentence, and where in the file (seconds) when it has a place.
    public struct Failure: Equatable, Sendable {
        public var gate: String
        public var reason: String
        public var atSeconds: Double?

        public init(gate: String, reason: String, atSeconds: Double?) {
            self.gate = gate
            self.reason = reason
            self.atSeconds = atSeconds
        }
    }

    /// The failed gates; `names` are the channels' labels in the layout ("ch1"… where missing).
    public func evaluate(_ r: QCAnalyser.Result, names: [String] = []) -> [Failure] {
        var out: [Failure] = []
        func s(_ v: Double) -> String { String(format: "%.3f s", v) }
        func name(_ c: Int) -> String { c < names.count ? names[c] : "ch\(c + 1)" }
        func channels(_ list: [[Int]]) -> String {
            guard let first = list.first, !first.isEmpty else { return "" }
            return " in " + first.map(name).joined(separator: ", ")
        }
        if let m = maxClippedRuns, r.clippedRuns > m {
            out.append(Failure(gate: "max-clipped-runs", reason: "--max-clipped-runs \(m): \(r.clippedRuns) clipped run\(r.clippedRuns == 1 ? "" : "s") (3 or more samples at full scale), the first at \(s(r.clippedRunTimes.first ?? 0))\(channels(r.clippedRunChannels))",
                               atSeconds: r.clippedRunTimes.first))
        }
        if let m = maxOvers, r.overs > m {
            out.append(Failure(gate: "max-overs", reason: "--max-overs \(m): \(r.overs) stretch\(r.overs == 1 ? "" : "es") above 0 dBTP, the first at \(s(r.overTimes.first ?? 0))\(channels(r.overChannels))",
                               atSeconds: r.overTimes.first))
        }
        if let m = minCorrelation {
            if let c = r.minCorrelation {
                if c < m {
                    out.append(Failure(gate: "min-correlation", reason: "--min-correlation \(Self.compact(m)): the front pair's correlation falls to \(String(format: "%.2f", c)) in the 3-s window from \(s(r.minCorrelationAtSeconds ?? 0))",
                                       atSeconds: r.minCorrelationAtSeconds))
                }
            } else {
                let why = r.hasFrontPair ? "no 3-s window has signal in both front channels" : "the file has no front pair (mono)"
                out.append(Failure(gate: "min-correlation", reason: "--min-correlation \(Self.compact(m)): the correlation is undefined (\(why)), so it cannot be checked", atSeconds: nil))
            }
        }
        if let m = maxHeadSilenceSeconds, r.headSilenceSeconds > m + 1e-9 {
            out.append(Failure(gate: "max-head-silence", reason: "--max-head-silence \(Self.compact(m)): \(s(r.headSilenceSeconds)) of digital silence at the head",
                               atSeconds: 0))
        }
        if let m = maxTailSilenceSeconds, r.tailSilenceSeconds > m + 1e-9 {
            let start = Double(r.frames) / Double(max(r.sampleRate, 1)) - r.tailSilenceSeconds
            out.append(Failure(gate: "max-tail-silence", reason: "--max-tail-silence \(Self.compact(m)): \(s(r.tailSilenceSeconds)) of digital silence at the tail",
                               atSeconds: max(0, start)))
        }
        if noDropouts, r.dropoutCount > 0, let d = r.dropouts.first {
            out.append(Failure(gate: "no-dropouts", reason: "--no-dropouts: \(r.dropoutCount) dropout\(r.dropoutCount == 1 ? "" : "s") (digital silence of 10 ms or more mid-programme), the first at \(s(d.atSeconds)) lasting \(String(format: "%.0f ms", d.durationSeconds * 1000))",
                               atSeconds: d.atSeconds))
        }
        // An LFE may be silent by design (a programme with nothing below 120 Hz to send it).
        let dead = r.silentChannels.filter { !Self.isLFE(name($0)) }
        if noDeadChannels, !dead.isEmpty {
            let list = dead.map(name).joined(separator: ", ")
            out.append(Failure(gate: "no-dead-channels", reason: "--no-dead-channels: channel\(dead.count == 1 ? "" : "s") \(list) \(dead.count == 1 ? "is" : "are") digital silence from start to end",
                               atSeconds: nil))
        }
        if noInvertedChannels, !r.invertedPairs.isEmpty {
            let list = r.invertedPairs.map { "\(name($0.last ?? 0)) is \(name($0.first ?? 0))" }.joined(separator: ", ")
            out.append(Failure(gate: "no-inverted-channels", reason: "--no-inverted-channels: \(list) in reverse polarity (the two cancel in a mono fold-down)",
                               atSeconds: nil))
        }
        return out
    }

    package static func isLFE(_ label: String) -> Bool { label == "LFE" || label == "LFE2" }

    package static func compact(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%g", v)
    }

    /// Bundles of gates for a kind of delivery; `source` says where each limit comes from.
    public struct Preset: Sendable {
        public var name: String
        public var gate: QCGate
        public var source: String
    }

    public static let presets: [Preset] = [
        Preset(name: "acx", gate: QCGate(maxClippedRuns: 0, maxHeadSilenceSeconds: 1, maxTailSilenceSeconds: 5, noDropouts: true,
                                         noDeadChannels: true, noInvertedChannels: true, maxSamplePeakDBFS: -3, minRMSDBFS: -23,
                                         maxRMSDBFS: -18, maxNoiseFloorDBFS: -60),
               source: "ACX audio submission requirements: 0.5 to 1 s of room tone at the head, 1 to 5 s at the tail, peaks at most -3 dB, RMS -23 to -18 dB, noise floor at most -60 dB RMS; no dead or inverted channel (ours: half a stereo image missing, or silence in mono)"),
        Preset(name: "streaming", gate: QCGate(maxClippedRuns: 0, maxOvers: 0, noDropouts: true, noDeadChannels: true, noInvertedChannels: true),
               source: "Spotify for Artists, Loudness normalization: keep the master below -1 dBTP; no spec for silence; no dead or inverted channel (ours: half a stereo image missing, or silence in mono)"),
        Preset(name: "broadcast", gate: QCGate(maxClippedRuns: 0, maxOvers: 0, minCorrelation: 0, noDropouts: true,
                                               noDeadChannels: true, noInvertedChannels: true),
               source: "EBU R 128 / Tech 3343: true peak at most -1 dBTP; no EBU limit on head or tail silence; no dead or inverted channel (ours: half a stereo image missing, or silence in mono)"),
    ]

    public static var presetNames: [String] { presets.map(\.name) }

    /// This gate with any limit it lacks taken from `base` (explicit options win over a preset's).
    public func over(_ base: QCGate?) -> QCGate {
        guard let b = base else { return self }
        return QCGate(maxClippedRuns: maxClippedRuns ?? b.maxClippedRuns, maxOvers: maxOvers ?? b.maxOvers,
                      minCorrelation: minCorrelation ?? b.minCorrelation,
                      maxHeadSilenceSeconds: maxHeadSilenceSeconds ?? b.maxHeadSilenceSeconds,
                      maxTailSilenceSeconds: maxTailSilenceSeconds ?? b.maxTailSilenceSeconds,
                      noDropouts: noDropouts || b.noDropouts, noDeadChannels: noDeadChannels || b.noDeadChannels,
                      noInvertedChannels: noInvertedChannels || b.noInvertedChannels,
                      maxSamplePeakDBFS: maxSamplePeakDBFS ?? b.maxSamplePeakDBFS, minRMSDBFS: minRMSDBFS ?? b.minRMSDBFS,
                      maxRMSDBFS: maxRMSDBFS ?? b.maxRMSDBFS, maxNoiseFloorDBFS: maxNoiseFloorDBFS ?? b.maxNoiseFloorDBFS,
                      maxDCOffsetDBFS: maxDCOffsetDBFS ?? b.maxDCOffsetDBFS)
    }
}
