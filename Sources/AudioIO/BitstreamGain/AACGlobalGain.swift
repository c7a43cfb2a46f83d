/// AAC-LC: every channel stream's `global_gain` (8 bits per channel stream and raw_data_block;
/// one step is 2^(1/4) in amplitude, as in MP3) moved by the same number of steps. The scale
/// factors and noise energies are coded relative to it, so they follow; intensity positions are
/// relative to the other channel of the pair, so they stay right. ADTS streams are changed whole;
/// MP4/MOV samples through AACMP4Samples. HE-AAC (SBR, PS) and the other profiles are refused.
public enum AACGlobalGain {
    /// One step: the decoder scales by 2^(global_gain/4) (2^(0.25·(sf − 100)) per band).
    public static let stepDB = 5 * 0.30102999566398119521

    /// What was changed.
    public struct Result: Equatable, Sendable {
        /// raw_data_blocks (access units) changed.
        public var blocks = 0
        /// Channel streams changed.
        public var channelStreams = 0
        /// global_gain over the file after the change.
        public var minGain = 255
        public var maxGain = 0
    }

    /// Sampling-frequency indexes' rates (Table 1.18).
    package static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// The sampling index of an AudioSpecificConfig (the esds's DecoderSpecificInfo) that this
    /// changes: AAC-LC with 1024-sample frames, no SBR or PS signalled. Throws the reason otherwise.
    package static func audioSpecificConfig(_ asc: [UInt8]) throws(BitstreamGainError) -> Int {
        var r = ProbeBitCursor(asc, byteOffset: 0, byteLimit: asc.count)
        guard var aot = r.read(5), let index = r.read(4) else { throw .malformed(what: "AudioSpecificConfig", offset: 0) }
        if aot == 31 { aot = 32 + (r.read(6) ?? 0) }
        try checkObjectType(aot)
        var samplingIndex = index
        if index == 15 {
            guard let rate = r.read(24), let i = rates.firstIndex(of: rate) else { throw .unsupportedFormat("AAC at a sampling rate with no standard index") }
            samplingIndex = i
        }
        guard samplingIndex < rates.count, let _ = r.read(4), let frameLength = r.read(1), let core = r.read(1) else {
            throw .malformed(what: "AudioSpecificConfig", offset: 0)
        }
        if frameLength == 1 { throw .unsupportedFormat("AAC-LC with 960-sample frames (DAB+/DRM)") }
        if core == 1 { _ = r.read(14) }
        _ = r.read(1)  // extensionFlag
        // Backward-compatible HE-AAC signalling: sync extension 0x2B7, SBR object type, sbrPresentFlag.
        if r.read(11) == 0x2B7, let ext = r.read(5), ext == 5, r.read(1) == 1 {
            try checkObjectType(5)
        }
        return samplingIndex
    }

    /// Refuses every audio object type but AAC-LC (2), with the reason.
    package static func checkObjectType(_ aot: Int) throws(BitstreamGainError) {
        switch aot {
        case 2: return
        case 5, 29: throw .unsupportedFormat("HE-AAC (\(aot == 5 ? "SBR" : "SBR and PS"), whose band energies are absolute and would not follow global_gain)")
        case 1: throw .unsupportedFormat("AAC Main (its prediction would not follow global_gain)")
        case 3: throw .unsupportedFormat("AAC SSR")
        case 4: throw .unsupportedFormat("AAC LTP")
        default: throw .unsupportedFormat("MPEG-4 audio object type \(aot), not AAC-LC")
        }
    }

    /// Changes the raw_data_block(s) at bits `start..<limit` of `b` in place; `block` counts
    /// blocks for the refusal. Returns the bit after the last one walked.
    package static func patchBlock(_ b: UnsafeMutableBufferPointer<UInt8>, start: Int, limit: Int, walker: AACRawDataBlock,
                           steps: Int, fileOffset: Int, into result: inout Result) throws(BitstreamGainError) -> Int {
        var gains: [AACRawDataBlock.ChannelGain] = []
        let end: Int
        do throws(AACRawDataBlock.Failure) {
            end = try walker.walk(UnsafeBufferPointer(b), start: start, limit: limit, into: &gains)
        } catch {
            switch error {
            case .malformed(let what, let bit): throw .malformed(what: "AAC \(what)", offset: fileOffset + bit / 8)
            case .unsupported(let what): throw .unsupportedFormat(what)
            }
        }
        for g in gains {
            if let v = g.violation(steps) {
                throw v.globalGain ? .globalGainOutOfRange(frame: result.blocks, value: v.value)
                                   : .scaleFactorOutOfRange(frame: result.blocks, value: v.value)
            }
            let new = g.value + steps
            write8(b, g.bit, new)
            result.minGain = min(result.minGain, new)
            result.maxGain = max(result.maxGain, new)
        }
        result.channelStreams += gains.count
        result.blocks += 1
        return end
    }

    /// Writes `value` as the 8 bits at bit `bit` of `b`.
    package static func write8(_ b: UnsafeMutableBufferPointer<UInt8>, _ bit: Int, _ value: Int) {
        let i = bit >> 3, shift = 8 - bit & 7
        var v = Int(b[i]) << 8 | (i + 1 < b.count ? Int(b[i + 1]) : 0)
        v = (v & ~(0xFF << shift)) | (value << shift)
        b[i] = UInt8(v >> 8 & 0xFF)
        if i + 1 < b.count { b[i + 1] = UInt8(v & 0xFF) }
    }

    /// An ADTS stream (`bytes`, with ID3v2 before and ID3v1/APEv2 after allowed) with every
    /// global_gain moved by `steps`; throws before returning anything when a frame can't take it.
    public static func applyADTS(_ bytes: consuming [UInt8], steps: Int) throws(BitstreamGainError) -> (bytes: [UInt8], result: Result) {
        let layout = try MP3GlobalGain.locate(bytes)
        var out = consume bytes
        var result = Result()
        var failure: BitstreamGainError?
        out.withUnsafeMutableBufferPointer { b in
            do throws(BitstreamGainError) {
                var at = layout.audioStart
                while at < layout.audioEnd {
                    guard at + 7 <= layout.audioEnd, b[at] == 0xFF, b[at + 1] & 0xF6 == 0xF0 else {
                        throw .malformed(what: "ADTS frame header", offset: at)
                    }
                    let profile = Int(b[at + 2] >> 6), index = Int(b[at + 2] >> 2 & 15)
                    let length = Int(b[at + 3] & 3) << 11 | Int(b[at + 4]) << 3 | Int(b[at + 5] >> 5)
                    let blocks = Int(b[at + 6] & 3) + 1
                    try checkObjectType(profile + 1)
                    guard index < rates.count, length >= 7, at + length <= layout.audioEnd else {
                        throw .malformed(what: "ADTS frame header", offset: at)
                    }
                    if b[at + 1] & 1 == 0 { throw .unsupportedFormat("AAC in ADTS with CRC protection (the checksums would need rewriting)") }
                    // Several blocks a frame come with their positions and CRCs; no common encoder
                    // writes them and ffmpeg doesn't decode them.
                    if blocks > 1 { throw .unsupportedFormat("AAC in ADTS with \(blocks) raw data blocks a frame") }
                    _ = try patchBlock(b, start: (at + 7) * 8, limit: (at + length) * 8, walker: AACRawDataBlock(samplingIndex: index),
                                       steps: steps, fileOffset: 0, into: &result)
                    at += length
                }
            } catch { failure = error }
        }
        if let failure { throw failure }
        if result.blocks == 0 { throw .unsupportedFormat("ADTS without AAC frames") }
        return (out, result)
    }
}
