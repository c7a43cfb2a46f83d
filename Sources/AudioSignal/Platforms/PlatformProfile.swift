import Foundation

/// What a streaming platform does to a file's level when it plays it: the one table of profiles
/// (sources and dates in docs/lufs-measure.md, "Platforms") and the arithmetic of their rules.
package struct PlatformProfile: Equatable, Sendable {
    /// How a profile treats a file quieter than its target.
    public enum Raise: Equatable, Sendable {
        /// Never raised (only louder files are turned down).
        case never
        /// Raised only as far as leaves the true peak at `ceilingDBTP` (Spotify: 1 dB of headroom).
        case upToPeakCeiling(Double)
        /// Raised fully; a limiter in the playback chain engaging at `limiterDBFS` catches the
        /// peaks of any track that plays over it (raised or not).
        case withLimiter(Double)
    }

    public var name: String
    public var targetLUFS: Double
    public var raise: Raise
    /// Whether the platform plays an album at one gain (its album's loudness), not per track.
    public var albumMode: Bool

    /// The table. Spotify's figures and rules are its own (Spotify for Artists, "Loudness
    /// normalization"); the others' are as their services or measurements of them report.
    public static let all: [PlatformProfile] = [
        PlatformProfile(name: "spotify", targetLUFS: -14, raise: .upToPeakCeiling(-1), albumMode: true),
        PlatformProfile(name: "spotify-loud", targetLUFS: -11, raise: .withLimiter(-1), albumMode: true),
        PlatformProfile(name: "spotify-quiet", targetLUFS: -19, raise: .upToPeakCeiling(-1), albumMode: true),
        PlatformProfile(name: "apple-music", targetLUFS: -16, raise: .upToPeakCeiling(-1), albumMode: true),
        PlatformProfile(name: "youtube", targetLUFS: -14, raise: .never, albumMode: false),
        PlatformProfile(name: "tidal", targetLUFS: -14, raise: .never, albumMode: true),
        PlatformProfile(name: "amazon-music", targetLUFS: -14, raise: .never, albumMode: false),
        PlatformProfile(name: "deezer", targetLUFS: -15, raise: .never, albumMode: false),
        PlatformProfile(name: "apple-podcasts", targetLUFS: -16, raise: .upToPeakCeiling(-1), albumMode: false),
    ]

    /// The profile names, comma-separated, for help text.
    public static var names: String { all.map(\.name).joined(separator: ", ") }

    /// A name that is no profile.
    public struct UnknownName: Error, Equatable { public var name: String }

    /// The profiles a comma-separated list names, in table order; all of them for nil.
    public static func chosen(_ list: String?) throws -> [PlatformProfile] {
        guard let list else { return all }
        let wanted = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for w in wanted where !all.contains(where: { $0.name == w }) { throw UnknownName(name: w) }
        return all.filter { wanted.contains($0.name) }
    }

    /// What playing a programme of `integratedLUFS`, `truePeakDBTP` and `samplePeakDBFS` gives.
    public struct Playback: Equatable, Sendable {
        /// The gain the platform applies, dB (nil when the loudness is undefined).
        public var gainDB: Double?
        /// Loudness as played (nil when undefined).
        public var integratedLUFS: Double?
        /// True peak as played (nil when undefined, or when the platform's limiter changes it).
        public var truePeakDBTP: Double?
        /// Whether the platform's limiter would act.
        public var limited: Bool
        public var notes: [String]
    }

    /// The rule applied to a programme's measured figures (a track, or with album mode its album).
    public func playback(integratedLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double?) -> Playback {
        guard let lufs = integratedLUFS else {
            return Playback(gainDB: nil, integratedLUFS: nil, truePeakDBTP: nil, limited: false,
                            notes: ["\(name): the integrated loudness is undefined, so the gain the platform applies is unknown."])
        }
        var gain = targetLUFS - lufs
        var notes: [String] = []
        if gain > 0 {
            switch raise {
            case .never:
                gain = 0
            case .upToPeakCeiling(let ceiling):
                // Without a true peak (digital silence has none) there is nothing to cap the gain by.
                if let tp = truePeakDBTP { gain = max(0, min(gain, ceiling - tp)) }
            case .withLimiter:
                break
            }
        }
        let limited = limiterActs(truePeakDBTP: truePeakDBTP, samplePeakDBFS: samplePeakDBFS, gainDB: gain)
        var tp = truePeakDBTP.map { $0 + gain }
        if limited {
            tp = nil
            let peak = [truePeakDBTP, samplePeakDBFS].compactMap { $0 }.max().map { String(format: "%+.2f", $0 + gain) } ?? "?"
            notes.append("\(name): its limiter acts (it engages at \(Self.dB(limiterThreshold ?? 0)) dB, and the peak would play at \(peak) dB), so the true peak as played depends on the limiter and the loudness is slightly below the target.")
        }
        return Playback(gainDB: gain, integratedLUFS: lufs + gain, truePeakDBTP: tp, limited: limited, notes: notes)
    }

    /// Whether the platform's limiter acts on a programme of these peaks played at `gainDB`: its
    /// peak as played passes the threshold. The peak is the true peak (the sample peak without
    /// one): a platform plays a lossy encode of the master, whose decoded samples reach its
    /// inter-sample peaks, so those are what the limiter meets.
    public func limiterActs(truePeakDBTP: Double?, samplePeakDBFS: Double?, gainDB: Double) -> Bool {
        guard let t = limiterThreshold, let peak = [truePeakDBTP, samplePeakDBFS].compactMap({ $0 }).max() else { return false }
        return peak + gainDB > t
    }

    private var limiterThreshold: Double? {
        if case .withLimiter(let t) = raise { return t }
        return nil
    }

    private static func dB(_ v: Double) -> String { String(format: "%.0f", v) }
}
