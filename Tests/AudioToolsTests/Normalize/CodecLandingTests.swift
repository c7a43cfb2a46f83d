import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The check of a lossy file after its codec, and the settings of the encode that corrects it:
/// analytic values.
@Suite struct CodecLandingTests {
    typealias L = CodecLanding.Levels
    static func amp(_ db: Double) -> Double { pow(10, db / 20) }

    static func correct(handed: L, decoded: L, limiting: Bool = true, steers: Bool = true, canLimit: Bool = true) -> CodecLanding.Correction? {
        CodecLanding.correction(handed: handed, decoded: decoded, targetLUFS: -14, ceilingDBTP: -1, limiterCeilingDBTP: -1,
                                limiterMarginDB: 0.15, limiting: limiting, steersLoudness: steers, canLimit: canLimit)
    }

    @Test func onTargetAndUnderTheCeilingNeedsNoSecondEncode() {
        #expect(Self.correct(handed: L(integratedLUFS: -14, truePeakDBTP: -1.15), decoded: L(integratedLUFS: -14.19, truePeakDBTP: -1.0)) == nil)
        #expect(Self.correct(handed: L(integratedLUFS: -14, truePeakDBTP: -3), decoded: L(integratedLUFS: -13.81, truePeakDBTP: -2)) == nil)
        // A peak that rounds to the ceiling is not over it.
        #expect(Self.correct(handed: L(integratedLUFS: -14, truePeakDBTP: -1.15), decoded: L(integratedLUFS: -14, truePeakDBTP: -0.996)) == nil)
        // Nothing measurable: nothing to correct.
        #expect(Self.correct(handed: L(integratedLUFS: nil, truePeakDBTP: nil), decoded: L(integratedLUFS: nil, truePeakDBTP: nil)) == nil)
    }

    @Test func aLoudnessMissMovesWhatIsHandedToTheEncoderByTheCodecsChange() throws {
        // The codec took 0.54 LU: hand it 0.54 LU more.
        let c = try #require(Self.correct(handed: L(integratedLUFS: -14.01, truePeakDBTP: -2.5), decoded: L(integratedLUFS: -14.55, truePeakDBTP: -2.6)))
        #expect(c.forLoudness && !c.forPeak)
        #expect(abs(c.handedTargetLUFS! - (-14 + 0.54)) < 1e-9)
        #expect(c.limiterCeilingDBTP == -1 && c.limit && c.gainDeltaDB == 0)
        // Not steered (an album's gain, --peak reduce, a dialogue target): the loudness is left alone.
        #expect(Self.correct(handed: L(integratedLUFS: -14.01, truePeakDBTP: -2.5), decoded: L(integratedLUFS: -14.55, truePeakDBTP: -2.6), steers: false) == nil)
    }

    @Test func aPeakOverTheCeilingLowersTheLimitersCeilingByTheCodecsError() throws {
        let handed = L(integratedLUFS: -14, truePeakDBTP: -1.15), decoded = L(integratedLUFS: -14.02, truePeakDBTP: 0.18)
        let c = try #require(Self.correct(handed: handed, decoded: decoded))
        #expect(c.forPeak && !c.forLoudness && c.limit)
        // The codec added e in amplitude (1.33 dB as a ratio): room for 1.5 e, or for 1.5 times the
        // ratio when that asks for less, 0.1 dB under the ceiling.
        let e = Self.amp(0.18) - Self.amp(-1.15)
        let additive = 20 * log10(Self.amp(-1.1) - 1.5 * e), ratio = -1.1 - 1.5 * 1.33
        #expect(abs(c.limiterCeilingDBTP - (max(additive, ratio) + 0.15)) < 1e-9)
        // Handed that much less, with the same error, the file decodes under the ceiling.
        #expect(20 * log10(Self.amp(c.limiterCeilingDBTP - 0.15) + e) < -1.1)
        #expect(abs(CodecLanding.peakError(handed: handed, decoded: decoded)! - e) < 1e-12)
        // At least the excess comes off, when the codec's error is small.
        let small = try #require(Self.correct(handed: L(integratedLUFS: -14, truePeakDBTP: -0.9), decoded: L(integratedLUFS: -14, truePeakDBTP: -0.8)))
        #expect(small.limiterCeilingDBTP <= -1 - 0.2 - 0.1 + 1e-9)
        // A plain gain (no limiter yet) turns the limiter on.
        let on = try #require(Self.correct(handed: L(integratedLUFS: -14, truePeakDBTP: -1.6), decoded: L(integratedLUFS: -14, truePeakDBTP: -0.7), limiting: false))
        #expect(on.limit && on.limiterCeilingDBTP < -1)
        // A huge error lowers the ceiling 6 dB at most.
        let huge = try #require(Self.correct(handed: L(integratedLUFS: -14, truePeakDBTP: -1.15), decoded: L(integratedLUFS: -14, truePeakDBTP: 5)))
        #expect(abs(huge.limiterCeilingDBTP - (-7 + 0.15)) < 1e-9)
    }

    @Test func withoutTheLimiterTheOvershootComesOffTheGain() throws {
        let c = try #require(Self.correct(handed: L(integratedLUFS: -16.5, truePeakDBTP: -1.3), decoded: L(integratedLUFS: -16.5, truePeakDBTP: -0.6),
                                          limiting: false, steers: false, canLimit: false))
        #expect(!c.limit && c.handedTargetLUFS == nil)
        #expect(abs(c.gainDeltaDB - (-1 - 0.1 + 0.6)) < 1e-9)
    }

    @Test func theChangeAndOvershootAreDecodedLessHanded() {
        let h = L(integratedLUFS: -14, truePeakDBTP: -2), d = L(integratedLUFS: -14.3, truePeakDBTP: -2.5)
        #expect(abs(CodecLanding.loudnessChange(handed: h, decoded: d)! - (-0.3)) < 1e-9)
        #expect(CodecLanding.peakOvershoot(handed: h, decoded: d) == 0)
        #expect(CodecLanding.loudnessChange(handed: L(integratedLUFS: nil, truePeakDBTP: nil), decoded: d) == nil)
    }

    @Test func aModelTakesAnotherLimiterCeilingWithoutAnotherAnalysis() throws {
        let x = (0..<(48_000 * 3)).map { Float(0.5 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) }
        var plan = NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true)
        let model = try NormalizePipeline.analyse(plan, source: MemoryAudioSource(sampleRate: 48_000, channels: [x, x]), weights: [1, 1])
        plan.limiterTiming.ceilingDBTP = -4
        let lower = try #require(model.withLimiter(plan.limiterTiming))
        // At +6 dB the tone's peak (about 0 dBTP) is limited to the ceiling less the margin.
        let a = try #require(model.loudness(gainDB: 6)), b = try #require(lower.loudness(gainDB: 6))
        #expect(abs((a - b) - 3) < 0.1, "\(a) \(b)")
        // A model made without the limiter kept no peaks: it can't turn the limiter on.
        let plain = try NormalizePipeline.analyse(NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: false),
                                                  source: MemoryAudioSource(sampleRate: 48_000, channels: [x, x]), weights: [1, 1])
        #expect(plain.withLimiter(plan.limiterTiming) == nil)
    }

    @Test func aSinksFileDecodesBeforeItIsCommitted() throws {
        let dir = NSTemporaryDirectory() + "codec-landing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.ogg"
        let code = try #require(SndfileSink.formatCode(container: "ogg", codec: "vorbis"))
        let sink = try SndfileSink(path: path, formatCode: code, sampleRate: 48_000, channelCount: 1, overwrite: false)
        var block = AudioBlock(channelCount: 1, capacity: 48_000)
        block.channels[0] = (0..<48_000).map { Float(0.25 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        block.frames = 48_000
        try sink.write(block)
        try sink.finishEncoding()
        let readable = try #require(sink.readablePath)
        #expect(!FileManager.default.fileExists(atPath: path), "not in place before the commit")
        let opened = try Decoder.open(readable)
        let frames = try Decoder.forEachBlock(opened.source) { _ in }
        #expect(abs(frames - 48_000) < 2_048)
        try sink.commit()
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
