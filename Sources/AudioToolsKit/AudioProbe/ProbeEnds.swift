import AudioIO
import AudioSignal
import JSONValue

/// The check audio-probe makes on every file it can decode: the first second and (after a seek)
/// the last second are decoded, which catches a cut-off file and yields the content id; with
/// `deep`, everything in between is decoded too.
package enum ProbeEnds {
    package static let blockFrames = 16384

    /// Returns the frame count and the id. Throws `truncated` (or the decoder's code) naming where
    /// it stopped; with `deep`, `deepReport` says how far decoding got. `exactSeek` says the source
    /// decodes the same samples after a seek as straight through, so the head may be read to the
    /// frame instead of in whole blocks.
    package static func decode(_ source: AudioSource, path: String, deep: Bool, exactSeek: Bool = true,
                       deepReport: inout JSON?) throws -> (Int, String) {
        let format = source.format
        var builder = ContentID.Builder(sampleRate: format.sampleRate, channels: format.channelCount,
                                        totalFrames: format.frameCount ?? 0)
        var reader = EndsReader(source, blockFrames: blockFrames)
        var position = 0
        func readOne(_ maxFrames: Int = blockFrames) throws -> Int {
            do {
                let n = try reader.read(maxFrames: maxFrames)
                position += n
                return n
            } catch {
                if deep {
                    deepReport = .object(["checked": .bool(false), "first_bad_frame": .int(position),
                                          "first_bad_seconds": .double(Double(position) / Double(format.sampleRate), decimals: 3)])
                }
                throw error
            }
        }
        let allowance = source is FFmpegSource ? FFmpegSource.paddingAllowance(rate: format.sampleRate) : 0
        // A frame before this one can't be in the last second of a stream that isn't cut off
        // (a stream that ends sooner is refused as truncated below), so it isn't given to the
        // tail window; without a stated length every frame is.
        let tailFrom = format.frameCount.map { max(0, $0 - builder.windowFrames - allowance) } ?? 0
        while !builder.headIsComplete || format.frameCount == nil || deep {
            // With the length known, read no further than the head window needs (more reads
            // follow when leading silence pushed it on): the middle is sought past, not decoded.
            let exact = exactSeek && format.frameCount != nil && !deep && !builder.headIsComplete
            let n = try readOne(exact ? min(blockFrames, max(1, builder.headFramesWanted)) : blockFrames)
            if n == 0 { break }
            reader.addHead(to: &builder)
            if position > tailFrom { reader.addTail(to: &builder) }
            if format.frameCount != nil && !deep && builder.headIsComplete { break }
        }
        if let total = format.frameCount, !deep {
            // The ffmpeg source seeks by decoding from the start, so for it reading on is never slower.
            // A decoder that can't seek in this encoding (libsndfile's GSM 6.10 in WAV) is read
            // on to the end instead: the end is reached either way, only more slowly.
            if position < builder.tailStartFrame, !(source is FFmpegSource), (source as? SndfileSource)?.cannotSeek != true {
                do {
                    try source.seek(toFrame: builder.tailStartFrame)
                    position = builder.tailStartFrame
                } catch {
                    throw ProbeRefusal(path, .endUnreachable(promised: total))
                }
            }
            while try readOne() > 0 {
                if position > tailFrom { reader.addTail(to: &builder) }
            }
        }
        builder.totalFrames = position
        if deep {
            deepReport = .object(["checked": .bool(true), "first_bad_frame": .null, "first_bad_seconds": .null])
        }
        if position == 0 && format.frameCount == 0 {
            throw ProbeRefusal(path, .zeroFrames)
        }
        if position == 0 {
            throw ProbeRefusal(path, .headerOnly)
        }
        if let promised = format.frameCount, position + allowance < promised {
            throw ProbeRefusal(path, .framesMissing(promised: promised, present: position))
        }
        return (position, builder.id().hex)
    }
}

/// Reads a source for the content id in the layout that costs least: libsndfile's own
/// interleaved samples (the layout the id hashes, so nothing is deinterleaved), as 16-bit words
/// where those are the file's samples exactly (nothing is converted or rounded either); planar
/// blocks from any other source. Every way gives the same samples, so the same id.
package struct EndsReader {
    private enum Way {
        case blocks(AudioSource)
        case floats(SndfileSource)
        case words(SndfileSource)
    }
    private let way: Way
    private let channels: Int
    private var block: AudioBlock
    private var floats: [Float] = []
    private var words: [Int16] = []
    /// Frames the last read gave.
    private var frames = 0

    package init(_ source: AudioSource, blockFrames: Int) {
        channels = source.format.channelCount
        if let s = source as? SndfileSource {
            way = s.hasExact16BitSamples ? .words(s) : .floats(s)
            block = AudioBlock(channels: [], frames: 0)
        } else {
            way = .blocks(source)
            block = AudioBlock(channelCount: channels, capacity: blockFrames)
        }
    }

    package mutating func read(maxFrames: Int) throws -> Int {
        switch way {
        case .blocks(let source):
            frames = try source.read(into: &block, maxFrames: maxFrames)
        case .floats(let source):
            if floats.count < maxFrames * channels { floats = [Float](repeating: 0, count: maxFrames * channels) }
            frames = try floats.withUnsafeMutableBufferPointer { try source.readInterleaved(into: $0.baseAddress!, maxFrames: maxFrames) }
        case .words(let source):
            if words.count < maxFrames * channels { words = [Int16](repeating: 0, count: maxFrames * channels) }
            frames = try words.withUnsafeMutableBufferPointer { try source.readInterleaved(into: $0.baseAddress!, maxFrames: maxFrames) }
        }
        return frames
    }

    /// Gives what the last read gave to the head window.
    package func addHead(to builder: inout ContentID.Builder) {
        switch way {
        case .blocks: builder.addHead(block: block)
        case .floats: floats.withUnsafeBufferPointer { builder.addHead(interleaved: $0.baseAddress!, frames: frames) }
        case .words: words.withUnsafeBufferPointer { builder.addHead(interleaved: $0.baseAddress!, frames: frames) }
        }
    }

    /// Gives what the last read gave to the tail window.
    package func addTail(to builder: inout ContentID.Builder) {
        switch way {
        case .blocks: builder.addTail(block: block)
        case .floats: floats.withUnsafeBufferPointer { builder.addTail(interleaved: $0.baseAddress!, frames: frames) }
        case .words: words.withUnsafeBufferPointer { builder.addTail(interleaved: $0.baseAddress!, frames: frames) }
        }
    }
}
