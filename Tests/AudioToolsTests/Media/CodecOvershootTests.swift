import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What a trial encode tells of the codec, where its stretches lie, and how a media stream's
/// landing (CodecLanding.plan, the one model) moves its job.
struct CodecOvershootTests {
    static let aac = MediaAudioEncoding(encoder: "aac", displayName: "AAC", isLossy: true, bitRate: 128_000, sampleFormat: nil, bitDepth: nil,
                                        sampleRate: 48_000, channels: 2, channelLayout: "stereo")
    @Test func predictionIsTheCodecsChange() {
        let p = CodecOvershoot.predict(beforeLUFS: -14, beforeTruePeak: -1.2, afterLUFS: -14.3, afterTruePeak: -0.5, seconds: 7.5)
        #expect(abs(p.loudnessChangeLU - -0.3) < 1e-9)
        #expect(abs(p.peakOvershootDB - 0.7) < 1e-9)
        // A peak that came out lower is no overshoot; silence (no loudness) predicts no change.
        let q = CodecOvershoot.predict(beforeLUFS: nil, beforeTruePeak: -3, afterLUFS: -20, afterTruePeak: -3.5, seconds: 1)
        #expect(q.loudnessChangeLU == 0 && q.peakOvershootDB == 0)
        // A change beyond the limit is a trial gone wrong: none predicted.
        #expect(CodecOvershoot.predict(beforeLUFS: -14, beforeTruePeak: nil, afterLUFS: -20, afterTruePeak: nil, seconds: 1).loudnessChangeLU == 0)
    }

    @Test func stretches() {
        #expect(CodecOvershoot.stretches(durationSeconds: 2).map(\.start) == [0])
        let s = CodecOvershoot.stretches(durationSeconds: 100)
        #expect(s.map(\.start) == [0, 40, 75] && s.map(\.lead) == [0, 0.5, 0.5])
        // At 48 kHz each starts on the codecs' frame grid (46,080 frames, 0.96 s) at or before its
        // place, the difference added to its lead; at 44.1 kHz the grid isn't whole milliseconds.
        let g = CodecOvershoot.stretches(durationSeconds: 30, sampleRate: 48_000)
        #expect(g.map(\.start) == [0, 11.52, 22.08])
        #expect(abs(g[1].lead - 0.98) < 1e-9 && abs(g[2].lead - 0.92) < 1e-9)
        #expect(abs(g[1].length - 3.48) < 1e-9 && abs(g[2].length - 3.42) < 1e-9)
        #expect(CodecOvershoot.stretches(durationSeconds: 30, sampleRate: 44_100).map(\.start) == [0, 12, 22.5])
    }

    @Test func aTrialOnlyWhereTheCodecIsARisk() {
        // 3 dB under the ceiling at 64 kb/s a channel, not limited: encoded at once.
        #expect(!CodecOvershoot.needsTrial(fedPeakDBTP: -4, ceilingDBTP: -1, limited: false, bitRatePerChannel: 64_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: -2, ceilingDBTP: -1, limited: false, bitRatePerChannel: 64_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: -8, ceilingDBTP: -1, limited: true, bitRatePerChannel: 64_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: -8, ceilingDBTP: -1, limited: false, bitRatePerChannel: 35_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: nil, ceilingDBTP: -1, limited: false, bitRatePerChannel: 64_000))
    }

    /// A 30-s stream whose only peaks sit in 17..18 s: the trial's stretches are placed over them,
    /// each starting on the codecs' frame grid (46,080 frames) and measuring past its lead.
    @Test func stretchesArePlacedWhereThePeaksAre() throws {
        let rate = 48_000, hop = rate / 10, hops = 300
        var energies = [Float](repeating: 1e-3, count: hops * LimitedLoudnessModel.unitsPerHop)
        var peaks = [Float](repeating: 0.05, count: hops * LimitedLoudnessModel.unitsPerHop)
        for u in (170 * LimitedLoudnessModel.unitsPerHop) ..< (180 * LimitedLoudnessModel.unitsPerHop) { peaks[u] = 1.2; energies[u] = 2e-3 }
        let model = LimitedLoudnessModel(energies: energies, peaks: peaks, hop: hop, sampleRate: rate, limit: true,
                                         settings: TruePeakLimiter.Settings(ceilingDBTP: -1))
        let placed = try #require(MediaNormalizer.placedStretches(model, plan: NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true), frames: 30 * rate))
        #expect(placed.allSatisfy { $0.start % CodecLanding.codecGridFrames == 0 })
        // A stretch measures the peaks: its measured part (past the lead) covers 17..18 s.
        #expect(placed.contains { s in s.start + s.lead <= 17 * rate && s.start + s.count >= 18 * rate })
        // A stream tried whole has no places to choose.
        #expect(MediaNormalizer.placedStretches(model, plan: NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true), frames: 5 * rate) == nil)
    }

    /// Cut from a stream kept whole: each stretch's frames as a windowed decode would give them.
    @Test func stretchesCutFromTheKeptStream() {
        let rate = 1000
        let channel = (0..<10_000).map { Float($0) }
        let cut = MediaNormalizer.cut([channel], [(start: 2.5, length: 1, lead: 0.25), (start: 9.5, length: 1, lead: 0)], rate: rate)
        #expect(cut[0][0].first == 2500 && cut[0][0].count == 1000)
        // Past the end: what there is.
        #expect(cut[1][0].first == 9500 && cut[1][0].count == 500)
    }

    /// A stream the limiter leaves alone: loudness follows the gain dB for dB until the limiter
    /// would work; the landing then moves the gain by the codec's change only.
    @Test func linearLimiterAndAQuietStreamsLanding() {
        let l = MediaLanding.linear(lufs: -30, peakDBTP: -18, marginDB: 0.15)
        #expect(l.loudness(10, -1) == -20)
        #expect(l.loudness(17, -1) == nil)
        #expect(l.gain(-14, -1) == 16)
        #expect(l.depth(gainDB: 10, limiterCeilingDBTP: -1) == 0)
        let aim = CodecLanding.Aim(targetLUFS: -14, ceilingDBTP: -1, loudnessChangeLU: -0.1, overshootDB: 0.5)
        let pcm = (gainDB: 16.0, limiterCeilingDBTP: -1.0)
        let plan = CodecLanding.plan(aim, limiter: l, pcm: pcm)
        var job = MediaNormalizer.Job(ordinal: 0, encoding: Self.aac, plan: NormalizePlan(gainDB: 16, ceilingDBTP: -1, limit: true),
                                      compensate: false, targetLUFS: -14, weights: [1, 1], sourceTruePeakDBTP: -18, sourceLUFS: -30)
        MediaLanding.apply(plan, aim: aim, limiter: l, to: &job, pcmGainDB: 16, settings: .init(ceilingDBTP: -1, maxPasses: 4, maxCompensationDB: 6))
        #expect(abs(job.plan.gainDB - 16.1) < 1e-9 && job.plan.ceilingDBTP == -1)
        // Handed: the source's peak and loudness with the gain.
        let handed = MediaLanding(aim: aim, limiter: l, pcm: pcm, plan: plan).handed(job)
        #expect(abs((handed.integratedLUFS ?? 0) - -13.9) < 1e-9 && abs((handed.truePeakDBTP ?? 0) - -1.9) < 1e-9)
    }

    /// Under --peak reduce (no limiter, the loudness not steered) the codec's overshoot comes off the gain.
    @Test func underPeakReduceTheOvershootComesOffTheGain() {
        let l = MediaLanding.linear(lufs: -20, peakDBTP: -3, marginDB: 0.15)
        let aim = CodecLanding.Aim(targetLUFS: -14, ceilingDBTP: -1, overshootDB: 0.6, steersLoudness: false)
        let plan = NormalizePlan(gainDB: 2, ceilingDBTP: -1)
        var job = MediaNormalizer.Job(ordinal: 0, encoding: Self.aac, plan: plan, compensate: false, targetLUFS: -14, weights: [1, 1])
        MediaLanding.apply(CodecLanding.plan(aim, limiter: l, pcm: (2, -1)), aim: aim, limiter: l, to: &job, pcmGainDB: 2,
                           settings: .init(ceilingDBTP: -1, maxPasses: 4, maxCompensationDB: 6, steersLoudness: false))
        #expect(abs(job.plan.gainDB - 1.4) < 1e-9)
    }
}
