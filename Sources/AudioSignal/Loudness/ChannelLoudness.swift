import Foundation

/// One channel measured as a programme of its own: its K-weighted 400 ms blocks gated by
/// BS.1770-4's absolute and relative gates with a channel weight of 1.0, and its true peak.
/// Channels' figures don't add up to the programme's (the programme weighs and sums energies
/// before gating), and an LFE channel gets figures here although BS.1770 leaves it out.
public struct ChannelLoudness: Equatable, Sendable {
    /// Gated loudness of the channel alone, LUFS; nil when undefined (see `undefined`).
    public var integratedLUFS: Double?
    /// Largest |oversampled value| of the channel, linear; nil when true peak was not measured.
    public var truePeak: Double?
    /// Why `integratedLUFS` (and the peak's level) is undefined: `integratedTooShort`,
    /// `integratedSilent`, `peaksSilent`; empty when both are defined.
    public var undefined: [LoudnessMeasurement.Undefined]

    /// A channel's figures from their values (a meter made with `measuresChannels` makes them).
    public init(integratedLUFS: Double?, truePeak: Double?, undefined: [LoudnessMeasurement.Undefined] = []) {
        self.integratedLUFS = integratedLUFS
        self.truePeak = truePeak
        self.undefined = undefined
    }

    /// The true peak in dBTP; nil for digital silence or when not measured.
    public var truePeakDBTP: Double? { truePeak.flatMap(LoudnessMeasurement.decibels) }
}

/// Each channel's own K-weighted energy per 100 ms hop, kept beside the meter's weighted sum
/// (the same filter outputs, no second pass), and its 400 ms gating blocks on the same grid.
package final class ChannelBlockHistory {
    package let channelCount: Int
    private let hop: Int
    /// Σy² of each channel over the hop being filled.
    private var hopSums: [Double]
    /// The last `momentaryHops` hop energies of every channel: ring slot · channelCount + channel.
    private var hopRing: [Double]
    private var hopCount = 0
    /// Mean-square energy of every 400 ms block of each channel (100 ms hop).
    package let blocks: [ValueSpill<Double>]

    package init(channelCount: Int, hop: Int) {
        self.channelCount = channelCount
        self.hop = hop
        hopSums = [Double](repeating: 0, count: channelCount)
        hopRing = [Double](repeating: 0, count: channelCount * LoudnessMeter.momentaryHops)
        blocks = (0..<channelCount).map { _ in ValueSpill<Double>(chunkValues: LoudnessMeter.historyChunk) }
    }

    /// A closed sub-block's unweighted energy Σy² of channel `c`.
    @inline(__always) package func add(channel c: Int, energy: Double) { hopSums[c] += energy }

    /// A hop is complete: its energies go to the ring, and each channel's 400 ms block (the exact
    /// sum of its last four hops, oldest first, as the meter sums its own) to its history.
    package func hopCompleted() {
        let slots = LoudnessMeter.momentaryHops
        let slot = hopCount % slots
        for c in 0..<channelCount {
            hopRing[slot * channelCount + c] = hopSums[c]
            hopSums[c] = 0
        }
        hopCount += 1
        guard hopCount >= slots else { return }
        let length = Double(slots * hop)
        for c in 0..<channelCount {
            var s = 0.0
            for j in 0..<slots { s += hopRing[((hopCount - slots + j) % slots) * channelCount + c] }
            blocks[c].append(s / length)
        }
    }

    /// Each channel's figures: its blocks gated as a programme of its own, with `truePeaks`
    /// (linear, one per channel; empty when true peak was not measured) and `samplePeaks`.
    package func loudness(truePeaks: [Double], samplePeaks: [Double]) -> [ChannelLoudness] {
        (0..<channelCount).map { c in
            var undefined: [LoudnessMeasurement.Undefined] = []
            var integrated: Double?
            if blocks[c].isEmpty {
                undefined.append(.integratedTooShort)
            } else if let l = LoudnessMeter.gatedLoudness(blocks[c], relativeGateLU: LoudnessMeter.integratedRelativeGateLU) {
                integrated = l
            } else {
                undefined.append(.integratedSilent)
            }
            let peak = c < truePeaks.count ? truePeaks[c] : nil
            if (c < samplePeaks.count ? samplePeaks[c] : 0) == 0 {
                undefined.append(peak == nil ? .samplePeakSilent : .peaksSilent)
            }
            return ChannelLoudness(integratedLUFS: integrated, truePeak: peak, undefined: undefined)
        }
    }
}
