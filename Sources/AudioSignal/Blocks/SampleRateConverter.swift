/// Changes a signal's sample rate, a block at a time. The signal library has no converter of
/// its own (the tools use libsamplerate's, in the IO layer); a caller hands one in where a
/// detector or an aligner needs a rate it wasn't given.
public protocol SampleRateConverter: AnyObject {
    /// The converted frames of `block`; with `endOfInput`, the converter's tail as well.
    func process(_ block: AudioBlock, endOfInput: Bool) throws -> AudioBlock
}

/// Makes a converter for a ratio (output rate / input rate) and a channel count.
public typealias MakeSampleRateConverter = @Sendable (_ ratio: Double, _ channels: Int) throws -> any SampleRateConverter

extension SampleRateConverter {
    /// A whole mono signal converted in one call.
    public func convertWhole(_ samples: [Float]) throws -> [Float] {
        try process(AudioBlock(channels: [samples], frames: samples.count), endOfInput: true).channels[0]
    }
}
