import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct DuckingTests {
    static let rate = 8000.0

    /// 1 s of faint noise, 1 s of a −20 dBFS-ish tone, 1 s of faint noise.
    static func burst() -> [Float] {
        let quiet = AlignTestSignals.noise(count: 8000, rms: 0.0003, seed: 4)
        let tone = (0..<8000).map { Float(0.1 * sin(2 * Double.pi * 200 * Double($0) / rate)) }
        let quiet2 = AlignTestSignals.noise(count: 8000, rms: 0.0003, seed: 5)
        return quiet + AlignTestSignals.sum(tone, AlignTestSignals.noise(count: 8000, rms: 0.0003, seed: 6)) + quiet2
    }

    @Test func activityFollowsTheVoiceWithHangover() {
        let vad = VoiceActivityDetector(sampleRate: Self.rate)
        let x = Self.burst()
        // Streaming in uneven blocks.
        var pos = 0, i = 0
        let sizes = [100, 3333, 7, 12_000]
        while pos < x.count {
            let end = min(x.count, pos + sizes[i % sizes.count])
            vad.process(Array(x[pos..<end]))
            pos = end; i += 1
        }
        vad.finish()
        #expect(vad.frameLength == 160)
        #expect(vad.activity.count == 150)  // 3 s of 20 ms frames
        let active = vad.activity.indices.filter { vad.activity[$0] }
        // Tone occupies frames 50..<100; hangover 250 ms = 12.5 → 13 frames more.
        #expect(active.first == 50)
        #expect(active.last == 99 + 13)
        #expect(active.count == 63)
    }

    @Test func duckingGainShapeAndLevels() {
        var s = DuckingEnvelope.Settings()
        s.duckDB = -12
        s.attackSeconds = 0.05
        s.releaseSeconds = 0.3
        let env = DuckingEnvelope(segments: [8000..<16_000], sampleRate: Self.rate, settings: s)
        let g = env.gains(from: 0, count: 24_000)
        let duck = Float(pow(10, -12.0 / 20))
        #expect(g[0] == 1 && g[7000] == 1 && g[23_999] == 1)
        #expect(g[8000] == duck && g[12_000] == duck && g[15_999] == duck)
        // Linear curve: halfway through the 400-sample attack and the 2400-sample release.
        #expect(abs(g[8000 - 200] - (duck + (1 - duck) / 2)) < 1e-6)
        #expect(abs(g[16_000 + 1200] - (duck + (1 - duck) / 2)) < 1e-6)
        #expect(g[8000 - 401] == 1 && g[16_000 + 2400] == 1)
        // Monotonic down then up.
        #expect(zip(g[7600..<8000], g[7601...8000]).allSatisfy { $0 >= $1 })
        #expect(zip(g[16_000..<18_400], g[16_001...18_400]).allSatisfy { $0 <= $1 })
    }

    @Test func curvedTransitionsUseFadeCurve() {
        var s = DuckingEnvelope.Settings()
        s.curve = FadeCurve(velocity: 3)
        let env = DuckingEnvelope(segments: [1000..<2000], sampleRate: 1000, settings: s)
        let g = env.gains(from: 0, count: 3000)
        let d = pow(10, -12.0 / 20)
        #expect(abs(Double(g[2000 + 150]) - (d + (1 - d) * s.curve.fadeIn(0.5))) < 1e-6)
        #expect(abs(Double(g[1000 - 25]) - (d + (1 - d) * s.curve.fadeOut(0.5))) < 1e-6)
    }

    @Test func overlappingTransitionsTakeTheLowerGainAndBlocksAgree() {
        let env = DuckingEnvelope(segments: [1000..<1500, 1600..<2000], sampleRate: 1000)
        let whole = env.gains(from: 0, count: 3000)
        let d = Float(pow(10, -12.0 / 20))
        // The gap of 100 ms is shorter than the release + attack: the gain never comes back up fully.
        #expect(whole[1500..<1600].allSatisfy { $0 < 1 && $0 >= d })
        #expect(abs(whole[1550] - (d + (1 - d) * 50 / 300)) < 1e-6)
        var pieces: [Float] = []
        var pos = 0
        for n in [1, 999, 550, 1450] { pieces += env.gains(from: pos, count: n); pos += n }
        #expect(pieces == whole)
    }

    @Test func envelopeFromDetectorFrames() {
        let env = DuckingEnvelope(activity: [false, true, true, false, true], frameLength: 10, sampleRate: 1000)
        #expect(env.segments == [10..<30, 40..<50])
    }

    @Test func mixDucksReferenceAndAddsVoice() {
        let ref = AudioBlock(channels: [[0.5, 0.5, 0.5], [-0.5, -0.5, -0.5]], frames: 3)
        let voice = AudioBlock(channels: [[0.1, 0.2, 0.9]], frames: 3)
        let (out, peak) = DuckingMixer.mix(reference: ref, voice: voice, gains: [1, 0.5, 0.25])
        #expect(out.channelCount == 2 && out.frames == 3)
        let expected: [[Float]] = [[0.6, 0.45, 1.025], [-0.4, -0.05, 0.775]]
        for c in 0..<2 { #expect(zip(out.channels[c], expected[c]).allSatisfy { abs($0 - $1) < 1e-6 }) }
        #expect(abs(peak - 1.025) < 1e-6)
    }
}
