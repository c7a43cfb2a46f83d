import AudioSignal
import CSamplerate
import Foundation

/// Why a sample-rate converter couldn't be made or run; IOSentences says it to a person.
public enum ResampleError: Error, Equatable, Sendable {
    /// A rate that isn't positive.
    case badRates(from: Int, to: Int)
    /// A ratio libsamplerate refuses, or no channels.
    case badRatio(Double, channels: Int)
    /// libsamplerate failed (its message).
    case failed(libsamplerate: String)
}

/// Streaming sample-rate conversion over libsamplerate, planar in and out.
///
/// Converts at a fixed ratio (output rate / input rate): a rate change such as 44.1 kHz → 48 kHz,
/// or a tiny ratio such as 1.0001 to correct clock drift. Blocks go in as they are decoded; the
/// call with `endOfInput: true` drains the converter so the total output is exactly
/// `round(totalInputFrames · ratio)` frames, time-aligned with the input (output frame j sits at
/// input time j / ratio, no added delay). After that call the converter is reset and can start
/// a new stream.
public final class Resampler: SampleRateConverter {
    /// libsamplerate's converters, best (slowest) first.
    public enum Quality: Sendable {
        /// Band-limited sinc, 97% bandwidth, ~145 dB SNR (SRC_SINC_BEST_QUALITY).
        case best
        /// Band-limited sinc, 90% bandwidth, ~121 dB SNR (SRC_SINC_MEDIUM_QUALITY).
        case medium
        /// Band-limited sinc, 80% bandwidth, ~97 dB SNR (SRC_SINC_FASTEST); fine for analysis.
        case fastest

        package var converter: Int32 {
            switch self {
            case .best: return Int32(SRC_SINC_BEST_QUALITY)
            case .medium: return Int32(SRC_SINC_MEDIUM_QUALITY)
            case .fastest: return Int32(SRC_SINC_FASTEST)
            }
        }
    }

    /// Output frames per input frame.
    public let ratio: Double
    public let channelCount: Int
    public let quality: Quality

    private let state: OpaquePointer
    private var inputTotal = 0
    private var outputTotal = 0
    /// Interleaved frames the converter produced beyond what may be emitted yet.
    private var pending: [Float] = []
    private var interleavedIn: [Float] = []
    private var interleavedOut: [Float] = []

    /// A converter from `fromRate` to `toRate` Hz for `channels` channels.
    public convenience init(fromRate: Int, toRate: Int, channels: Int, quality: Quality = .best) throws {
        guard fromRate > 0, toRate > 0 else {
            throw ResampleError.badRates(from: fromRate, to: toRate)
        }
        try self.init(ratio: Double(toRate) / Double(fromRate), channels: channels, quality: quality)
    }

    /// A converter producing `ratio` output frames per input frame (libsamplerate accepts 1/256…256).
    public init(ratio: Double, channels: Int, quality: Quality = .best) throws {
        guard channels >= 1, ratio.isFinite, src_is_valid_ratio(ratio) != 0 else {
            throw ResampleError.badRatio(ratio, channels: channels)
        }
        var error: Int32 = 0
        guard let s = src_new(quality.converter, Int32(channels), &error) else {
            throw Resampler.failure(error)
        }
        state = s
        self.ratio = ratio
        self.channelCount = channels
        self.quality = quality
    }

    deinit { src_delete(state) }

    private static func failure(_ code: Int32) -> ResampleError {
        .failed(libsamplerate: src_strerror(code).map { String(cString: $0) } ?? "error \(code)")
    }

    /// Converts `block` (planar, `channelCount` channels) and returns the frames ready so far.
    /// Pass `endOfInput: true` with the last block (it may be empty) to drain the converter.
    public func process(_ block: AudioBlock, endOfInput: Bool) throws -> AudioBlock {
        precondition(block.channelCount == channelCount, "Resampler expects \(channelCount) channels")
        let ch = channelCount
        let frames = block.frames
        if interleavedIn.count < frames * ch { interleavedIn = [Float](repeating: 0, count: frames * ch) }
        interleavedIn.withUnsafeMutableBufferPointer { dst in
            for c in 0..<ch {
                block.channels[c].withUnsafeBufferPointer { src in
                    for i in 0..<frames { dst[i * ch + c] = src[i] }
                }
            }
        }
        inputTotal += frames

        let outCapacity = max(4096, Int((Double(frames) * ratio).rounded(.up)) + 256)
        if interleavedOut.count < outCapacity * ch { interleavedOut = [Float](repeating: 0, count: outCapacity * ch) }
        var produced = pending
        pending.removeAll(keepingCapacity: true)

        var consumed = 0
        var errorCode: Int32 = 0
        interleavedIn.withUnsafeBufferPointer { inBuf in
            interleavedOut.withUnsafeMutableBufferPointer { outBuf in
                while true {
                    var data = SRC_DATA()
                    data.data_in = inBuf.baseAddress.map { UnsafePointer($0 + consumed * ch) }
                    data.input_frames = frames - consumed
                    data.data_out = outBuf.baseAddress
                    data.output_frames = outCapacity
                    data.end_of_input = endOfInput ? 1 : 0
                    data.src_ratio = ratio
                    errorCode = src_process(state, &data)
                    if errorCode != 0 { return }
                    consumed += data.input_frames_used
                    let gen = data.output_frames_gen
                    if gen > 0 { produced.append(contentsOf: outBuf[0..<(gen * ch)]) }
                    let inputLeft = consumed < frames
                    if !inputLeft && (!endOfInput || gen == 0) { break }
                    if inputLeft && data.input_frames_used == 0 && gen == 0 { break }
                }
            }
        }
        if errorCode != 0 { throw Resampler.failure(errorCode) }

        // Never emit more than the exact total allows; at the end pad or trim to it.
        let exact = Double(inputTotal) * ratio
        let allowed = (endOfInput ? Int(exact.rounded()) : Int(exact.rounded(.down))) - outputTotal
        var available = produced.count / ch
        if available > allowed {
            if !endOfInput { pending = Array(produced[(allowed * ch)...]) }
            available = max(allowed, 0)
        } else if endOfInput && available < allowed {
            produced.append(contentsOf: [Float](repeating: 0, count: (allowed - available) * ch))
            available = allowed
        }
        var out = AudioBlock(channelCount: ch, capacity: available)
        out.frames = available
        produced.withUnsafeBufferPointer { src in
            for c in 0..<ch {
                out.channels[c].withUnsafeMutableBufferPointer { dst in
                    for i in 0..<available { dst[i] = src[i * ch + c] }
                }
            }
        }
        outputTotal += available
        if endOfInput {
            src_reset(state)
            inputTotal = 0
            outputTotal = 0
            pending.removeAll()
        }
        return out
    }

    /// Resamples a whole mono signal at `ratio` (output/input); for short analysis windows and
    /// drift correction. The result has `round(samples.count · ratio)` samples.
    public static func resample(_ samples: [Float], ratio: Double, quality: Quality = .best) throws -> [Float] {
        try Resampler(ratio: ratio, channels: 1, quality: quality).convertWhole(samples)
    }

    /// Resamples a whole mono signal from `fromRate` to `toRate` Hz.
    public static func resample(_ samples: [Float], fromRate: Int, toRate: Int,
                                quality: Quality = .best) throws -> [Float] {
        try Resampler(fromRate: fromRate, toRate: toRate, channels: 1, quality: quality).convertWhole(samples)
    }
}

extension Resampler {
    /// libsamplerate's fastest sinc, for analysis: what the speech detector and the aligner use.
    public static let fastest: MakeSampleRateConverter = { try Resampler(ratio: $0, channels: $1, quality: .fastest) }
}
