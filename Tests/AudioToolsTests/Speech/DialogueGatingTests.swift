import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct DialogueSpansTests {
    static let chunk = SpeechDetector.chunkSeconds

    /// Probabilities from (value, seconds) runs.
    static func runs(_ r: [(Float, Double)]) -> [Float] {
        r.flatMap { v, s in [Float](repeating: v, count: Int((s / chunk).rounded())) }
    }

    @Test func aSpanOpensAtTheOnsetAndClosesWhereItLastFellWidenedByThePadding() {
        let p = Self.runs([(0.1, 1), (0.9, 2), (0.1, 2)])
        let s = DialogueSpans.spans(probabilities: p, chunkSeconds: Self.chunk, durationSeconds: 5)
        #expect(s.count == 1)
        let pad = DialogueSpans.paddingSeconds
        #expect(abs(s[0].from - (1 - pad)) < Self.chunk && abs(s[0].to - (3 + pad)) < Self.chunk, "\(s)")
        // The padding stops at the ends of the programme.
        let edge = DialogueSpans.spans(probabilities: Self.runs([(0.9, 1)]), chunkSeconds: Self.chunk, durationSeconds: 1)
        #expect(edge.count == 1 && edge[0].from == 0 && edge[0].to == 1, "\(edge)")
    }

    @Test func hysteresisKeepsASpanOpenBetweenOffsetAndOnset() {
        let between = (DialogueSpans.onset + DialogueSpans.offset) / 2
        let p = Self.runs([(0.9, 1), (between, 2), (0.9, 1), (0, 1)])
        #expect(DialogueSpans.spans(probabilities: p, chunkSeconds: Self.chunk, durationSeconds: 5).count == 1)
        // A value between the two never opens a span.
        #expect(DialogueSpans.spans(probabilities: Self.runs([(between, 3)]), chunkSeconds: Self.chunk, durationSeconds: 3).isEmpty)
    }

    @Test func theHangoverAndTheBridgeJoinSentencesButNotScenes() {
        let bridged = Self.runs([(0.9, 1), (0.05, DialogueSpans.hangoverSeconds - 0.1), (0.9, 1)])
        #expect(DialogueSpans.spans(probabilities: bridged, chunkSeconds: Self.chunk, durationSeconds: 3).count == 1)
        // Longer than the hangover: two spans, joined across a gap (after padding) up to the bridge.
        let pause = DialogueSpans.hangoverSeconds + DialogueSpans.bridgeSeconds / 2
        let joined = Self.runs([(0.9, 1), (0.05, pause), (0.9, 1)])
        let j = DialogueSpans.spans(probabilities: joined, chunkSeconds: Self.chunk, durationSeconds: 2 + pause)
        #expect(j.count == 1, "\(j)")
        let gap = 2 * DialogueSpans.paddingSeconds + DialogueSpans.bridgeSeconds + 0.3
        let split = Self.runs([(0.9, 1), (0.05, gap), (0.9, 1)])
        #expect(DialogueSpans.spans(probabilities: split, chunkSeconds: Self.chunk, durationSeconds: 2 + gap).count == 2)
    }

    @Test func aBlipShorterThanTheMinimumIsDropped() {
        let p = Self.runs([(0, 1), (0.9, DialogueSpans.minimumSeconds / 2), (0, 1)])
        #expect(DialogueSpans.spans(probabilities: p, chunkSeconds: Self.chunk, durationSeconds: 2.2).isEmpty)
    }
}

@Suite struct DialogueLoudnessTests {
    /// Blocks on the meter's grid: 400 ms blocks every 100 ms for `seconds`, the energy of `lufs(t)`.
    static func blocks(seconds: Double, lufs: (Double) -> Double) -> LoudnessBlocks {
        let hops = Int(seconds * 10)
        func e(_ l: Double) -> Double { pow(10, (l + 0.691) / 10) }
        return LoudnessBlocks(momentary: (0...(hops - 4)).map { e(lufs(Double($0) * 0.1 + 0.2)) },
                              shortTerm: hops >= 30 ? (0...(hops - 30)).map { e(lufs(Double($0) * 0.1 + 1.5)) } : [])
    }

    @Test func onlyBlocksAtLeastHalfDialogueCount() {
        // Dialogue at −30 LUFS from 10 s to 20 s, music at −15 elsewhere: the music never counts.
        let b = Self.blocks(seconds: 30) { t in t >= 10 && t <= 20 ? -30 : -15 }  // t: a block's centre
        let d = DialogueLoudness(blocks: b, spans: [(10, 20)], durationSeconds: 30, minimumShare: 0.15)
        #expect(abs((d.integratedLUFS ?? 0) - -30) < 1e-9)
        #expect(abs(d.share - 1.0 / 3) < 1e-12)
        #expect(d.spans == [[10, 20]])
        #expect(!d.fallback)
        #expect((d.loudnessRangeLU ?? 99) < 1e-9)
    }

    @Test func aBlockExactlyHalfDialogueCounts() {
        // One 400 ms block [0, 0.4) with the span covering [0.2, 0.4): counted.
        let b = LoudnessBlocks(momentary: [pow(10, (-20 + 0.691) / 10)])
        let d = DialogueLoudness(blocks: b, spans: [(0.2, 1.2)], durationSeconds: 1.2, minimumShare: 0)
        #expect(abs((d.integratedLUFS ?? 0) - -20) < 1e-9)
        let none = DialogueLoudness(blocks: b, spans: [(0.25, 1.2)], durationSeconds: 1.2, minimumShare: 0)
        #expect(none.integratedLUFS == nil)
    }

    @Test func noDialogueIsNullWithANoteAndFallsBack() {
        let d = DialogueLoudness(blocks: Self.blocks(seconds: 10) { _ in -20 }, spans: [], durationSeconds: 10, minimumShare: 0.15)
        #expect(d.integratedLUFS == nil && d.share == 0 && d.fallback)
        #expect(d.reasons.contains(.noDialogue) && d.notes.contains { $0.contains("no dialogue was found") })
    }

    @Test func underASecondIsNullWithANote() {
        let d = DialogueLoudness(blocks: LoudnessBlocks(momentary: [1]), spans: [(0, 0.8)], durationSeconds: 0.8, minimumShare: 0.15)
        #expect(d.integratedLUFS == nil)
        #expect(d.reasons.contains(.tooShort) && d.notes.contains { $0.contains("shorter than one second") })
    }

    @Test func underTheMinimumShareFallsBack() {
        let d = DialogueLoudness(blocks: Self.blocks(seconds: 100) { _ in -20 }, spans: [(0, 10)], durationSeconds: 100, minimumShare: 0.15)
        #expect(d.fallback && abs(d.share - 0.1) < 1e-12)
        #expect(d.integratedLUFS != nil)
    }
}

@Suite struct SpeechDetectorTests {
    @Test func itListensToTheCentreWhenThereIsOne() {
        #expect(SpeechDetector.listening(roles: [.left, .right, .centre, .lfe, .leftSurround, .rightSurround]) == .channel(2))
        #expect(SpeechDetector.listening(roles: [.mono]) == .channel(0))
        #expect(SpeechDetector.listening(roles: [.left, .right]) == .downmix([0, 1]))
        #expect(SpeechDetector.listening(roles: [.left, .right, .lfe]) == .downmix([0, 1]))
    }

    @Test(.enabled(if: SpeechTestSupport.prepared != nil, "the weights are not in .build/models (make speech-model)"))
    func digitalSilenceGivesZeroWithoutRunningAndCountsEveryChunk() throws {
        let d = try SpeechDetector(network: SileroNetwork(try #require(SpeechTestSupport.prepared)), sampleRate: 48_000, listening: .downmix([0, 1]), converter: Resampler.fastest)
        var block = AudioBlock(channelCount: 2, capacity: 4800)
        block.frames = 4800
        for _ in 0..<10 { try d.add(block) }  // one second
        let p = try d.finish()
        #expect(p.count == 32)  // 16 000 samples in 512-sample chunks, the last padded
        #expect(p.allSatisfy { $0 == 0 })
    }
}

@Suite struct DialogueSummaryTests {
    @Test func theSummaryTableGetsADialogueColumnOnlyWhenThereIsDialogue() {
        var log = GateLog(gated: false)
        log.add(name: "a.wav", gatePassed: nil, reasons: [], integratedLUFS: -20, truePeakDBTP: -3)
        #expect(!log.summaryTable.contains("DIALOG"))
        log.rows[0].dialogueLUFS = -27
        #expect(log.summaryTable.contains("LUFS    DIALOG  dBTP"))
        #expect(log.summaryTable.contains("-20.0   -27.0   -3.0"))
    }
}

@Suite struct SpeechDecimatorTests {
    /// A tone in the passband keeps its level; one above 8 kHz is gone; the count is exact.
    @Test func passesSpeechBandAndStopsAboveEightKilohertz() {
        func level(_ freq: Double) -> (Double, Int) {
            let d = SpeechDecimator(factor: 3)
            let x = (0..<48_000).map { Float(sin(2 * .pi * freq * Double($0) / 48_000)) }
            var out: [Float] = []
            // In uneven pieces, as decoded blocks come.
            var i = 0, piece = 1000
            while i < x.count {
                let n = min(piece, x.count - i)
                x.withUnsafeBufferPointer { d.process(UnsafeBufferPointer(rebasing: $0[i..<(i + n)]), into: &out) }
                i += n; piece = piece == 1000 ? 4097 : 1000
            }
            let tail = out[4000..<15_000]
            return ((tail.map { Double($0 * $0) }.reduce(0, +) / Double(tail.count)).squareRoot() * 2.squareRoot(), out.count)
        }
        let pass = level(1000), stop = level(10_000)
        #expect(abs(pass.0 - 1) < 0.01)
        #expect(stop.0 < 0.01)
        #expect(pass.1 >= 15_990 && pass.1 <= 16_000)
    }
}

@Suite struct SpeechHighPassTests {
    /// RMS of the filter's output over the second half of a second of a unit sine.
    static func gain(_ freq: Double) -> Double {
        var f = SpeechHighPass()
        let x = (0..<16_000).map { Float(sin(2 * .pi * freq * Double($0) / 16_000)) }
        var y: [Float] = []
        f.process(x, x.count, into: &y)
        let tail = y[8_000...].map { Double($0) * Double($0) }
        return (tail.reduce(0, +) / Double(tail.count) * 2).squareRoot()
    }

    /// Second-order Butterworth: −3 dB at the cutoff, 12 dB per octave below, flat in the speech band.
    @Test func passesSpeechAndCutsRumble() {
        #expect(abs(20 * log10(Self.gain(1_000))) < 0.05)
        #expect(abs(20 * log10(Self.gain(SpeechHighPass.cutoffHz)) + 3.01) < 0.1)
        #expect(abs(20 * log10(Self.gain(25)) + 24.1) < 0.5)  // two octaves down: 10·log10(1 + 4⁴)
    }

    @Test func digitalSilenceAfterSoundBecomesExactZero() {
        var f = SpeechHighPass()
        var y: [Float] = []
        f.process([1] + [Float](repeating: 0, count: 15_999), 16_000, into: &y)
        #expect(y[0] != 0)
        #expect(y.suffix(1_000).allSatisfy { $0 == 0 })
    }
}
