import AudioIO
import Foundation
import JSONValue
import ToolRunner

/// The temporary files of a streamed input or output.
package enum StreamedFiles {
    /// Where `--output -` writes the audio: the original standard output (records go to stderr).
    package static var audioOutput: Int32 { RecordDiversion.audioOutput }

    /// `--output -`: keeps standard output for the audio and sends the records to standard error.
    package static func divertRecords() { RecordDiversion.divert() }

    package static func temporaryName(in dir: String, purpose: String) throws -> String {
        "\(dir)/.audio-tools-\(purpose)" + TemporaryFiles.nameSuffix()
    }

    /// Copies standard input to its end into a new temporary file in `dir`; returns its path.
    package static func spoolStandardInput(in dir: String, name: String? = nil) throws -> String {
        let path = try name.map { "\(dir)/\($0)" } ?? temporaryName(in: dir, purpose: "stdin")
        if name == nil { AtomicOutput.removeAbandonedPartials(in: dir) }
        // Registered until the caller removes it (a signal removes it too).
        TemporaryFiles.register(path)
        let fd = PathBytes.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { let e = errno; TemporaryFiles.unregister(path); throw spoolError(dir, e) }
        defer { close(fd) }
        let r = PipeReader.standardInput
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buf.withUnsafeMutableBytes { r.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { break }
            var off = 0
            while off < n {
                let w = buf.withUnsafeBytes { write(fd, $0.baseAddress! + off, n - off) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else { let e = errno; unlink(path); TemporaryFiles.unregister(path); throw spoolError(dir, e) }
                off += w
            }
        }
        return path
    }

    package static func spoolError(_ dir: String, _ e: Int32) -> ToolError {
        ToolError(.writeFailed, "Standard input could not be kept in a temporary file in \(ToolError.quoted(dir)): \(String(cString: strerror(e))); nothing was written.",
                  suggestion: "Free space there or make it writable: the whole input is kept beside the output while it is normalised.")
    }

    package static func copy(_ path: String, toDescriptor out: Int32) throws {
        let fd = PathBytes.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw ToolError(.writeFailed, "The output could not be read back for standard output.", suggestion: "Check the temporary folder.") }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            var off = 0
            while off < n {
                let w = buf.withUnsafeBytes { write(out, $0.baseAddress! + off, n - off) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else {
                    throw ToolError(.writeFailed, "Standard output closed while the normalised audio was written to it.", suggestion: "Keep the reading end of the pipe open until the output ends.")
                }
                off += w
            }
        }
    }
}

extension StreamedFiles {
    /// Runs `body` on the record with standard input's audio kept in a temporary file in `dir`
    /// (for a tool that reads a file more than once or from its end), then gives the record back
    /// its path `-`, naming `-` where a message named the temporary file, with `pipe: true`
    /// in the tool's object `key`.
    package static func withSpooledStandardInput(_ record: Record, key: String, in dir: String = NSTemporaryDirectory(),
                                         _ body: (Record) throws -> Record) throws -> Record {
        // In a folder of its own as `stdin`, so what a tool names after its input says `stdin`.
        var template = Array("\(dir)/audio-tools-stdin-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw spoolError(dir, errno) }
        let folder = String(cString: template)
        TemporaryFiles.register(folder)
        defer { rmdir(folder); TemporaryFiles.unregister(folder) }
        let ext = StandardInput.fileExtension(head: PipeReader.standardInput.peek(12))
        let spool = try spoolStandardInput(in: folder, name: "stdin" + (ext.map { "." + $0 } ?? ""))
        defer { unlink(spool); TemporaryFiles.unregister(spool) }
        var r = record
        r["path"] = .string(spool)
        var out: Record
        do { out = try body(r) } catch let e as ToolErrorConvertible {
            throw renamed(e.toolError(path: spool), from: spool)
        }
        out["path"] = record["path"]
        // A pipe has no modification time: `file` says where the bytes came from, as lufs-measure's does.
        if case .object(var o)? = out[key] {
            var st = stat()
            let size = stat(spool, &st) == 0 ? JSON.int(Int(st.st_size)) : .null
            o["file"] = .object(["pipe": .bool(true), "size_bytes": size])
            out[key] = .object(o)
        }
        if let e = out["error"] { out["error"] = namingStandardInput(e, spool: spool) }
        return out
    }

    /// The error naming `-` where it named the spooled copy of standard input at `spool`.
    package static func renamed(_ e: ToolError, from spool: String) -> ToolError {
        ToolError(e.code, namingStandardInput(e.message, spool: spool), suggestion: namingStandardInput(e.suggestion, spool: spool))
    }

    /// `s` naming standard input (`-`) where it named its spooled copy at `spool`: the copy's
    /// quoted name (as the sentences give it) and its whole path (as ffmpeg's messages quote it).
    package static func namingStandardInput(_ s: String, spool: String) -> String {
        s.replacingOccurrences(of: ToolError.quoted(spool), with: ToolError.quoted(StandardInput.path))
            .replacingOccurrences(of: spool, with: StandardInput.path)
    }

    /// The same in every string of `j` (a record's error, notes, …).
    package static func namingStandardInput(_ j: JSON, spool: String) -> JSON {
        switch j {
        case .string(let s): return .string(namingStandardInput(s, spool: spool))
        case .array(let a): return .array(a.map { namingStandardInput($0, spool: spool) })
        case .object(let o): return .object(o.mapValues { namingStandardInput($0, spool: spool) })
        default: return j
        }
    }
}

extension StreamedFiles {
    /// audio-probe on `-`: the spooled input inspected (not cached: a temporary file has no future).
    package static func probeStandardInput(_ record: Record, deep: Bool, tool: String) throws -> Record {
        try withSpooledStandardInput(record, key: "probe") { r in
            let report = AudioProbeInspector.inspect(path: r.path ?? "", deep: deep)
            var out = r
            out["probe"] = report.probe
            return report.refusal.map { out.failing($0, tool: tool) } ?? out
        }
    }
}
