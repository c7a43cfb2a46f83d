import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// `lufs-measure --follow`: the input read as it arrives (standard input, or a file still being
/// written), with one line every `interval` seconds of audio giving the loudness so far, each
/// value equal to measuring the audio read up to then; the final record follows as usual.
package struct LoudnessFollow {
    /// The record's path (`-` for standard input).
    package let path: String
    package let intervalSeconds: Double
    /// Seconds a followed file must stay the same size to be taken as complete.
    package let idleSeconds: Double
    /// Writes one line (with its newline) and flushes it.
    package let emit: (String) -> Void

    /// Opens the input to follow: standard input, or the file read forward as it grows.
    func open(_ recordPath: String) throws -> Decoder.Opened {
        guard recordPath == path else {
            throw ToolError(.badInput, "--follow reads audio as it arrives, but standard input holds lines (records or paths), not audio; \(ToolError.quoted(recordPath)) was not measured.",
                            suggestion: "Pipe audio into `lufs-measure --follow -`, or give --follow one file.")
        }
        return path == StandardInput.path ? try StandardInput.open() : try StandardInput.openGrowing(path, idleSeconds: idleSeconds)
    }

    /// Reads `source` into `meter` to its end (or a stop signal), writing a line at each interval.
    package func run(_ source: AudioSource, meter: LoudnessMeter, gate: (LoudnessGate, JSON)?) throws {
        let every = max(1, Int((intervalSeconds * Double(source.format.sampleRate)).rounded()))
        var block = AudioBlock(channelCount: source.format.channelCount, capacity: Decoder.blockFrames)
        var untilLine = every
        while true {
            let n = try source.read(into: &block, maxFrames: min(Decoder.blockFrames, untilLine))
            if n == 0 { break }
            meter.add(block)
            untilLine -= n
            if untilLine == 0 {
                emit(Self.line(path: path, meter: meter, gate: gate) + "\n")
                untilLine = every
            }
        }
    }

    /// One `--follow` line: `{"path": …, "follow": {seconds, momentary, short-term, and the
    /// integrated loudness, range, peaks and maxima so far, the gate so far}}`.
    package static func line(path: String, meter: LoudnessMeter, gate: (LoudnessGate, JSON)?) -> String {
        let m = meter.soFar()
        var o = LoudnessRecord.figures(m)
        o["seconds"] = .double(m.seconds, decimals: 6)
        o["frames"] = .int(m.frames)
        o["momentary_lufs"] = .optional(meter.momentaryLUFS, decimals: 2)
        o["short_term_lufs"] = .optional(meter.shortTermLUFS, decimals: 2)
        if let (g, label) = gate { o["gate"] = LoudnessRecord.gateJSON(g, label: label, m) }
        return JSON.object(["path": .string(path), "follow": .object(o)]).serialized()
    }
}

/// What a record measured from a stream says about it: `loudness.file` is `{"pipe": true,
/// "size_bytes": N}` for standard input (no file, no modification time), the file's identity
/// when read, for a followed file, at its end; and the stream's notes.
package enum StreamedInputRecord {
    package static func mark(_ loudness: JSON, opened: Decoder.Opened) -> JSON {
        guard let s = opened.source as? StreamedAudio, case .object(var o) = loudness else { return loudness }
        if s.isPipe {
            o["file"] = .object(["pipe": .bool(true), "size_bytes": .int(Int(s.bytesRead))])
        } else if let id = try? FileIdentity.of(opened.path) {
            o["file"] = id.fingerprinted(path: opened.path).json
        }
        var notes = o["notes"]?.arrayValue ?? []
        notes += s.streamNotes.map { .string($0) }
        if s.stoppedBySignal, let sig = SignalStop.caught {
            notes.append(.string("Reading was stopped by signal \(sig) (\(sig == SIGINT ? "SIGINT" : "SIGTERM")): this is the measurement of what was read until then."))
        }
        o["notes"] = .array(notes)
        return .object(o)
    }
}
