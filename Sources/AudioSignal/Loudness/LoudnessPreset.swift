import Foundation

/// A delivery specification: target programme loudness, tolerance, true-peak ceiling and, for
/// short-form rules, a maximum short-term loudness.
package struct LoudnessPreset: Equatable, Sendable {
    public var name: String
    public var targetLUFS: Double
    public var maxTruePeakDBTP: Double
    /// Accepted deviation either side of the target, LU.
    public var toleranceLU: Double
    /// The highest short-term (3 s) loudness allowed, LUFS, where the rule sets one.
    public var maxShortTermLUFS: Double?
    /// The document the numbers come from.
    public var source: String
    /// Whether the target is dialogue-gated loudness (measured with the speech detector, falling
    /// back to programme loudness when dialogue is under 15% of the programme).
    public var gatesOnDialogue = false
    /// The target for a mono programme, where the rule sets one apart (podcasts: −19 LUFS mono
    /// against −16 stereo, AES TD1004: a mono file played on two speakers sounds 3 LU louder).
    public var monoTargetLUFS: Double? = nil

    public init(name: String, targetLUFS: Double, maxTruePeakDBTP: Double, toleranceLU: Double,
                maxShortTermLUFS: Double? = nil, source: String, gatesOnDialogue: Bool = false, monoTargetLUFS: Double? = nil) {
        self.monoTargetLUFS = monoTargetLUFS
        self.name = name
        self.targetLUFS = targetLUFS
        self.maxTruePeakDBTP = maxTruePeakDBTP
        self.toleranceLU = toleranceLU
        self.maxShortTermLUFS = maxShortTermLUFS
        self.source = source
        self.gatesOnDialogue = gatesOnDialogue
    }

    /// The built-in presets, in the order they are listed to users.
    public static let all: [LoudnessPreset] = [
        LoudnessPreset(name: "ebu-r128", targetLUFS: -23, maxTruePeakDBTP: -1, toleranceLU: 0.5,
                       source: "EBU R 128 (2020): programme loudness −23.0 LUFS ±0.5 LU (±1.0 LU only where exact normalisation is impractical, e.g. live); maximum true peak −1 dBTP"),
        LoudnessPreset(name: "ebu-r128-s1", targetLUFS: -23, maxTruePeakDBTP: -1, toleranceLU: 0.5, maxShortTermLUFS: -18,
                       source: "EBU R 128 s1 (2016), loudness of short-form content (advertisements, trailers, promos): programme loudness −23.0 LUFS as R 128, maximum short-term loudness −18 LUFS, maximum true peak −1 dBTP"),
        LoudnessPreset(name: "atsc-a85", targetLUFS: -24, maxTruePeakDBTP: -2, toleranceLU: 2,
                       source: "ATSC A/85:2013: target −24 LKFS ±2 dB; true peak not above −2 dBTP"),
        LoudnessPreset(name: "arib-tr-b32", targetLUFS: -24, maxTruePeakDBTP: -1, toleranceLU: 1,
                       source: "ARIB TR-B32 (Japan): target −24 LKFS ±1 dB; true peak not above −1 dBTP"),
        LoudnessPreset(name: "op-59", targetLUFS: -24, maxTruePeakDBTP: -2, toleranceLU: 1,
                       source: "Free TV Australia Operational Practice OP-59: target −24 LUFS ±1 LU; true peak not above −2 dBTP"),
        LoudnessPreset(name: "social", targetLUFS: -14, maxTruePeakDBTP: -1, toleranceLU: 1,
                       source: "Spotify for Artists loudness normalization (−14 LUFS, true peak below −1 dBTP); YouTube normalises to about −14 LUFS"),
        LoudnessPreset(name: "podcast", targetLUFS: -16, maxTruePeakDBTP: -1, toleranceLU: 1,
                       source: "Apple Podcasts audio requirements (−16 LKFS ±1 dB, true peak not above −1 dBFS); AES TD1004.1.15-10 (−16 LUFS for stereo streaming, −19 LUFS for mono)",
                       monoTargetLUFS: -19),
        LoudnessPreset(name: "netflix", targetLUFS: -27, maxTruePeakDBTP: -2, toleranceLU: 2,
                       source: "Netflix Sound Mix Specifications & Best Practices: −27 LKFS ±2 LU dialogue-gated (ITU-R BS.1770-1 style dialogue anchor), true peak not above −2 dBTP; programme loudness when dialogue is under 15% of the programme",
                       gatesOnDialogue: true),
    ]

    /// The target for a programme of `channels` channels: the mono target for one channel where
    /// the rule has one, else `targetLUFS`.
    public func targetLUFS(channels: Int) -> Double {
        channels == 1 ? monoTargetLUFS ?? targetLUFS : targetLUFS
    }

    /// Every preset with what it checks, for help text: "ebu-r128 (-23 ±0.5 LU, true peak ≤ -1 dBTP), ...".
    public static var described: String {
        func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        return all.map { p in
            var s = "\(p.name) (\(n(p.targetLUFS)) ±\(n(p.toleranceLU)) LU, true peak ≤ \(n(p.maxTruePeakDBTP)) dBTP"
            if let st = p.maxShortTermLUFS { s += ", short-term ≤ \(n(st)) LUFS" }
            if p.gatesOnDialogue { s += ", dialogue-gated" }
            return s + ")"
        }.joined(separator: ", ")
    }

    /// The preset with this name (case-insensitive), if any.
    public static func named(_ name: String) -> LoudnessPreset? {
        all.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// A gate checking this preset's target, tolerance, ceiling and short-term maximum.
    public var gate: LoudnessGate {
        LoudnessGate(targetLUFS: targetLUFS, toleranceLU: toleranceLU, maxTruePeakDBTP: maxTruePeakDBTP,
                     maxShortTermLUFS: maxShortTermLUFS)
    }
}

/// A pass/fail check of a measurement: integrated loudness within target ± tolerance, true
/// peak at or below a ceiling, short-term and momentary maxima at or below their limits. Any
/// part may be left out.
public struct LoudnessGate: Equatable, Sendable {
    public var targetLUFS: Double?
    /// Accepted deviation either side of the target, LU (0 when nil).
    public var toleranceLU: Double?
    public var maxTruePeakDBTP: Double?
    /// The highest short-term (3 s) loudness allowed anywhere in the file, LUFS.
    public var maxShortTermLUFS: Double?
    /// The highest momentary (400 ms) loudness allowed anywhere in the file, LUFS.
    public var maxMomentaryLUFS: Double?
    /// The widest loudness range (EBU Tech 3342) allowed, LU.
    public var maxLoudnessRangeLU: Double?
    /// The target for a one-channel measurement, where the preset sets one apart (podcast: −19).
    public var monoTargetLUFS: Double? = nil

    /// The target `m` is judged against: the mono target for one channel, else `targetLUFS`.
    public func targetLUFS(for m: LoudnessMeasurement) -> Double? {
        m.samplePeaks.count == 1 && targetLUFS != nil ? monoTargetLUFS ?? targetLUFS : targetLUFS
    }

    public init(targetLUFS: Double? = nil, toleranceLU: Double? = nil, maxTruePeakDBTP: Double? = nil,
                maxShortTermLUFS: Double? = nil, maxMomentaryLUFS: Double? = nil, maxLoudnessRangeLU: Double? = nil) {
        self.maxLoudnessRangeLU = maxLoudnessRangeLU
        self.targetLUFS = targetLUFS
        self.toleranceLU = toleranceLU
        self.maxTruePeakDBTP = maxTruePeakDBTP
        self.maxShortTermLUFS = maxShortTermLUFS
        self.maxMomentaryLUFS = maxMomentaryLUFS
    }

    /// Whether the gate checks anything at all.
    public var isEmpty: Bool {
        targetLUFS == nil && maxTruePeakDBTP == nil && maxShortTermLUFS == nil && maxMomentaryLUFS == nil
            && maxLoudnessRangeLU == nil
    }

    /// Why `m` fails `maxLoudnessRangeLU`: its range is wider, or undefined in a file too short
    /// for a short-term block (silence has no range, which is under any maximum).
    public enum RangeFault: Equatable, Sendable {
        case over(rangeLU: Double, limitLU: Double)
        case tooShort(limitLU: Double)
    }

    /// The loudness-range gate's fault for `m`, nil when it passes or isn't set.
    public func rangeFault(_ m: LoudnessMeasurement) -> RangeFault? {
        guard let limit = maxLoudnessRangeLU else { return nil }
        if let r = m.loudnessRangeLU { return r > limit + Self.slack ? .over(rangeLU: r, limitLU: limit) : nil }
        return m.frames < 3 * m.sampleRate ? .tooShort(limitLU: limit) : nil
    }

    /// Whether `m` passes, with one sentence per failed condition (numbers to one decimal).
    public func evaluate(_ m: LoudnessMeasurement) -> (pass: Bool, reasons: [String]) {
        var reasons: [String] = []
        if let target = targetLUFS(for: m) {
            let tolerance = toleranceLU ?? 0
            let targetText = "\(Self.compact(target)) ±\(Self.compact(tolerance)) target"
            if let lufs = m.integratedLUFS {
                let deviation = lufs - target
                if abs(deviation) > tolerance + Self.slack {
                    let side = deviation < 0 ? "below" : "above"
                    reasons.append("\(Self.oneDecimal(lufs)) LUFS is \(Self.oneDecimal(abs(deviation))) LU \(side) the \(targetText)")
                }
            } else {
                let why = m.frames < m.sampleRate * 4 / 10 ? "shorter than 0.4 s" : "silence"
                reasons.append("integrated loudness is undefined (\(why)), so it cannot meet the \(targetText)")
            }
        }
        if let ceiling = maxTruePeakDBTP, let peak = m.truePeakDBTP, peak > ceiling + Self.slack {
            reasons.append("true peak \(Self.oneDecimal(peak)) dBTP is above the \(Self.compact(ceiling)) dBTP ceiling")
        }
        func maximum(_ limit: Double?, _ value: Double?, _ what: String, window: Double) {
            guard let limit else { return }
            let limitText = "\(Self.compact(limit)) LUFS maximum"
            if let v = value {
                if v > limit + Self.slack { reasons.append("\(what) loudness reaches \(Self.oneDecimal(v)) LUFS, over the \(limitText)") }
            } else if Double(m.frames) < window * Double(m.sampleRate) {
                reasons.append("\(what) loudness is undefined (shorter than \(Self.compact(window)) s), so it cannot be checked against the \(limitText)")
            }
            // Undefined in a long enough file means digital silence, which is under any maximum.
        }
        maximum(maxShortTermLUFS, m.shortTermMaxLUFS, "short-term", window: 3)
        maximum(maxMomentaryLUFS, m.momentaryMaxLUFS, "momentary", window: 0.4)
        return (reasons.isEmpty, reasons)
    }

    /// Decibel rounding noise ignored at a limit (a peak of exactly 10^(−1/20) is −1 dBTP).
    package static let slack = 1e-9

    /// One decimal, without a minus sign on zero.
    package static func oneDecimal(_ x: Double) -> String {
        let s = String(format: "%.1f", x)
        return s == "-0.0" ? "0.0" : s
    }

    /// Whole numbers without decimals, others to one decimal ("-14", "0.5").
    package static func compact(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        if r == r.rounded() { return String(Int(r)) }
        return oneDecimal(r)
    }
}
