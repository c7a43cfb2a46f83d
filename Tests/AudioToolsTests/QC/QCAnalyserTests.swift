import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The QC analysers on signals whose answers are known exactly.
@Suite struct QCAnalyserTests {
    static let rate = 48000
    let rate = QCAnalyserTests.rate

    /// Deterministic noise in ±amplitude (never exactly zero, never near full scale).
    static func noise(_ n: Int, amplitude: Float = 0.3, seed: UInt64 = 1) -> [Float] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<n).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let u = Float(Double(x >> 11) / Double(1 << 53)) * 2 - 1
            return (u >= 0 ? max(u, 1e-3) : min(u, -1e-3)) * amplitude
        }
    }

    /// Runs the analyser over `channels`, fed in blocks of `block` frames.
    static func analyse(_ channels: [[Float]], block: Int = 4096, pair: (Int, Int)? = (0, 1)) -> QCAnalyser.Result {
        let a = QCAnalyser(sampleRate: rate, channelCount: channels.count, frontPair: channels.count > 1 ? pair : nil)
        let meter = LoudnessMeter(sampleRate: rate, weights: channels.map { _ in 1 })
        let n = channels[0].count
        var i = 0
        while i < n {
            let m = min(block, n - i)
            let b = AudioBlock(channels: channels.map { Array($0[i..<(i + m)]) }, frames: m)
            a.add(b)
            meter.add(b)
            i += m
        }
        _ = meter.finish()
        return a.finish(programmeBlocks: meter.blocks.momentary)
    }

    @Test func cleanNoiseHasNoFindings() {
        let r = Self.analyse([Self.noise(rate * 5, seed: 1), Self.noise(rate * 5, seed: 2)])
        #expect(r.clippedRuns == 0 && r.overs == 0 && r.dropoutCount == 0)
        #expect(r.headSilenceSeconds == 0 && r.tailSilenceSeconds == 0)
        #expect(r.silentChannels.isEmpty && r.identicalPairs.isEmpty && r.invertedPairs.isEmpty)
        #expect(abs(r.minCorrelation!) < 0.05)
    }

    /// Runs of three full-scale samples are found at their start; a run of two is not a run.
    @Test func clippedRunsOfThreeAreFoundAndTwoAreNot() {
        var x = Self.noise(rate * 4)
        for k in 0..<3 { x[rate + k] = 1 }             // 1.000 s
        for k in 0..<5 { x[3 * rate + 100 + k] = -1 }  // 3.002 s, negative
        x[2 * rate] = 1; x[2 * rate + 1] = 1            // two only: a near miss
        let r = Self.analyse([x], block: 1000)
        #expect(r.clippedRuns == 2)
        #expect(r.clippedRunTimes == [1.0, 3.002])  // to the millisecond
    }

    /// Runs that start in the same millisecond are one time, listed once with every channel they
    /// start in (a master clipped on both sides at once, a clipped wave's two flat tops), in the
    /// stereo path and the general one alike; the gate's reason names the channels.
    @Test func clipTimesAreDistinctAndSayTheirChannels() {
        for count in [2, 3] {
            var ch = (0..<count).map { Self.noise(rate * 6, seed: UInt64(10 + $0)) }
            for k in 0..<3 { ch[0][2 * rate + k] = 1; ch[0][2 * rate + 10 + k] = -1; ch[1][2 * rate + 5 + k] = 1 }
            for k in 0..<3 { ch[count - 1][5 * rate + k] = 1 }
            let r = Self.analyse(ch, block: 1000)
            #expect(r.clippedRuns == 4)
            #expect(r.clippedRunTimes == [2.0, 5.0], "\(count) channels")
            #expect(r.clippedRunChannels == [[0, 1], [count - 1]], "\(count) channels")
            let reason = QCGate(maxClippedRuns: 0).evaluate(r, names: ["L", "R", "C"]).first?.reason ?? ""
            #expect(reason.hasSuffix("the first at 2.000 s in L, R"), "\(reason)")
        }
    }

    /// A run split across blocks is one run.
    @Test func aRunAcrossBlocksIsOneRun() {
        var x = Self.noise(10_000)
        for k in 4094..<4100 { x[k] = 0.9999 }
        #expect(Self.analyse([x], block: 4096).clippedRuns == 1)
        #expect(Self.analyse([x], block: 7).clippedRuns == 1)
    }

    /// A 12 kHz sine at 45° has its samples at 0.707 of its amplitude: at amplitude 1.2 every
    /// sample is below full scale but the signal between them is over it, one stretch per burst.
    @Test func oversBetweenSamplesAreCountedPerStretch() {
        var x = [Float](repeating: 0, count: rate * 4)
        for burst in [1, 3] {
            for k in (burst * rate)..<(burst * rate + rate / 2) {
                x[k] = Float(1.2 * sin(Double.pi / 2 * Double(k) + Double.pi / 4))
            }
        }
        let r = Self.analyse([x])
        #expect(r.clippedRuns == 0)
        #expect(r.overs == 2)
        #expect(r.overTimes.count == 2 && abs(r.overTimes[0] - 1) < 0.001 && abs(r.overTimes[1] - 3) < 0.001)
    }

    /// Overs counted against every frame's inter-sample peak, none skipped: a loud noise with
    /// spikes, float samples over full scale and short over bursts at scattered places, fed in several block sizes, one channel,
    /// a stereo pair and three channels (the skip rules must never drop or add an over).
    @Test func oversMatchAnUnskippedCount() {
        var x = Self.noise(rate * 3, amplitude: 0.7, seed: 5)
        var seed: UInt64 = 12345
        func next(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) % n }
        for _ in 0..<60 {
            let at = 20 + next(x.count - 100)
            switch next(4) {
            case 0: x[at] = 0.999; x[at + 1] = -0.999                // a spike pair rings over full scale
            case 1: for k in 0..<(1 + next(40)) { x[at + k] = Float(1.1 * sin(Double.pi / 2 * Double(k) + Double.pi / 4)) }
            case 2: x[at] = 1.02                                      // a float sample over full scale
            default: x[at] = 0.98; x[at + 1] = 0.98; x[at + 2] = -0.5  // near full scale, may or may not ring over
            }
        }
        x[x.count - 2] = 0.999; x[x.count - 1] = -0.999             // rings over after the last sample
        let o = TruePeakOversampler(sampleRate: rate)
        let padded = x + [Float](repeating: 0, count: o.latency)
        var peaks = [Float](repeating: 0, count: padded.count)
        padded.withUnsafeBufferPointer { i in peaks.withUnsafeMutableBufferPointer { o.interSamplePeaks(i, into: $0) } }
        let hold = Int((QCAnalyser.overHoldSeconds * Double(rate)).rounded())
        var overs = 0, times: [Double] = [], last = Int.min / 2
        for k in peaks.indices where peaks[k] > 1 {
            let f = k - o.latency
            if f - last > hold { overs += 1; if times.count < QCAnalyser.timesKept { times.append(Double(QCAnalyser.millisecond(max(0, f), rate: rate)) / 1000) } }
            last = f
        }
        #expect(overs > 20)
        let quiet = Self.noise(x.count, amplitude: 0.2, seed: 9)
        for block in [4096, 333, 64, 7] {
            let mono = Self.analyse([x], block: block)
            #expect(mono.overs == overs && mono.overTimes == times)
            let stereo = Self.analyse([x, quiet], block: block)
            #expect(stereo.overs == overs && stereo.overTimes == times)
            let three = Self.analyse([quiet, quiet, x], block: block, pair: nil)
            #expect(three.overs == overs && three.overTimes == times)
        }
    }

    /// A quiet sine never comes near an over (the skip path).
    @Test func aQuietSineHasNoOvers() {
        let x = (0..<rate).map { Float(0.5 * sin(2 * Double.pi * 997 * Double($0) / Double(rate))) }
        #expect(Self.analyse([x]).overs == 0)
    }

    /// DC of 1 % of full scale is −40 dBFS.
    @Test func dcOffset() {
        let x = (0..<rate).map { Float(0.01 + 0.3 * sin(2 * Double.pi * 100 * Double($0) / Double(rate))) }
        let r = Self.analyse([x, Self.noise(rate)])
        #expect(abs(r.dcOffsetDBFS[0]! - (-40)) < 0.01)
        #expect(r.dcOffsetDBFS[1]! < -50)
    }

    /// Head, tail and mid-programme digital silence; 9 ms is not a dropout, 250 ms is.
    @Test func silenceAtTheEndsAndDropouts() {
        var x = Self.noise(rate * 10), y = Self.noise(rate * 10, seed: 3)
        func zero(_ from: Double, _ seconds: Double) {
            let a = Int(from * Double(rate)), b = a + Int((seconds * Double(rate)).rounded())
            for k in a..<b { x[k] = 0; y[k] = 0 }
        }
        zero(0, 2); zero(8.5, 1.5); zero(5, 0.25); zero(7, 0.009)
        let r = Self.analyse([x, y], block: 1234)
        #expect(r.headSilenceSeconds == 2 && r.tailSilenceSeconds == 1.5)
        #expect(r.dropoutCount == 1)
        #expect(r.dropouts.first?.atSeconds == 5 && r.dropouts.first?.durationSeconds == 0.25)
    }

    /// Silence in one channel only is neither head silence nor a dropout.
    @Test func silenceInOneChannelIsNotDigitalSilence() {
        var x = Self.noise(rate * 2)
        for k in 0..<rate { x[k] = 0 }
        let r = Self.analyse([x, Self.noise(rate * 2, seed: 9)])
        #expect(r.headSilenceSeconds == 0 && r.dropoutCount == 0)
    }

    @Test func deadIdenticalAndInvertedChannels() {
        let a = Self.noise(rate * 2)
        let r = Self.analyse([a, a.map { -$0 }, [Float](repeating: 0, count: rate * 2), a])
        #expect(r.silentChannels == [2])
        #expect(r.identicalPairs == [[0, 3]])
        #expect(r.invertedPairs == [[0, 1], [1, 3]])
        #expect(abs(r.minCorrelation! - (-1)) < 1e-6)
    }

    /// Correlation: in phase 1, inverted −1, in quadrature 0; mono loss 0 dB and 3.01 dB.
    @Test func correlationAndMonoLoss() {
        func sine(_ phase: Double) -> [Float] {
            (0..<(rate * 6)).map { Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate) + phase)) }
        }
        let same = Self.analyse([sine(0), sine(0)])
        #expect(abs(same.minCorrelation! - 1) < 1e-6)
        let quad = Self.analyse([sine(0), sine(Double.pi / 2)])
        #expect(abs(quad.minCorrelation!) < 1e-4)
        // Stereo loudness of two equal sines: the mono fold-down of identical channels plays the same.
        let m = LoudnessMeter(sampleRate: rate, weights: [1, 1])
        m.add(AudioBlock(channels: [sine(0), sine(Double.pi / 2)], frames: rate * 6))
        let stereo = m.finish().integratedLUFS!
        #expect(abs((stereo - quad.monoFoldDownLUFS!) - 10 * log10(2)) < 0.02)
        let m2 = LoudnessMeter(sampleRate: rate, weights: [1, 1])
        m2.add(AudioBlock(channels: [sine(0), sine(0)], frames: rate * 6))
        #expect(abs(m2.finish().integratedLUFS! - same.monoFoldDownLUFS!) < 0.01)
        let inverted = Self.analyse([sine(0), sine(Double.pi)])
        #expect(inverted.monoFoldDownLUFS == nil)
    }

    /// The answer does not depend on how the stream is cut into blocks.
    @Test func blockSizesDoNotMatter() {
        var x = Self.noise(rate * 7), y = Self.noise(rate * 7, seed: 5)
        for k in 0..<4 { x[rate * 2 + k] = 1 }
        for k in (rate * 4)..<(rate * 4 + 600) { x[k] = 0; y[k] = 0 }
        let a = Self.analyse([x, y], block: 4096), b = Self.analyse([x, y], block: 333)
        #expect(a == b)
        #expect(a.minCorrelation == b.minCorrelation || abs(a.minCorrelation! - b.minCorrelation!) < 1e-6)
    }

    /// The one-pass stereo loop finds what the per-channel loops find (they serve other layouts).
    @Test func theStereoLoopAgreesWithTheGeneralOne() {
        var x = Self.noise(rate * 7), y = Self.noise(rate * 7, seed: 8)
        for k in 0..<5 { x[rate + 17 + k] = 1; y[3 * rate + k] = -1 }
        for k in (rate * 4)..<(rate * 4 + 700) { x[k] = 0; y[k] = 0 }
        for k in 0..<300 { x[k] = 0; y[k] = 0 }
        for k in (5 * rate)..<(5 * rate + 1000) { x[k] = Float(1.3 * sin(Double.pi / 2 * Double(k) + Double.pi / 4)) }
        let one = Self.analyse([x, y], block: 1000)
        let general = Self.analyse([y, x], block: 1000, pair: (1, 0))
        #expect(one.clippedRuns == 2 && one.overs >= 1)
        #expect(one.clippedRuns == general.clippedRuns && one.clippedRunTimes == general.clippedRunTimes)
        #expect(one.overs == general.overs && one.overTimes == general.overTimes)
        #expect(one.headSilenceSeconds == general.headSilenceSeconds && one.tailSilenceSeconds == general.tailSilenceSeconds)
        #expect(one.dropouts.map(\.atSeconds) == general.dropouts.map(\.atSeconds))
        #expect(one.dcOffsetDBFS[0]! == general.dcOffsetDBFS[1]! || abs(one.dcOffsetDBFS[0]! - general.dcOffsetDBFS[1]!) < 1e-3)
        #expect(abs(one.minCorrelation! - general.minCorrelation!) < 1e-4)
        #expect(one.minCorrelationAtSeconds == general.minCorrelationAtSeconds)
    }

    /// Every failed gate names its option, with the time of the fault.
    @Test func gatesNameThemselves() {
        var x = Self.noise(rate * 10), y = Self.noise(rate * 10, seed: 3)
        for k in 0..<3 { x[rate + k] = 1 }
        for k in 0..<rate { x[k + 5 * rate] = 0; y[k + 5 * rate] = 0 }
        for k in 0..<(rate / 2) { x[k] = 0; y[k] = 0 }
        let r = Self.analyse([x, y])
        let g = QCGate(maxClippedRuns: 0, maxOvers: 5, minCorrelation: 0.5, maxHeadSilenceSeconds: 0.25, maxTailSilenceSeconds: 1, noDropouts: true)
        let f = g.evaluate(r)
        #expect(f.map(\.gate) == ["max-clipped-runs", "min-correlation", "max-head-silence", "no-dropouts"])
        for failure in f { #expect(failure.reason.hasPrefix("--" + failure.gate)) }
        #expect(f[0].atSeconds == 1 && f[3].atSeconds == 5)
        #expect(QCGate(maxClippedRuns: 1).evaluate(r).isEmpty)
    }

    /// The channel gates: a dead channel and an inverted pair each fail, named by layout; a silent
    /// LFE does not; the presets carry both gates, and an explicit gate adds to a preset.
    @Test func channelGates() {
        let a = Self.noise(rate * 2, seed: 4), b = Self.noise(rate * 2, seed: 5), zero = [Float](repeating: 0, count: a.count)
        let g = QCGate(noDeadChannels: true, noInvertedChannels: true)
        let dead = g.evaluate(Self.analyse([a, zero]), names: ["L", "R"])
        #expect(dead.map(\.gate) == ["no-dead-channels"] && dead[0].reason.contains("channel R ") && dead[0].atSeconds == nil)
        let inverted = g.evaluate(Self.analyse([a, a.map { -$0 }]), names: ["L", "R"])
        #expect(inverted.map(\.gate) == ["no-inverted-channels"] && inverted[0].reason.contains("R is L"))
        #expect(g.evaluate(Self.analyse([a, b])).isEmpty)
        let five = Self.analyse([a, b, Self.noise(rate * 2, seed: 6), zero, Self.noise(rate * 2, seed: 7), Self.noise(rate * 2, seed: 8)])
        #expect(g.evaluate(five, names: ["L", "R", "C", "LFE", "Ls", "Rs"]).isEmpty)
        #expect(g.evaluate(five).map(\.gate) == ["no-dead-channels"], "unnamed, the fourth channel is not known to be an LFE")
        for p in QCGate.presets { #expect(p.gate.noDeadChannels && p.gate.noInvertedChannels, "\(p.name)") }
        let over = QCGate(noDeadChannels: true).over(QCGate(maxOvers: 0))
        #expect(over.noDeadChannels && over.maxOvers == 0 && !over.noInvertedChannels)
        #expect(!QCGate(noInvertedChannels: true).isEmpty)
    }

    /// A 1 kHz tone (a whole number of cycles per 100 ms, so every hop holds the same energy), the
    /// right channel a copy of the left but inverted for 3 s from `from` seconds, in 9 s.
    static func invertedStretch(from: Double, channels: Int = 2) -> [[Float]] {
        let n = rate * 9, a = Int((from * Double(rate)).rounded()), b = a + 3 * rate
        let l = (0..<n).map { Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
        var r = l
        for k in a..<b { r[k] = -l[k] }
        return channels == 2 ? [l, r] : [l, r, Self.noise(n, amplitude: 0.1, seed: 9)]
    }

    /// The phase check's 3-s windows start every 100 ms: a fully inverted 3-s stretch that starts
    /// on that grid but straddles the old fixed windows (3 s apart) reads −1 wherever it falls, in
    /// the stereo path and the general one (a third channel), and its window's start is where the
    /// stretch starts. Off the grid by 50 ms, the worst windows (from 4.5 s and from 4.6 s) hold
    /// 2.95 s of it and 0.05 s of the tone in phase: (0.05 − 2.95) / 3.
    @Test func invertedStretchReadsWholeInAnySlidingWindow() {
        for channels in [2, 3] {
            let on = Self.analyse(Self.invertedStretch(from: 4.5, channels: channels), block: 1000)
            #expect(abs(on.minCorrelation! - -1) < 1e-6, "\(channels) channels: \(on.minCorrelation!)")
            #expect(on.minCorrelationAtSeconds == 4.5)
            let off = Self.analyse(Self.invertedStretch(from: 4.55, channels: channels), block: 777)
            #expect(abs(off.minCorrelation! - (0.05 - 2.95) / 3) < 1e-6, "\(channels) channels: \(off.minCorrelation!)")
            #expect(off.minCorrelationAtSeconds == 4.5 || off.minCorrelationAtSeconds == 4.6)
        }
    }

    /// The window that ends at the file's end is judged too: a file of 9.05 s whose last 3 s are
    /// inverted (its last hop is 50 ms) reads −1 in the window of the last 29 hops and that
    /// partial one, from 6.1 s (the whole windows from 6.0 s on hold 0.05 s in phase).
    @Test func theLastWindowEndsAtTheEnd() {
        let n = rate * 9 + rate / 20
        let l = (0..<n).map { Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
        var r = l
        for k in (n - 3 * rate)..<n { r[k] = -l[k] }
        let q = Self.analyse([l, r])
        #expect(abs(q.minCorrelation! - -1) < 1e-6 && q.minCorrelationAtSeconds == 6.1, "\(q.minCorrelation!) at \(q.minCorrelationAtSeconds!)")
    }

    /// The running sums give what summing each window afresh gives, over a long stretch of noise.
    @Test func runningSumsMatchWindowsSummedAfresh() {
        var s = SlidingCorrelation(hopsPerWindow: 30, floorPower: 1e-7)
        let hops = (0..<2000).map { k -> SlidingCorrelation.Hop in
            let x = Double((k * 7919) % 1000) / 1000
            return .init(ab: x - 0.5, aa: 1 + x, bb: 2 - x, frames: 4800)
        }
        var best = Double.infinity, at = 0
        for (k, h) in hops.enumerated() {
            s.push(h)
            guard k >= 29 else { continue }
            let w = hops[(k - 29)...k]
            let r = w.reduce(0) { $0 + $1.ab } / (w.reduce(0) { $0 + $1.aa } * w.reduce(0) { $0 + $1.bb }).squareRoot()
            if r < best { best = r; at = (k - 29) * 4800 }
        }
        s.finish(partial: .init())
        #expect(abs(s.minimum! - best) < 1e-12 && s.minimumStartFrame == at && s.counted == 2000 - 29)
    }
}
