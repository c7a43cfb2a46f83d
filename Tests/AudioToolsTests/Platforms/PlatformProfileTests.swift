import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Each platform's rule against the examples it publishes, and the arithmetic of the others.
@Suite struct PlatformProfileTests {
    static func profile(_ name: String) -> PlatformProfile { PlatformProfile.all.first { $0.name == name }! }

    /// Spotify's own example: a track at −20 LUFS with its true peak at −5 dBFS is lifted only to −16.
    @Test func spotifyLiftsOnlyAsFarAsOneDecibelOfHeadroom() {
        let p = Self.profile("spotify").playback(integratedLUFS: -20, truePeakDBTP: -5, samplePeakDBFS: -5.5)
        #expect(abs(p.gainDB! - 4) < 1e-9)
        #expect(abs(p.integratedLUFS! - (-16)) < 1e-9)
        #expect(abs(p.truePeakDBTP! - (-1)) < 1e-9)
        #expect(!p.limited)
    }

    /// Louder masters are turned down to −14 whatever their peak; a quiet one with room is lifted fully.
    @Test func spotifyTurnsDownAndLiftsWithRoom() {
        let down = Self.profile("spotify").playback(integratedLUFS: -8, truePeakDBTP: 0.5, samplePeakDBFS: 0)
        #expect(abs(down.gainDB! - (-6)) < 1e-9 && abs(down.integratedLUFS! - (-14)) < 1e-9)
        let up = Self.profile("spotify").playback(integratedLUFS: -18, truePeakDBTP: -9, samplePeakDBFS: -9)
        #expect(abs(up.gainDB! - 4) < 1e-9 && abs(up.truePeakDBTP! - (-5)) < 1e-9)
        // Already above the ceiling: no lift at all, never a cut for headroom.
        let hot = Self.profile("spotify").playback(integratedLUFS: -16, truePeakDBTP: -0.5, samplePeakDBFS: -0.5)
        #expect(hot.gainDB == 0)
    }

    /// Loud (−11) is set regardless of true peak; its limiter engages at −1 dBFS sample values.
    @Test func spotifyLoudUsesItsLimiter() {
        let p = Self.profile("spotify-loud").playback(integratedLUFS: -20, truePeakDBTP: -5, samplePeakDBFS: -5.2)
        #expect(abs(p.gainDB! - 9) < 1e-9 && abs(p.integratedLUFS! - (-11)) < 1e-9)
        #expect(p.limited && p.truePeakDBTP == nil && !p.notes.isEmpty)
        let calm = Self.profile("spotify-loud").playback(integratedLUFS: -13, truePeakDBTP: -10, samplePeakDBFS: -10)
        #expect(!calm.limited && abs(calm.truePeakDBTP! - (-8)) < 1e-9)
    }

    /// Loud's limiter meets whatever plays over −1 dB, at the true peak (a lossy encode's decoded
    /// samples reach it): a track raised until its true peak plays at +0.86 dB although its sample
    /// peak stays under −1, and a track over full scale that is turned down but still plays over −1.
    @Test func spotifyLoudLimitsWhateverPlaysOverItsThreshold() {
        let loud = Self.profile("spotify-loud")
        let raised = loud.playback(integratedLUFS: -12, truePeakDBTP: -0.14, samplePeakDBFS: -2.1)
        #expect(abs(raised.gainDB! - 1) < 1e-9 && raised.limited && raised.truePeakDBTP == nil)
        #expect(raised.notes.first?.contains("+0.86 dB") == true, "\(raised.notes)")
        let down = loud.playback(integratedLUFS: -10.5, truePeakDBTP: 1.36, samplePeakDBFS: 1.2)
        #expect(abs(down.gainDB! - -0.5) < 1e-9 && down.limited && down.truePeakDBTP == nil)
        // Turned down under the threshold, or just at it: no limiter.
        let under = loud.playback(integratedLUFS: -9, truePeakDBTP: 0.5, samplePeakDBFS: 0)
        #expect(!under.limited && abs(under.truePeakDBTP! - -1.5) < 1e-9)
        #expect(!loud.limiterActs(truePeakDBTP: -3, samplePeakDBFS: -3.5, gainDB: 2))
        #expect(loud.limiterActs(truePeakDBTP: nil, samplePeakDBFS: -3, gainDB: 2.5))
        // Platforms without a limiter never say it acts.
        #expect(!Self.profile("spotify").limiterActs(truePeakDBTP: 3, samplePeakDBFS: 3, gainDB: 0))
    }

    @Test func spotifyQuietTargetsMinus19() {
        let p = Self.profile("spotify-quiet").playback(integratedLUFS: -9, truePeakDBTP: 0, samplePeakDBFS: 0)
        #expect(abs(p.integratedLUFS! - (-19)) < 1e-9)
    }

    /// YouTube, Tidal, Amazon Music and Deezer only turn down.
    @Test(arguments: [("youtube", -14.0), ("tidal", -14.0), ("amazon-music", -14.0), ("deezer", -15.0)])
    func turnsDownOnly(name: String, target: Double) {
        let loud = Self.profile(name).playback(integratedLUFS: -9, truePeakDBTP: 0, samplePeakDBFS: 0)
        #expect(abs(loud.gainDB! - (target + 9)) < 1e-9 && abs(loud.integratedLUFS! - target) < 1e-9)
        let quiet = Self.profile(name).playback(integratedLUFS: -25, truePeakDBTP: -12, samplePeakDBFS: -12)
        #expect(quiet.gainDB == 0 && quiet.integratedLUFS == -25 && quiet.truePeakDBTP == -12)
    }

    @Test func appleTargetsMinus16() {
        let music = Self.profile("apple-music").playback(integratedLUFS: -10, truePeakDBTP: -0.2, samplePeakDBFS: -0.3)
        #expect(abs(music.integratedLUFS! - (-16)) < 1e-9)
        let podcast = Self.profile("apple-podcasts").playback(integratedLUFS: -20, truePeakDBTP: -3, samplePeakDBFS: -3)
        #expect(abs(podcast.gainDB! - 2) < 1e-9)  // to the −1 dBTP ceiling, not the −16 target
    }

    @Test func undefinedLoudnessGivesNullsWithANote() {
        let p = Self.profile("spotify").playback(integratedLUFS: nil, truePeakDBTP: nil, samplePeakDBFS: nil)
        #expect(p.gainDB == nil && p.integratedLUFS == nil && !p.notes.isEmpty)
    }

    @Test func aListChoosesInTableOrderAndRefusesUnknownNames() throws {
        #expect(try PlatformProfile.chosen("youtube,spotify").map(\.name) == ["spotify", "youtube"])
        #expect(try PlatformProfile.chosen(nil).count == 9)
        #expect(throws: PlatformProfile.UnknownName(name: "myspace")) { try PlatformProfile.chosen("spotify,myspace") }
    }

    /// Album mode: the album's gain applied to each of its tracks.
    @Test func albumModeAppliesTheAlbumsGain() {
        let loudness: JSON = .object([
            "integrated_lufs": .double(-12), "true_peak_dbtp": .double(-1.5), "sample_peak_dbfs": .double(-1.6),
            "album": .object(["integrated_lufs": .double(-10), "true_peak_dbtp": .double(-0.5), "sample_peak_dbfs": .double(-0.6)]),
            "platforms": .array([.object(["name": .string("spotify")]), .object(["name": .string("youtube")])]),
        ])
        let out = PlatformsRecord.withAlbum(loudness)
        let spotify = out["platforms"]?.arrayValue?[0]["album"]
        #expect(spotify?["gain_db"]?.doubleValue == -4)
        #expect(spotify?["integrated_lufs"]?.doubleValue == -16)
        #expect(out["platforms"]?.arrayValue?[1]["album"] == .null)
    }

    /// Album mode on Loud: the album's gain applied to a track whose own peak then plays over −1 dB
    /// is limited, whatever the sign of that gain; a quieter track of the same album is not.
    @Test func spotifyLoudAlbumModeLimitsByTheTracksOwnPeak() {
        func album(trackTP: Double) -> JSON? {
            let loudness: JSON = .object([
                "integrated_lufs": .double(-10.8), "true_peak_dbtp": .double(trackTP), "sample_peak_dbfs": .double(trackTP - 0.3),
                "album": .object(["integrated_lufs": .double(-10.5), "true_peak_dbtp": .double(1.5), "sample_peak_dbfs": .double(1.2)]),
                "platforms": .array([.object(["name": .string("spotify-loud")])]),
            ])
            return PlatformsRecord.withAlbum(loudness)["platforms"]?.arrayValue?.first?["album"]
        }
        let hot = album(trackTP: 1.36)
        #expect(hot?["gain_db"]?.doubleValue == -0.5 && hot?["limited"] == .bool(true) && hot?["true_peak_dbtp"] == .null)
        let calm = album(trackTP: -3)
        #expect(calm?["limited"] == .bool(false) && calm?["true_peak_dbtp"]?.doubleValue == -3.5)
    }
}
