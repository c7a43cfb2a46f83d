import AudioSignal
import Foundation
import JSONValue

/// `loudness.platforms`: one entry per chosen platform profile, what it does to this file; with
/// --album, each entry's `album` holds what album mode does to it (see `withAlbum`).
package enum PlatformsRecord {
    package static func json(_ profiles: [PlatformProfile], _ m: LoudnessMeasurement) -> JSON {
        .array(profiles.map { p in
            entry(p, p.playback(integratedLUFS: m.integratedLUFS, truePeakDBTP: m.truePeakDBTP, samplePeakDBFS: m.samplePeakDBFS))
        })
    }

    package static func entry(_ p: PlatformProfile, _ b: PlatformProfile.Playback) -> JSON {
        .object([
            "name": .string(p.name),
            "target_lufs": .double(p.targetLUFS, decimals: 1),
            "gain_db": .optional(b.gainDB, decimals: 2),
            "integrated_lufs": .optional(b.integratedLUFS, decimals: 2),
            "true_peak_dbtp": .optional(b.truePeakDBTP, decimals: 2),
            "limited": .bool(b.limited),
            "notes": .array(b.notes.map { .string($0) }),
        ])
    }

    /// The record's `loudness` with album mode added to each platform entry, once `loudness.album`
    /// is known: the gain the platform gives the album (from its loudness and peaks), applied to this
    /// track. A platform without album mode gets `album: null`.
    package static func withAlbum(_ loudness: JSON) -> JSON {
        guard var l = loudness.objectValue, let album = l["album"], let list = l["platforms"]?.arrayValue else { return loudness }
        let aI = album["integrated_lufs"]?.doubleValue, aTP = album["true_peak_dbtp"]?.doubleValue
        let aSP = album["sample_peak_dbfs"]?.doubleValue
        let tI = l["integrated_lufs"]?.doubleValue, tTP = l["true_peak_dbtp"]?.doubleValue, tSP = l["sample_peak_dbfs"]?.doubleValue
        l["platforms"] = .array(list.map { e in
            guard var o = e.objectValue, let name = o["name"]?.stringValue,
                  let p = PlatformProfile.all.first(where: { $0.name == name }) else { return e }
            guard p.albumMode else { o["album"] = .null; return .object(o) }
            let a = p.playback(integratedLUFS: aI, truePeakDBTP: aTP, samplePeakDBFS: aSP)
            let gain = a.gainDB
            // The album's gain applied to this track: its own peaks meet the limiter.
            let limited = gain.map { p.limiterActs(truePeakDBTP: tTP, samplePeakDBFS: tSP, gainDB: $0) } ?? false
            o["album"] = .object([
                "gain_db": .optional(gain, decimals: 2),
                "integrated_lufs": .optional(gain.flatMap { g in tI.map { $0 + g } }, decimals: 2),
                "true_peak_dbtp": .optional(limited ? nil : gain.flatMap { g in tTP.map { $0 + g } }, decimals: 2),
                "limited": .bool(limited),
            ])
            return .object(o)
        })
        return .object(l)
    }
}
