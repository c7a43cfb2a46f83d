import AudioSignal
import Foundation

/// vo-align's window reader: a file seen by `BleedAligner` as a mono signal at another rate.
/// Only the windows asked for are decoded (seek, read the window plus a margin, downmix,
/// resample with libsamplerate's fastest sinc), so memory stays bounded on long files.
/// Not thread-safe: each take processed opens its own.
package final class VoAlignFileSignal: AlignmentSignal {
    private let source: SndfileSource
    private let sourceFrames: Int
    /// Output per input frame, as the reduced fraction up/down (e.g. 160/147 for 44.1 → 48 kHz).
    private let up: Int
    private let down: Int
    /// Signal sample j is the file at target-rate position j + offset (for --start-at).
    private let offset: Int
    package let frameCount: Int

    /// Input frames decoded on either side of a window so the resampler has settled.
    private static let margin = 2048

    /// Opens `path` as a signal at `targetRate`, starting `offset` target-rate frames into it.
    package init(path: String, targetRate: Int, offset: Int = 0) throws {
        source = try SndfileSource(path: path)
        sourceFrames = source.format.frameCount ?? 0
        let g = Self.gcd(source.format.sampleRate, targetRate)
        up = targetRate / g
        down = source.format.sampleRate / g
        self.offset = offset
        let total = Int((Double(sourceFrames) * Double(up) / Double(down)).rounded())
        frameCount = max(0, total - offset)
    }

    package func read(from: Int, count: Int) throws -> [Float] {
        let j = from + offset
        if up == down { return try readMono(from: j, count: count) }
        // Start the decoded chunk on a multiple of `down` input frames: its first output sample
        // then sits exactly on a target-rate frame, so no fractional phase enters the window.
        let firstInput = Int((Double(j) * Double(down) / Double(up)).rounded(.down)) - Self.margin
        let i0 = Self.floorMultiple(firstInput, down)
        let lastInput = Int((Double(j + count) * Double(down) / Double(up)).rounded(.up)) + Self.margin
        let raw = try readMono(from: i0, count: lastInput - i0)
        let converted = try Resampler.resample(raw, ratio: Double(up) / Double(down), quality: .fastest)
        let first = j - i0 / down * up
        var out = [Float](repeating: 0, count: count)
        let available = max(0, min(count, converted.count - first))
        if available > 0 { out.replaceSubrange(0..<available, with: converted[first..<(first + available)]) }
        return out
    }

    /// Mono (channel average) input frames [from, from + count), silence outside the file.
    private func readMono(from: Int, count: Int) throws -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let lo = max(from, 0), hi = min(from + count, sourceFrames)
        guard hi > lo else { return out }
        try source.seek(toFrame: lo)
        var block = AudioBlock(channelCount: source.format.channelCount, capacity: 0)
        var position = lo
        let scale = 1 / Float(source.format.channelCount)
        while position < hi {
            let n = try source.read(into: &block, maxFrames: min(Decoder.blockFrames * 8, hi - position))
            if n == 0 { break }
            out.withUnsafeMutableBufferPointer { o in
                let base = position - from
                for c in 0..<block.channelCount {
                    block.channels[c].withUnsafeBufferPointer { s in
                        for i in 0..<n { o[base + i] += s[i] * scale }
                    }
                }
            }
            position += n
        }
        return out
    }

    package static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    package static func floorMultiple(_ x: Int, _ m: Int) -> Int {
        x >= 0 ? x / m * m : -((-x + m - 1) / m) * m
    }
}

/// The take placed on the reference timeline, as a stream of blocks at `outputRate`: resampled
/// (rate change and, when asked, drift correction) and shifted so that output frame 0 is
/// reference time 0. Frames before the take begins are silence; `read` pads with silence after
/// it ends. Decoding is block-wise: memory does not grow with the take's length.
package final class VoAlignPlacedTake {
    package let channelCount: Int
    /// Frames the placed take has (its end on the reference timeline, at `outputRate`).
    package let frameCount: Int

    private let source: SndfileSource
    private let resampler: Resampler?
    private var skip: Int
    private var lead: Int
    private var pending: [[Float]]
    private var pendingStart = 0
    private var sourceDone = false
    private var emitted = 0
    private var block: AudioBlock

    /// `delayFrames`: delay of the reference inside the take at its first frame, in take frames
    /// (D: take frame t belongs at reference frame t − D). `ratio` resamples the take (output
    /// frames per take frame: outputRate/takeRate, times 1 − drift when drift is corrected) at
    /// `quality`.
    package init(path: String, outputRate: Int, delayFrames: Double, ratio: Double, quality: Resampler.Quality) throws {
        source = try SndfileSource(path: path)
        let takeRate = source.format.sampleRate
        channelCount = source.format.channelCount
        resampler = ratio == 1 ? nil : try Resampler(ratio: ratio, channels: channelCount, quality: quality)
        // After resampling, output sample m sits at reference time m/outputRate − D/takeRate.
        let shift = Int((delayFrames * Double(outputRate) / Double(takeRate)).rounded())
        skip = max(shift, 0)
        lead = max(-shift, 0)
        let converted = Int((Double(source.format.frameCount ?? 0) * ratio).rounded())
        frameCount = max(0, converted - shift)
        pending = Array(repeating: [], count: channelCount)
        block = AudioBlock(channelCount: channelCount, capacity: 0)
    }

    /// The next `count` frames (fewer only when the placed take has ended: then 0 means done).
    package func read(_ count: Int) throws -> AudioBlock {
        let want = min(count, frameCount - emitted)
        var out = AudioBlock(channelCount: channelCount, capacity: max(want, 0))
        guard want > 0 else { return out }
        var filled = 0
        if lead > 0 {
            let n = min(lead, want)  // channels start as zeros
            lead -= n; filled = n
        }
        while filled < want {
            if pendingStart >= pending[0].count {
                if sourceDone { break }
                try refill()
                continue
            }
            let n = min(want - filled, pending[0].count - pendingStart)
            for c in 0..<channelCount {
                out.channels[c].replaceSubrange(filled..<(filled + n), with: pending[c][pendingStart..<(pendingStart + n)])
            }
            pendingStart += n
            filled += n
        }
        // The resampler's exact length is the promise; a short read pads with silence.
        out.frames = want
        emitted += want
        return out
    }

    /// Decodes (and resamples) the next block of the take, dropping the frames before the
    /// reference's start.
    private func refill() throws {
        let n = try source.read(into: &block, maxFrames: Decoder.blockFrames)
        var produced: AudioBlock
        if let r = resampler {
            if n == 0 {
                produced = try r.process(AudioBlock(channelCount: channelCount, capacity: 0), endOfInput: true)
                sourceDone = true
            } else {
                produced = try r.process(block, endOfInput: false)
            }
        } else {
            if n == 0 { sourceDone = true }
            produced = block
        }
        var from = 0
        if skip > 0 {
            from = min(skip, produced.frames)
            skip -= from
        }
        for c in 0..<channelCount { pending[c] = Array(produced.channels[c][from..<produced.frames]) }
        pendingStart = 0
    }
}

/// A take or reference as vo-align reads it: at random (windows, segments), so through
/// libsndfile. What only ffmpeg decodes (a camera's MP4 or MOV, AAC, audio in Matroska) is
/// decoded once, its first audio stream, into a temporary 32-bit float WAV that is removed when
/// this goes away (or the run is interrupted): the aligned output of such a take is audio (WAV).
package final class VoAlignAudioFile {
    /// What the user named.
    package let original: String
    /// What libsndfile opens: `original`, or the temporary decoded copy.
    package let path: String
    package let rate: Int
    package let channels: Int
    package let frames: Int
    /// The libsndfile format to write an aligned copy in: the file's own, or 24-bit WAV for
    /// what ffmpeg decoded.
    package let formatCode: Int32
    /// Whether the audio came through ffmpeg (a video, AAC, ...).
    package let decodedByFFmpeg: Bool
    private let temporary: String?

    package init(_ original: String) throws {
        self.original = original
        let opened = try Decoder.open(original)
        // libsndfile alone reads only the first link of a chained Ogg file: that one is decoded
        // link after link into the temporary copy, and written back in its own format.
        let chained = opened.source is ChainedOggSource
        if opened.decoder == .libsndfile && !chained {
            path = original
            temporary = nil
            decodedByFFmpeg = false
            formatCode = opened.sndfile?.formatCode ?? SndfileSink.formatCode(container: "wav", codec: "pcm_s24")!
        } else {
            let tmp = FileManager.default.temporaryDirectory
                .appendingPathComponent("vo-align-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).wav").path
            TemporaryFiles.register(tmp)
            do {
                let f = opened.source.format
                let sink = try SndfileSink(path: tmp, formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_f32")!,
                                           sampleRate: f.sampleRate, channelCount: f.channelCount, overwrite: true)
                do {
                    try Decoder.forEachBlock(opened.source) { try sink.write($0) }
                    try sink.commit()
                } catch { sink.abandon(); throw error }
            } catch {
                unlink(tmp); TemporaryFiles.unregister(tmp)
                throw error
            }
            path = tmp
            temporary = tmp
            decodedByFFmpeg = !chained
            formatCode = (chained ? opened.sndfile?.formatCode : nil) ?? SndfileSink.formatCode(container: "wav", codec: "pcm_s24")!
        }
        let s = try SndfileSource(path: path)
        rate = s.format.sampleRate
        channels = s.format.channelCount
        frames = s.format.frameCount ?? 0
    }

    deinit {
        if let t = temporary { unlink(t); TemporaryFiles.unregister(t) }
    }

    /// The whole file as mono at `rate` (libsamplerate's fastest sinc), handed over in blocks:
    /// the coarse stage of `--start-at auto` streams a long backing through this.
    package func forEachCoarseBlock(rate target: Int, _ body: ([Float]) throws -> Void) throws {
        let source = try SndfileSource(path: path)
        // Halve the rate cheaply while it stays at least 1.35 × the target (the converter's
        // work is per input sample), then convert.
        var halvings: [HalfbandDecimator] = []
        var from = Double(rate)
        while from / 2 >= 1.35 * Double(target) { halvings.append(HalfbandDecimator()); from /= 2 }
        let resampler = from == Double(target) ? nil : try Resampler(ratio: Double(target) / from, channels: 1, quality: .fastest)
        var block = AudioBlock(channelCount: channels, capacity: 0)
        let scale = 1 / Float(channels)
        while true {
            let n = try source.read(into: &block, maxFrames: Decoder.blockFrames * 8)
            var mono = [Float](repeating: 0, count: n)
            for c in 0..<channels { block.channels[c].withUnsafeBufferPointer { s in for i in 0..<n { mono[i] += s[i] * scale } } }
            for h in halvings.indices { mono = halvings[h].process(mono) }
            if let r = resampler {
                let out = try r.process(AudioBlock(channels: [mono], frames: mono.count), endOfInput: n == 0)
                if out.frames > 0 { try body(Array(out.channels[0][0..<out.frames])) }
            } else if !mono.isEmpty {
                try body(mono)
            }
            if n == 0 { break }
        }
    }
}
