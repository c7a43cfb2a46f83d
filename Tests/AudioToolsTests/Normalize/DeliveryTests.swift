import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import ToolRunner

/// `--channels` (the downmix matrix), `--bit-rate` / `--quality` (codec ranges) and the podcast
/// preset's mono target: analytic values.
@Suite struct DeliveryTests {
    static let surround51: [ChannelRole] = [.left, .right, .centre, .lfe, .leftSurround, .rightSurround]

    static func rmsDB(_ x: [Float]) -> Double {
        10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count))
    }

    /// A 1 kHz tone peaking at −20 dBFS, 48 kHz.
    static func tone(_ n: Int = 4800) -> [Float] {
        (0..<n).map { Float(pow(10, -20.0 / 20) * sin(2 * Double.pi * 1000 * Double($0) / 48_000)) }
    }

    static func run(_ d: Downmix, _ channels: [[Float]]) -> AudioBlock {
        var out = AudioBlock(channelCount: 0, capacity: 0)
        d.apply(AudioBlock(channels: channels, frames: channels[0].count), into: &out)
        return out
    }

    @Test func aToneOnlyInTheCentreLandsThreeDecibelsLowerInLeftAndRight() throws {
        let d = try Downmix(roles: Self.surround51, to: 2)
        #expect(d.matrix == .stereo && d.dropped == [.lfe] && d.roles == [.left, .right])
        let t = Self.tone(), z = [Float](repeating: 0, count: t.count)
        let out = Self.run(d, [z, z, t, z, z, z])
        // −20 dBFS peak in C → 0.7071 × that = −23.01 dBFS in L and in R.
        for c in 0..<2 {
            let peak = out.channels[c].prefix(out.frames).map { abs($0) }.max()!
            #expect(abs(20 * log10(Double(peak)) - (-20 + 20 * log10(0.70710678))) < 0.01)
            #expect(abs(20 * log10(Double(peak)) - (-23.01)) < 0.01)
        }
    }

    @Test func theMatrixIsBS775AndTheLFEIsDropped() throws {
        let d = try Downmix(roles: Self.surround51, to: 2)
        let g = Downmix.sideGain
        #expect(d.rows[0] == [1, 0, g, 0, g, 0])
        #expect(d.rows[1] == [0, 1, g, 0, 0, g])
        let z = [Float](repeating: 0, count: 8), one = [Float](repeating: 1, count: 8)
        let out = Self.run(d, [z, z, z, one, z, z])
        #expect(out.channels[0].prefix(8).allSatisfy { $0 == 0 } && out.channels[1].prefix(8).allSatisfy { $0 == 0 })
    }

    @Test func monoIsTheMidOfStereoAndOfTheStereoDownmix() throws {
        let stereo = try Downmix(roles: [.left, .right], to: 1)
        #expect(stereo.matrix == .mid && stereo.rows == [[0.5, 0.5]] && stereo.roles == [.mono])
        // L and R in phase at the same level: the mid is that level.
        let t = Self.tone()
        let out = Self.run(stereo, [t, t])
        #expect(abs(Self.rmsDB(Array(out.channels[0].prefix(out.frames))) - Self.rmsDB(t)) < 1e-6)
        let surround = try Downmix(roles: Self.surround51, to: 1)
        #expect(surround.matrix == .stereoThenMid)
        let g = Downmix.sideGain
        #expect(surround.rows == [[0.5, 0.5, g, 0, g / 2, g / 2]])
    }

    @Test func whatIsNotADownmixIsRefused() {
        #expect(throws: Downmix.Refusal.notFewer(sourceChannels: 1, channels: 2)) { try Downmix(roles: [.mono], to: 2) }
        #expect(throws: Downmix.Refusal.notFewer(sourceChannels: 2, channels: 2)) { try Downmix(roles: [.left, .right], to: 2) }
        #expect(throws: Downmix.Refusal.unplaced([.topFrontLeft])) { try Downmix(roles: [.left, .right, .topFrontLeft], to: 2) }
        #expect(throws: Downmix.Refusal.unsupportedCount(3)) { try Downmix(roles: Self.surround51, to: 3) }
    }

    @Test func bitRatesAndQualitiesAreCheckedPerCodec() {
        #expect(LossyRate.parseBitRate("192k") == 192_000)
        #expect(LossyRate.parseBitRate("96000") == 96_000)
        #expect(LossyRate.parseBitRate("1.5M") == 1_500_000)
        #expect(LossyRate.parseBitRate("fast") == nil && LossyRate.parseBitRate("-5x") == nil && LossyRate.parseBitRate("0") == nil)
        #expect(LossyRate.bitRate(192_000).check(.mp3, sampleRate: 44_100) == nil)
        #expect(LossyRate.bitRate(100_000).check(.mp3, sampleRate: 44_100) != nil)
        // MPEG-2 rates below 32 kHz: 192 kb/s is not one of them.
        #expect(LossyRate.bitRate(192_000).check(.mp3, sampleRate: 22_050) != nil)
        #expect(LossyRate.bitRate(96_000).check(.vorbis) == .noBitRate(.vorbis))
        #expect(LossyRate.quality(5).check(.opus) == .noQualityScale(.opus))
        #expect(LossyRate.quality(9.5).check(.mp3) == .qualityOutOfRange(.mp3, 9.5, 0...9))
        #expect(LossyRate.quality(2).check(.aac) == nil && LossyRate.quality(3).check(.aac) != nil)
        #expect(LossyRate.bitRate(600_000).check(.opus, channels: 2) == .bitRateOutOfRange(.opus, 600_000, 12_000...512_000))
        #expect(LossyRate.bitRate(128_000).check(nil, losslessName: "FLAC") == .lossless(codec: "FLAC"))
        #expect(LossyRate.quality(1.5).ffmpegArguments("a") == ["-q:a", "1.5"])
        #expect(LossyRate.bitRate(96_000).ffmpegArguments("a:1") == ["-b:a:1", "96000"])
    }

    @Test func thePodcastPresetAimsAMonoProgrammeAtMinus19() throws {
        let podcast = try #require(LoudnessPreset.named("podcast"))
        #expect(podcast.targetLUFS(channels: 2) == -16)
        #expect(podcast.targetLUFS(channels: 1) == -19)
        #expect(podcast.targetLUFS(channels: 6) == -16)
        let r128 = try #require(LoudnessPreset.named("ebu-r128"))
        #expect(r128.targetLUFS(channels: 1) == -23)
    }
}
