import Foundation
import Testing
@testable import AudioSignal

/// Per-channel loudness (`LoudnessMeter(measuresChannels:)`): each channel gated as a programme
/// of its own at weight 1.0, from the meter's own filter outputs.
@Suite struct ChannelLoudnessTests {
    typealias S = LoudnessTestSignals

    /// −0.691 + 10·log10(A²/2) + 20·log10|H_K(1 kHz)|: a 1 kHz sine of peak A alone.
    func sineLUFS(dBFS: Double, rate: Int = 48000) -> Double {
        let a = pow(10, dBFS / 20)
        return -0.691 + 10 * log10(a * a / 2) + 20 * log10(KWeighting(sampleRate: rate).magnitude(at: 1000))
    }

    func measure(_ channels: [[Float]], weights: [Double]? = nil, rate: Int = 48000, blockSize: Int = 4000,
                 portable: Bool = false) -> (LoudnessMeasurement, [ChannelLoudness]) {
        VectorKernels.$portableOnly.withValue(portable) {
            let meter = LoudnessMeter(sampleRate: rate, weights: weights ?? Array(repeating: 1, count: channels.count),
                                      measuresChannels: true)
            S.feed(meter, channels, blockSize: blockSize)
            let m = meter.finish()
            return (m, meter.channelLoudness ?? [])
        }
    }

    @Test func leftSineRightSilentGivesLeftsFigureAndNothingForRight() {
        let left = S.tones([.init(seconds: 5, dBFS: -20)], rate: 48000)
        let right = [Float](repeating: 0, count: left.count)
        let (m, channels) = measure([left, right])
        #expect(channels.count == 2)
        let l = channels[0], r = channels[1]
        #expect(l.integratedLUFS != nil && abs(l.integratedLUFS! - sineLUFS(dBFS: -20)) <= 0.01, "\(l)")
        // R adds nothing to the programme's energy, so L alone is the programme, to the bit.
        #expect(l.integratedLUFS == m.integratedLUFS)
        #expect(l.truePeakDBTP != nil && abs(l.truePeakDBTP! - -20) < 0.05, "\(l)")
        #expect(l.undefined.isEmpty)
        #expect(r.integratedLUFS == nil && r.truePeakDBTP == nil)
        #expect(r.undefined == [.integratedSilent, .peaksSilent])
    }

    /// Each channel has its own gates: L's quiet half is 20 LU under its loud half and falls under
    /// L's relative gate, though the programme keeps those blocks (R holds them up).
    /// L's 77 blocks: 37 loud (energy E), 3 across the step (0.75, 0.5 and 0.25 of them loud, the
    /// rest at E/100), 37 quiet (E/100). The gate at 10 LU under their mean (0.49 E) keeps the 37
    /// loud and the 3 across: (37 + 0.7525 + 0.505 + 0.2575) / 40 E.
    @Test func eachChannelIsGatedOnItsOwnBlocks() {
        let left = S.tones([.init(seconds: 4, dBFS: -20), .init(seconds: 4, dBFS: -40)], rate: 48000)
        let right = S.tones([.init(seconds: 8, dBFS: -30)], rate: 48000)
        let (m, channels) = measure([left, right])
        let expected = sineLUFS(dBFS: -20) + 10 * log10((37 + 0.7525 + 0.505 + 0.2575) / 40)
        #expect(abs(channels[0].integratedLUFS! - expected) <= 0.01, "\(channels[0]) vs \(expected)")
        #expect(abs(channels[1].integratedLUFS! - sineLUFS(dBFS: -30)) <= 0.01, "\(channels[1])")
        // The channels' figures don't add up to the programme's: energies are summed before gating.
        let summed = -0.691 + 10 * log10(channels.reduce(0) { $0 + LoudnessMeter.energy(ofLUFS: $1.integratedLUFS!) })
        #expect(abs(summed - m.integratedLUFS!) > 0.5, "\(summed) vs \(m.integratedLUFS!)")
    }

    /// A surround channel weighs 1.41 in the programme but 1.0 on its own: the same tone reads the
    /// same in L and in Ls.
    @Test func channelWeightIsOne() {
        let tone = S.tones([.init(seconds: 3, dBFS: -20)], rate: 48000)
        let silent = [Float](repeating: 0, count: tone.count)
        let weights = ChannelLayout.standard(channelCount: 6).weights
        let (_, channels) = measure([tone, silent, silent, silent, tone, silent], weights: weights)
        #expect(channels[0].integratedLUFS == channels[4].integratedLUFS)
        #expect(channels[3].integratedLUFS == nil)
    }

    @Test func mono() {
        let x = S.tones([.init(seconds: 2, dBFS: -12), .init(seconds: 1, dBFS: nil), .init(seconds: 2, dBFS: -30)], rate: 44100)
        let (m, channels) = measure([x], rate: 44100)
        #expect(channels.map(\.integratedLUFS) == [m.integratedLUFS])
        #expect(channels[0].truePeak == m.truePeaks[0])
    }

    @Test func shorterThanOneBlockIsTooShort() {
        let x = S.tones([.init(seconds: 0.3, dBFS: -20)], rate: 48000)
        let (_, channels) = measure([x, x, x])
        #expect(channels.count == 3)
        for c in channels { #expect(c.integratedLUFS == nil && c.undefined == [.integratedTooShort]) }
    }

    /// The SSE2 kernel and the portable loop, and any block size, give the same bits.
    @Test func sameBitsWhateverThePath() {
        let a = S.tones([.init(seconds: 1.5, dBFS: -18), .init(seconds: 1, dBFS: -45), .init(seconds: 1.2, dBFS: -9)], rate: 48000)
        let b = S.tones([.init(seconds: 3.7, dBFS: -26)], rate: 48000, frequency: 400)
        let c = S.tones([.init(seconds: 2, dBFS: nil), .init(seconds: 1.7, dBFS: -33)], rate: 48000)
        let weights = [1, 1, 1.41]
        let reference = measure([a, b, c], weights: weights, blockSize: 4000, portable: true).1
        for (size, portable) in [(4000, false), (333, false), (65536, false), (777, true)] {
            let got = measure([a, b, c], weights: weights, blockSize: size, portable: portable).1
            #expect(got == reference, "block \(size), portable \(portable)")
        }
    }

    @Test func offUnlessAsked() {
        let meter = LoudnessMeter(sampleRate: 48000, weights: [1, 1])
        S.feed(meter, [S.tones([.init(seconds: 1, dBFS: -20)], rate: 48000), [Float](repeating: 0, count: 48000)], blockSize: 4096)
        _ = meter.finish()
        #expect(meter.channelLoudness == nil)
    }
}
