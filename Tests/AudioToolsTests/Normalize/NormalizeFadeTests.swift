import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct NormalizeFadeTests {
    /// Runs a constant-1 signal through the fades in uneven blocks and returns the gains seen.
    func gains(total: Int, fadeIn: Int, fadeOut: Int, curve: FadeCurve, blocks: [Int]) -> [Float] {
        var fades = NormalizeFades(fadeInFrames: fadeIn, fadeOutFrames: fadeOut, totalFrames: total, curve: curve)
        var out: [Float] = []
        var b = 0, done = 0
        while done < total {
            let n = min(blocks[b % blocks.count], total - done)
            var block = AudioBlock(channels: [[Float](repeating: 1, count: n + 3), [Float](repeating: 1, count: n + 3)], frames: n)
            fades.apply(to: &block)
            #expect(block.channels[0][0..<n] == block.channels[1][0..<n])
            #expect(block.channels[0][n] == 1)   // nothing past `frames` touched
            out.append(contentsOf: block.channels[0][0..<n])
            done += n; b += 1
        }
        return out
    }

    @Test func linearFadesHitExactFrames() {
        let g = gains(total: 1000, fadeIn: 100, fadeOut: 200, curve: .linear, blocks: [37, 64, 1, 250])
        #expect(g.count == 1000)
        #expect(g[0] == 0)
        #expect(g[50] == 0.5)
        #expect(g[25] == 0.25)
        #expect(g[99] == 0.99)
        #expect(g[100] == 1 && g[799] == 1)
        #expect(g[999] == 0)                       // last frame silent
        #expect(g[899] == 0.5)                     // 100 frames from the end of a 200-frame fade
        #expect(g[800] == Float(199.0 / 200))
    }

    @Test func exponentialFadesFollowTheCurve() {
        let curve = FadeCurve(velocity: 4)
        let g = gains(total: 48_000, fadeIn: 4800, fadeOut: 9600, curve: curve, blocks: [4096, 333])
        for k in [0, 1, 1200, 2400, 4799] {
            let x = Double(k) / 4800
            #expect(g[k] == Float(x * exp(4 * (x - 1))))
        }
        for k in [0, 1, 4800, 9599] {
            let x = Double(k) / 9600
            #expect(g[47_999 - k] == Float(x * exp(4 * (x - 1))))
            #expect(abs(Double(g[47_999 - k]) - curve.fadeOut(1 - x)) < 1e-6)
        }
        #expect(g[4800...38_399].allSatisfy { $0 == 1 })
    }

    @Test func overlappingFadesMultiply() {
        let g = gains(total: 100, fadeIn: 80, fadeOut: 80, curve: .linear, blocks: [7])
        #expect(g[50] == Float((50.0 / 80) * (49.0 / 80)))
    }

    @Test func pipelineAppliesFadesAtSamePositions() throws {
        let n = 10_000
        let source = MemoryAudioSource(sampleRate: 48_000, channels: [[Float](repeating: 0.5, count: n)])
        let sink = MemoryAudioSink(channelCount: 1)
        let plan = NormalizePlan(gainDB: 6.020599913279624, fadeInFrames: 1000, fadeOutFrames: 3000,
                                 fadeCurve: FadeCurve(velocity: 2), limit: false, blockFrames: 777)
        let report = try NormalizePipeline.run(plan, source: source, sink: sink)
        #expect(report.framesWritten == n)
        let fades = NormalizeFades(fadeInFrames: 1000, fadeOutFrames: 3000, totalFrames: n, curve: FadeCurve(velocity: 2))
        for k in [0, 1, 500, 999, 1000, 5000, 7000, 8500, 9999] {
            #expect(abs(Double(sink.channels[0][k]) - fades.gain(atFrame: k)) < 1e-6)
        }
    }
}
