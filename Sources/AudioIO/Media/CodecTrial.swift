import AudioSignal
import Foundation

/// A trial encode: a few seconds of a stream, normalised by the plan, encoded by the stream's
/// encoder into a temporary Matroska file and decoded again, both sides measured, so that
/// CodecOvershoot predicts what the codec does to the whole stream before it is encoded once.
/// The ffmpeg it runs is stopped and the temporary file removed on every path.
package enum CodecTrial {
    /// The stretches' loudness and true peak before and after the codec.
    package struct Measured {
        package var beforeLUFS: Double?, beforeTruePeak: Double?, afterLUFS: Double?, afterTruePeak: Double?
        package var seconds: Double
        package var prediction: CodecOvershoot.Prediction {
            CodecOvershoot.predict(beforeLUFS: beforeLUFS, beforeTruePeak: beforeTruePeak, afterLUFS: afterLUFS,
                                   afterTruePeak: afterTruePeak, seconds: seconds)
        }
    }

    /// The two ffmpegs of a trial: the encoder, fed samples on its pipe 3, writes Matroska on its
    /// stdout; the decoder reads that on its pipe 3 as it comes and writes samples on its stdout,
    /// so the trial is decoded while it is encoded, with no file between them. Started before they
    /// are fed (each waits on its pipe); ended on every path (`end`, release, a signal).
    package final class Children: @unchecked Sendable {
        package let encoder: ChildProcess
        package let decoder: ChildProcess

        package init(input: String, encoding e: MediaAudioEncoding) throws {
            guard let ffmpeg = FFmpegSource.ffmpegPath else { throw MediaWriteError.noFFmpeg(input: input) }
            var args = ["-nostdin", "-v", "error", "-f", "f32le", "-ar", String(e.sampleRate), "-ac", String(e.channels)]
            if let l = e.channelLayout { args += ["-ch_layout", l] }
            args += ["-i", "pipe:3", "-c:a", e.encoder]
            args += e.rateArguments("a")
            if let f = e.sampleFormat { args += ["-sample_fmt", f] }
            args += ["-f", "matroska", "pipe:1"]
            do {
                encoder = try ChildProcess(ffmpeg, args, stdin: .null, stdout: .pipe, extraInputs: 1)
            } catch { throw ResourceFailure(input, program: "ffmpeg", spawning: error) }
            do {
                decoder = try ChildProcess(ffmpeg, ["-nostdin", "-v", "error", "-f", "matroska", "-i", "pipe:3", "-map", "0:a:0",
                                                    "-bitexact", "-f", "f32le", "-acodec", "pcm_f32le", "-ac", String(e.channels), "pipe:1"],
                                           stdin: .null, stdout: .pipe, extraInputs: 1)
            } catch {
                encoder.end()
                throw ResourceFailure(input, program: "ffmpeg", spawning: error)
            }
        }

        deinit { end() }

        package func end() { encoder.end(); decoder.end() }

        /// Stops both without closing their pipes, so threads blocked on them return at once.
        package func kill() { _ = Glibc.kill(encoder.pid, SIGKILL); _ = Glibc.kill(decoder.pid, SIGKILL) }
    }

    /// `captured`: each stretch's decoded samples (TrialWindows), planar, when the analysis pass
    /// kept them; else each stretch is decoded by an ffmpeg of its own. `children`: a trial's
    /// ffmpegs started beforehand (else started here); they are ended whatever happens.
    package static func run(input: String, ordinal: Int, plan: NormalizePlan, encoding e: MediaAudioEncoding, weights: [Double],
                    stretches: [(start: Double, length: Double, lead: Double)], captured: [[[Float]]]? = nil,
                    children: Children? = nil) throws -> Measured {
        let c = try children ?? Children(input: input, encoding: e)
        defer { c.end() }
        // Beside the feed: one thread hands the encoder's output to the decoder, one keeps what
        // the decoder writes (a few seconds of samples).
        let group = DispatchGroup()
        let decoded = TrialBytes()
        for relay in [true, false] {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                var decoderReads = true
                while true {
                    let n = buffer.withUnsafeMutableBytes { (relay ? c.encoder : c.decoder).read(into: $0.baseAddress!, count: $0.count) }
                    if n <= 0 { break }
                    if !relay {
                        decoded.bytes.append(contentsOf: buffer[0 ..< n])
                    } else if decoderReads, !buffer.withUnsafeBytes({ c.decoder.write(UnsafeRawBufferPointer(rebasing: $0[0 ..< n]), toExtra: 0) }) {
                        // The decoder stopped: the encoder's output is still read to its end, so it never blocks.
                        decoderReads = false
                        c.decoder.closeExtra(0)
                    }
                }
                if relay, decoderReads { c.decoder.closeExtra(0) }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }

        // Before the codec: what the plan makes of each stretch, measured past its lead and piped on.
        var interleaved: [Float] = []
        let fed: (measured: LoudnessMeasurement, leads: [Int], lengths: [Int])
        do {
            fed = try feed(input: input, ordinal: ordinal, plan: plan, sampleRate: e.sampleRate, weights: weights,
                           stretches: stretches, captured: captured) { block in
                let n = block.frames, ch = block.channels.count
                if interleaved.count < n * ch { interleaved = [Float](repeating: 0, count: n * ch) }
                interleaved.withUnsafeMutableBufferPointer { dst in
                    for c in 0..<ch { block.channels[c].withUnsafeBufferPointer { src in var d = c; for i in 0..<n { dst[d] = src[i]; d += ch } } }
                }
                return interleaved.withUnsafeBytes { c.encoder.write(UnsafeRawBufferPointer(rebasing: $0[0 ..< n * ch * 4]), toExtra: 0) }
            }
        } catch {
            c.kill()
            group.wait()
            throw error
        }
        c.encoder.closeExtra(0)
        group.wait()
        let te = c.encoder.wait(), td = c.decoder.wait()
        for t in [te, td] where t.status != 0 {
            throw MediaWriteError.ffmpegFailed(input: input, reason: t.stderr.split(separator: "\n").first.map(String.init) ?? "ffmpeg stopped with status \(t.status)")
        }
        let leads = fed.leads, lengths = fed.lengths
        let b = fed.measured

        // After the codec: the same stretches of the decoded trial, their leads skipped again.
        let after = LoudnessMeter(sampleRate: e.sampleRate, weights: weights)
        let frames = decoded.bytes.count / (4 * e.channels)
        var planar = [[Float]](repeating: [Float](repeating: 0, count: frames), count: e.channels)
        decoded.bytes.withUnsafeBytes { raw in
            for c in 0..<e.channels { for i in 0..<frames { planar[c][i] = raw.loadUnaligned(fromByteOffset: (i * e.channels + c) * 4, as: Float.self) } }
        }
        var k = 0, at = 0
        if frames > 0 {
            try Decoder.forEachBlock(MemoryAudioSource(sampleRate: e.sampleRate, channels: planar)) { block in
                var block = block
                while block.frames > 0, k < lengths.count {
                    let stretchLeft = lengths[k] - at
                    let take = min(block.frames, stretchLeft)
                    let skip = max(0, min(take, leads[k] - at))
                    if take > skip { after.add(part(block, skip, take)) }
                    at += take
                    block = take == block.frames ? AudioBlock(channels: [], frames: 0) : part(block, take, block.frames)
                    if at == lengths[k] { k += 1; at = 0 }
                }
            }
        }
        let a = after.finish()
        let seconds = zip(lengths, leads).reduce(0) { $0 + Double($1.0 - $1.1) } / Double(e.sampleRate)
        return Measured(beforeLUFS: b.integratedLUFS, beforeTruePeak: b.truePeakDBTP, afterLUFS: a.integratedLUFS,
                        afterTruePeak: a.truePeakDBTP, seconds: seconds)
    }

    /// Runs `plan` over the stretches (the analysis pass's copies, else decoded again), each
    /// measured past its lead; `each` is handed every block the plan makes and returns false to
    /// stop. Returns the measurement and each stretch's lead and length, frames.
    package static func feed(input: String, ordinal: Int, plan: NormalizePlan, sampleRate: Int, weights: [Double],
                     stretches: [(start: Double, length: Double, lead: Double)], captured: [[[Float]]]?,
                     each: ((AudioBlock) -> Bool)? = nil) throws -> (measured: LoudnessMeasurement, leads: [Int], lengths: [Int]) {
        let before = LoudnessMeter(sampleRate: sampleRate, weights: weights)
        var leads: [Int] = [], lengths: [Int] = []
        for (k, s) in stretches.enumerated() {
            let source: AudioSource = try captured.map { MemoryAudioSource(sampleRate: sampleRate, channels: $0[k]) }
                ?? FFmpegSource(path: input, audioStream: ordinal, window: (s.start, s.length))
            var p = plan
            p.totalFrames = nil
            p.fadeOutFrames = 0
            if s.start > 0 { p.fadeInFrames = 0 }
            let lead = Int((s.lead * Double(sampleRate)).rounded())
            var seen = 0
            var stopped = false
            _ = try NormalizePipeline.run(p, source: source, sink: nil, onOutputBlock: { block in
                guard !stopped else { return }
                let n = block.frames
                if seen + n > lead {
                    let from = max(0, lead - seen)
                    before.add(from == 0 ? block : part(block, from, n))
                }
                seen += n
                if let each, !each(block) { stopped = true }
            })
            if stopped { break }
            leads.append(lead); lengths.append(seen)
        }
        return (before.finish(), leads, lengths)
    }

    /// The stretches' integrated loudness through `plan`, no codec (the kept copies only).
    package static func loudness(plan: NormalizePlan, sampleRate: Int, weights: [Double],
                         stretches: [(start: Double, length: Double, lead: Double)], captured: [[[Float]]]) throws -> Double? {
        try feed(input: "", ordinal: 0, plan: plan, sampleRate: sampleRate, weights: weights, stretches: stretches,
                 captured: captured).measured.integratedLUFS
    }

    /// Frames `from..<to` of a block, copied.
    package static func part(_ b: AudioBlock, _ from: Int, _ to: Int) -> AudioBlock {
        AudioBlock(channels: b.channels.map { Array($0[from ..< to]) }, frames: to - from)
    }
}

/// What a trial's decoder wrote, kept by the thread that reads it (read once that thread ended).
package final class TrialBytes: @unchecked Sendable {
    package var bytes: [UInt8] = []
}
