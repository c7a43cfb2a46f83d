import Foundation

/// The speech detector over one stream, fed the decoder's blocks as they come: one channel (the
/// centre, where film and TV mixes put dialogue) or the downmix, resampled to 16 kHz, high-passed
/// at 100 Hz (SpeechHighPass), cut into 512-sample chunks (32 ms) for the network. Chunks of digital silence (and their context) are
/// not run through the network: their probability is 0 and the network's state is kept.
public final class SpeechDetector {
    /// Which channels are listened to.
    public enum Listening: Equatable, Sendable {
        case channel(Int)
        /// The mean of these channels (every channel but the LFEs).
        case downmix([Int])
    }

    /// The centre in a layout that has one (or the one channel of mono), else the downmix.
    public static func listening(roles: [ChannelRole]) -> Listening {
        if let c = roles.firstIndex(of: .centre) { return .channel(c) }
        if roles.count == 1 { return .channel(0) }
        let kept = roles.indices.filter { roles[$0] != .lfe && roles[$0] != .lfe2 }
        return .downmix(kept.isEmpty ? Array(roles.indices) : kept)
    }

    /// Seconds of audio per probability.
    public static let chunkSeconds = Double(SileroNetwork.chunk) / Double(SileroNetwork.sampleRate)

    public let listening: Listening
    private let network: SileroNetwork
    private let resampler: (any SampleRateConverter)?
    private let decimator: SpeechDecimator?
    private var decimated: [Float] = []
    private var mono: AudioBlock
    private var pending: [Float] = []
    private var highPass = SpeechHighPass()
    private var filtered: [Float] = []
    private var probabilities: [Float] = []
    /// Whether the last chunk run held any non-zero sample (the context of the next).
    private var lastChunkHadSound = false

    /// `converter` makes the rate converter for a rate that isn't a multiple of the network's
    /// 16 kHz (the tools pass libsamplerate's fastest sinc); without one such a rate is refused.
    public init(network: SileroNetwork, sampleRate: Int, listening: Listening,
                converter: MakeSampleRateConverter? = nil) throws {
        self.network = network
        self.listening = listening
        network.reset()
        let factor = sampleRate % SileroNetwork.sampleRate == 0 ? sampleRate / SileroNetwork.sampleRate : 0
        decimator = factor > 1 ? SpeechDecimator(factor: factor) : nil
        resampler = factor >= 1 ? nil
            : try SpeechDetector.converter(converter, from: sampleRate)
        mono = AudioBlock(channelCount: 1, capacity: 0)
        pending.reserveCapacity(4 * SileroNetwork.chunk)
    }

    /// The next decoded block (all of the stream's channels).
    public func add(_ block: AudioBlock) throws {
        let n = block.frames
        guard n > 0 else { return }
        if mono.channels[0].count < n { mono.channels[0] = [Float](repeating: 0, count: n) }
        mono.frames = n
        mono.channels[0].withUnsafeMutableBufferPointer { m in
            switch listening {
            case .channel(let c):
                block.channels[c].withUnsafeBufferPointer { s in for i in 0..<n { m[i] = s[i] } }
            case .downmix(let cs):
                let scale = 1 / Float(cs.count)
                for i in 0..<n { m[i] = 0 }
                for c in cs {
                    block.channels[c].withUnsafeBufferPointer { s in for i in 0..<n { m[i] += s[i] * scale } }
                }
            }
        }
        if let d = decimator {
            decimated.removeAll(keepingCapacity: true)
            mono.channels[0].withUnsafeBufferPointer { d.process(UnsafeBufferPointer(rebasing: $0[0..<n]), into: &decimated) }
            feed(decimated, decimated.count)
        } else if let r = resampler {
            let out = try r.process(mono, endOfInput: false)
            feed(out.channels[0], out.frames)
        } else {
            feed(mono.channels[0], n)
        }
    }

    /// The probability of speech for each 32 ms chunk, the last one padded with zeros.
    public func finish() throws -> [Float] {
        if let r = resampler {
            var empty = AudioBlock(channelCount: 1, capacity: 0)
            empty.frames = 0
            let out = try r.process(empty, endOfInput: true)
            feed(out.channels[0], out.frames)
        }
        if !pending.isEmpty {
            pending += [Float](repeating: 0, count: SileroNetwork.chunk - pending.count)
            run(pending, 0)
            pending.removeAll()
        }
        return probabilities
    }

    private func feed(_ input: [Float], _ count: Int) {
        highPass.process(input, count, into: &filtered)
        let samples = filtered
        var i = 0
        let chunk = SileroNetwork.chunk
        if !pending.isEmpty {
            let take = min(chunk - pending.count, count)
            pending += samples[0..<take]
            i = take
            if pending.count == chunk { run(pending, 0); pending.removeAll(keepingCapacity: true) }
        }
        while i + chunk <= count { run(samples, i); i += chunk }
        if i < count { pending += samples[i..<count] }
    }

    private func run(_ samples: [Float], _ start: Int) {
        samples.withUnsafeBufferPointer { p in
            let c = UnsafeBufferPointer(rebasing: p[start..<(start + SileroNetwork.chunk)])
            var sound = false
            for v in c where v != 0 { sound = true; break }
            if sound || lastChunkHadSound {
                probabilities.append(network.probability(c))
            } else {
                probabilities.append(0)
            }
            lastChunkHadSound = sound
        }
    }
}

extension SpeechDetector {
    /// A rate the detector can't take without a converter.
    public struct NoConverter: Error, Equatable, Sendable {
        public let sampleRate: Int
    }

    fileprivate static func converter(_ make: MakeSampleRateConverter?, from rate: Int) throws -> any SampleRateConverter {
        guard let make else { throw NoConverter(sampleRate: rate) }
        return try make(Double(SileroNetwork.sampleRate) / Double(rate), 1)
    }
}
