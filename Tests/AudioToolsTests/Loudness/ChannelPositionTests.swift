import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// BS.1770-4/-5 Table 4: a channel weighs 1.41 when its loudspeaker is below 30° of elevation
/// and 60° to 120° off centre, 1.0 anywhere else, and the LFE is left out.
@Suite struct ChannelPositionTests {
    @Test func theRuleByPosition() {
        #expect(ChannelPosition.weight(azimuth: 90, elevation: 0) == 1.41)
        #expect(ChannelPosition.weight(azimuth: -60, elevation: 0) == 1.41)
        #expect(ChannelPosition.weight(azimuth: 120, elevation: 29.9) == 1.41)
        #expect(ChannelPosition.weight(azimuth: 110, elevation: -15) == 1.41)
        #expect(ChannelPosition.weight(azimuth: 59.9, elevation: 0) == 1.0)
        #expect(ChannelPosition.weight(azimuth: 135, elevation: 0) == 1.0)
        #expect(ChannelPosition.weight(azimuth: -150, elevation: 0) == 1.0)
        #expect(ChannelPosition.weight(azimuth: 90, elevation: 30) == 1.0)
        #expect(ChannelPosition.weight(azimuth: 0, elevation: 90) == 1.0)
        #expect(ChannelPosition.weight(azimuth: 30, elevation: 0) == 1.0)
    }

    @Test func everyRoleWeighsByItsPosition() {
        for role in ChannelRole.allCases {
            if role.isLFE { #expect(role.weight == 0); continue }
            guard let az = role.azimuth, let el = role.elevation else { #expect(role.weight == 1); continue }
            #expect(role.weight == ChannelPosition.weight(azimuth: az, elevation: el), "\(role.label)")
        }
    }

    @Test func namedLayouts() throws {
        func w(_ name: String) throws -> [Double] { try ChannelLayout.parse(name).weights }
        #expect(try w("5.1") == [1, 1, 1, 0, 1.41, 1.41])
        // 7.1: the side pair (±90°) weighs 1.41, the back pair (±135°) 1.0.
        #expect(try ChannelLayout.parse("7.1").description == "L,R,C,LFE,Lb,Rb,Lss,Rss")
        #expect(try w("7.1") == [1, 1, 1, 0, 1, 1, 1.41, 1.41])
        #expect(try w("5.1.2") == [1, 1, 1, 0, 1.41, 1.41, 1, 1])
        #expect(try w("5.1.4") == [1, 1, 1, 0, 1.41, 1.41, 1, 1, 1, 1])
        #expect(try w("7.1.2") == [1, 1, 1, 0, 1, 1, 1.41, 1.41, 1, 1])
        #expect(try w("7.1.4") == [1, 1, 1, 0, 1, 1, 1.41, 1.41, 1, 1, 1, 1])
        let nine = try w("9.1.6")
        #expect(nine.count == 16 && nine.filter { $0 == 0 }.count == 1 && nine.filter { $0 == 1.41 }.count == 4)
        let l222 = try ChannelLayout.parse("22.2")
        #expect(l222.channelCount == 24)
        #expect(l222.weights.filter { $0 == 0 }.count == 2)          // LFE1 and LFE2
        #expect(l222.weights[0] == 1.41 && l222.weights[1] == 1.41)  // FL/FR at ±60°
        #expect(l222.weights[6] == 1 && l222.weights[10] == 1.41)    // FLc ±30°, SiL ±90°
        #expect(l222.weights[12...].allSatisfy { $0 == 1 || $0 == 0 })
        #expect(try ChannelLayout.parse("L,R,C,LFE,Lrs,Rrs,Lss,Rss,Ltf,Rtf,Ltb,Rtb").name == "7.1.4")
        #expect(ChannelLayout.standard(channelCount: 2).name == "stereo" && ChannelLayout.dualMono.name == "dual-mono")
        #expect(try ChannelLayout.parse("L,R,LFE").name == nil)
        // A name round-trips through its description.
        for name in ["5.1", "7.1", "5.1.2", "5.1.4", "7.1.2", "7.1.4", "9.1.6", "22.2"] {
            let l = try ChannelLayout.parse(name)
            #expect(try ChannelLayout.parse(l.description) == l, "\(name)")
        }
    }

    @Test func heightLabelsAndOtherSpellings() throws {
        let l = try ChannelLayout.parse("L,R,C,LFE,Lrs,Rrs,Lss,Rss,Ltf,Rtf,Ltb,Rtb")
        #expect(l == (try ChannelLayout.parse("7.1.4")))
        #expect(try ChannelLayout.parse("FL,FR,FC,LFE,BL,BR,SL,SR,TFL,TFR,TBL,TBR") == l)
        #expect(try ChannelLayout.parse("M+030,M-030,M+000,LFE1,M+135,M-135,M+090,M-090,U+045,U-045,U+135,U-135") == l)
        #expect(try ChannelLayout.parse("L,R,C,LFE,Ls,Rs,Ltr,Rtr,Ltm,Rtm").weights == [1, 1, 1, 0, 1.41, 1.41, 1, 1, 1, 1])
        #expect(try ChannelLayout.parse("Lw,Rw,Tc,LFE2,Cb").weights == [1.41, 1.41, 1, 0, 1])
    }

    /// WAVE_FORMAT_EXTENSIBLE and ffmpeg name the 5.1 surround pair "back": without a side pair
    /// they are the ±110° surrounds, with one they are the ±135° backs.
    @Test func maskNamesFollowTheMaskConvention() throws {
        #expect(try ChannelLayout.parse("FL,FR,FC,LFE,BL,BR").weights == [1, 1, 1, 0, 1.41, 1.41])
        #expect(try ChannelLayout.parse("FL,FR,FC,LFE,BL,BR,SL,SR").weights == [1, 1, 1, 0, 1, 1, 1.41, 1.41])
        // Our own label Lb is always the back position.
        #expect(try ChannelLayout.parse("L,R,C,LFE,Lb,Rb").weights == [1, 1, 1, 0, 1, 1])
    }

    @Test func waveChannelMasks() {
        #expect(ChannelLayout.speakerNames(waveMask: 0x3F, channelCount: 6) == ["FL", "FR", "FC", "LFE", "BL", "BR"])
        #expect(ChannelLayout.speakerNames(waveMask: 0x63F, channelCount: 8) == ["FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"])
        #expect(ChannelLayout.speakerNames(waveMask: 0x2D63F, channelCount: 12)
                == ["FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR", "TFL", "TFR", "TBL", "TBR"])
        // A mask that doesn't account for every channel, or none at all, says nothing.
        #expect(ChannelLayout.speakerNames(waveMask: 0x3, channelCount: 6) == nil)
        #expect(ChannelLayout.speakerNames(waveMask: 0, channelCount: 2) == nil)
        #expect(ChannelLayout.speakerNames(waveMask: 0x8000_0003, channelCount: 2) == ["FL", "FR"])
    }

    @Test func guessesFromTheChannelCount() {
        let six = ChannelLayout.resolve(speakerNames: nil, channelCount: 6)
        #expect(six.guessed && six.layout == ChannelLayout.standard(channelCount: 6))
        #expect(ChannelLayout.resolve(speakerNames: nil, channelCount: 12).layout.weights == [1, 1, 1, 0, 1, 1, 1.41, 1.41, 1, 1, 1, 1])
        let tenth = ChannelLayout.resolve(speakerNames: nil, channelCount: 10)
        #expect(tenth.guessed && tenth.layout.weights == Array(repeating: 1, count: 10))
        let file = ChannelLayout.resolve(speakerNames: ["FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"], channelCount: 8)
        #expect(!file.guessed && file.layout.weights == [1, 1, 1, 0, 1, 1, 1.41, 1.41])
        // A map with an unknown speaker, or the wrong count, is not used.
        #expect(ChannelLayout.resolve(speakerNames: ["FL", "FR", "?"], channelCount: 3).guessed)
        #expect(ChannelLayout.resolve(speakerNames: ["FL", "FR"], channelCount: 3).guessed)
        // Mono and stereo have one reading: never reported as guessed.
        #expect(!ChannelLayout.resolve(speakerNames: nil, channelCount: 2).guessed)
        #expect(!ChannelLayout.resolve(speakerNames: nil, channelCount: 1).guessed)
    }
    @Test func choosesTheOptionsLayoutOnlyWhenItFits() throws {
        let stereo = try ChannelLayout.parse("L,R")
        let given = try ChannelLayout.choose(override: stereo, speakerNames: ["FL", "FR", "FC"], channelCount: 2)
        #expect(given.layout == stereo && given.note == nil && given.source == .option)
        #expect(throws: LayoutCountMismatch(channels: 6, named: 2)) {
            try ChannelLayout.choose(override: stereo, speakerNames: nil, channelCount: 6)
        }
        let guessed = try ChannelLayout.choose(override: nil, speakerNames: nil, channelCount: 6)
        #expect(guessed.layout == ChannelLayout.standard(channelCount: 6) && guessed.note == guessed.layout.guessNote)
        #expect(guessed.source == .channelCount && guessed.source.rawValue == "channel-count")
        let file = try ChannelLayout.choose(override: nil, speakerNames: ["FL", "FR", "FC"], channelCount: 3)
        #expect(file.source == .file && file.note == nil && file.layout.channelCount == 3)
    }
}

/// ffmpeg's `ebur128` weighs back, side and top back channels 1.41 by its channel mask: from
/// mono to 5.1 that is BS.1770's weighting and no note is added; 7.1 and wider say where it isn't.
@Suite struct FFmpegWeightingNoteTests {
    @Test func layoutsUpTo51AgreeWithFFmpeg() throws {
        for name in ["mono", "stereo", "3.0", "quad", "5.0", "5.1"] {
            #expect(try ChannelLayout.parse(name).ffmpegWeightingNote == nil, "\(name)")
        }
        #expect(ChannelLayout.dualMono.ffmpegWeightingNote == nil)
    }

    @Test func sevenOneNamesItsBackPair() throws {
        let note = try #require(try ChannelLayout.parse("7.1").ffmpegWeightingNote)
        #expect(note == "ffmpeg's ebur128 filter weighs Lb, Rb 1.41 where BS.1770-4 by position (as here) weighs them 1.0, so its integrated loudness of this layout differs from this one where those channels carry sound.")
        let atmos = try #require(try ChannelLayout.parse("7.1.4").ffmpegWeightingNote)
        #expect(atmos.contains("Lb, Rb, Ltb, Rtb 1.41"), "\(atmos)")
    }
}

