import AudioIO
import Foundation
import ToolRunner

/// lufs-normalize with audio on standard input (`-`) or `--output FILE|-`: the input is spooled
/// to a temporary file beside the output (normalising reads the audio more than once), the
/// output goes to FILE, or to standard output (the record then goes to standard error).
extension LoudnessNormalizeJob {
    package func normalizeStreamed(_ record: Record) throws -> Record {
        guard let out = output else {
            throw ToolError(.badInput, "Audio on standard input (“-”) has no file name to write its output under; nothing was written.",
                            suggestion: "Give --output FILE, or --output - to write the output to standard output.")
        }
        let toStdout = out == "-"
        let dir = toStdout ? NSTemporaryDirectory() : ((out as NSString).deletingLastPathComponent.isEmpty ? "." : (out as NSString).deletingLastPathComponent)
        var job = self
        job.output = nil
        job.fixedOutPath = toStdout ? try StreamedFiles.temporaryName(in: dir, purpose: "out") : out
        var r = record
        var spool: String?
        defer { if let spool { unlink(spool); TemporaryFiles.unregister(spool) } }
        if record.path == StandardInput.path {
            spool = try StreamedFiles.spoolStandardInput(in: dir)
            r["path"] = .string(spool!)
        }
        if toStdout, let t = job.fixedOutPath { TemporaryFiles.register(t) }
        defer { if toStdout, let t = job.fixedOutPath { unlink(t); TemporaryFiles.unregister(t) } }
        var done: Record
        do { done = try job.normalize(r) } catch let e as ToolErrorConvertible {
            // What names the spooled copy names standard input, as the record's path does.
            guard let spool else { throw e }
            throw StreamedFiles.renamed(e.toolError(path: spool), from: spool)
        }
        if let spool { for (k, v) in done.fields { done[k] = StreamedFiles.namingStandardInput(v, spool: spool) } }
        done["path"] = record["path"]
        if toStdout, let t = job.fixedOutPath {
            try StreamedFiles.copy(t, toDescriptor: StreamedFiles.audioOutput)
            if case .object(var n)? = done["normalized"] { n["output"] = .string("-"); done["normalized"] = .object(n) }
        }
        return done
    }
}
