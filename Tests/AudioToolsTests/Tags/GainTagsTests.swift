import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct GainValuesTests {
    @Test func gainsAreTheReferenceMinusTheLoudness() {
        let v = GainValues(trackLUFS: -11.77, trackPeak: 0.98, albumLUFS: -12.5, albumPeak: 1.02)
        #expect(abs(v.trackGainDB - (-6.23)) < 1e-9)
        #expect(abs(v.albumGainDB! - (-5.5)) < 1e-9)
        #expect(GainValues(referenceLUFS: -16, trackLUFS: -20, trackPeak: 0.5).trackGainDB == 4)
    }

    @Test func textIsWhatPlayersParse() {
        #expect(GainValues.gainText(-6.234) == "-6.23 dB")
        #expect(GainValues.gainText(2.1) == "2.10 dB")
        #expect(GainValues.gainText(-0.001) == "0.00 dB")  // never "-0.00 dB"
        #expect(GainValues.peakText(0.9876543) == "0.987654")
        #expect(GainValues.peakText(1.2) == "1.200000")  // true peaks over full scale are kept
        #expect(GainValues.referenceText(-18) == "-18.00 LUFS")
    }

    @Test func r128IsQ78RelativeToMinus23() {
        #expect(GainValues.r128Gain(lufs: -23) == 0)
        #expect(GainValues.r128Gain(lufs: -16) == -7 * 256)
        #expect(GainValues.r128Gain(lufs: -30.5) == Int((7.5 * 256).rounded()))
        #expect(GainValues.q78(1.0 / 512 + 1e-9) == 1)  // 1/256 dB steps, rounded
        #expect(GainValues.q78(200) == 32767)
        #expect(GainValues.q78(-200) == -32768)
    }
}

@Suite struct GainTagSpellingTests {
    let values = GainValues(trackLUFS: -10, trackPeak: 0.5, albumLUFS: -12, albumPeak: 0.75)

    @Test func vorbisAndID3UseReplayGainNames() {
        for format in [TagFormat.flac, .oggVorbis, .mp3, .wav, .aiff] {
            let f = GainTagSpelling.fields(values, format: format)
            #expect(f.map(\.key) == ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN",
                                     "REPLAYGAIN_ALBUM_PEAK", "REPLAYGAIN_REFERENCE_LOUDNESS"])
            #expect(f.map(\.value) == ["-8.00 dB", "0.500000", "-6.00 dB", "0.750000", "-18.00 LUFS"])
            #expect(GainTagSpelling.removals(format: format).isEmpty)
        }
    }

    @Test func trackOnlyHasNoAlbumFields() {
        let f = GainTagSpelling.fields(GainValues(trackLUFS: -10, trackPeak: 0.5), format: .flac)
        #expect(f.map(\.key) == ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_REFERENCE_LOUDNESS"])
        #expect(GainTagSpelling.fields(GainValues(trackLUFS: -10, trackPeak: 0.5), format: .opus).map(\.key) == ["R128_TRACK_GAIN"])
    }

    @Test func mp4UsesLowerCaseFreeformAtoms() {
        let f = GainTagSpelling.fields(values, format: .mp4)
        #expect(f[0].key == "----:com.apple.iTunes:replaygain_track_gain")
        #expect(GainTagSpelling.recordKey(f[0].key) == "REPLAYGAIN_TRACK_GAIN")
    }

    @Test func opusGetsR128AndLosesReplayGain() {
        let f = GainTagSpelling.fields(values, format: .opus)
        #expect(f.map(\.key) == ["R128_TRACK_GAIN", "R128_ALBUM_GAIN"])
        #expect(f.map(\.value) == [String(-13 * 256), String(-11 * 256)])
        #expect(GainTagSpelling.removals(format: .opus).contains("REPLAYGAIN_TRACK_GAIN"))
    }

    @Test func alreadyHoldsComparesValuesNotPresence() {
        let f = GainTagSpelling.fields(GainValues(trackLUFS: -10, trackPeak: 0.5), format: .flac)
        let same = f.map { (key: $0.key.lowercased(), value: $0.value) } + [(key: "TITLE", value: "x")]
        #expect(GainTagSpelling.alreadyHolds(same, fields: f, removals: []))
        var stale = same
        stale[0].value = "-7.99 dB"
        #expect(!GainTagSpelling.alreadyHolds(stale, fields: f, removals: []))
        #expect(!GainTagSpelling.alreadyHolds(Array(same.dropFirst()), fields: f, removals: []))
        #expect(!GainTagSpelling.alreadyHolds(same + [same[0]], fields: f, removals: []))  // a duplicate is rewritten
        #expect(!GainTagSpelling.alreadyHolds(same, fields: f, removals: ["TITLE"]))
    }

    @Test func formatsFromContainers() {
        #expect(TagFormat.of(.flac) == .flac)
        #expect(TagFormat.of(.ogg(.opus)) == .opus)
        #expect(TagFormat.of(.ogg(.vorbis)) == .oggVorbis)
        #expect(TagFormat.of(.isoMedia) == .mp4)
        #expect(TagFormat.of(.aifc) == .aiff)
        #expect(TagFormat.of(.caf) == nil)
        #expect(TagFormat.of(.ogg(.speex)) == nil)
    }
}

@Suite struct AlbumKeyTests {
    @Test func tagsGroupAcrossFoldersWhenTheAlbumArtistIsKnown() {
        let a = AlbumKey.of(path: "m/cd1/01.flac", albumArtist: "Artist", album: "Album", grouping: .tag)
        let b = AlbumKey.of(path: "m/cd2/01.opus", albumArtist: "Artist", album: "Album", grouping: .tag)
        #expect(a == b)
        #expect(a.text == "Artist — Album")
        #expect(a.by == "tag")
    }

    @Test func anAlbumTagWithoutAlbumArtistStaysInItsFolder() {
        let a = AlbumKey.of(path: "x/hits/01.mp3", albumArtist: nil, album: "Greatest Hits", grouping: .tag)
        let b = AlbumKey.of(path: "y/hits/01.mp3", albumArtist: " ", album: "Greatest Hits", grouping: .tag)
        #expect(a != b)
        #expect(a.text == "Greatest Hits (in x/hits)")
    }

    @Test func foldersWithoutTagsOrWhenAsked() {
        #expect(AlbumKey.of(path: "x/a/01.wav", albumArtist: nil, album: nil, grouping: .tag) == AlbumKey(by: "folder", text: "x/a"))
        #expect(AlbumKey.of(path: "x/a/01.wav", albumArtist: "A", album: "B", grouping: .folder) == AlbumKey(by: "folder", text: "x/a"))
        #expect(AlbumKey.folder(of: "song.wav") == ".")
        #expect(AlbumKey.folder(of: "/song.wav") == "/")
    }
}
