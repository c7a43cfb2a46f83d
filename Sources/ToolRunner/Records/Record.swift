import Foundation
import JSONValue

/// One JSON-lines record: an object that keeps every field it came in with. Tools add their own
/// key (`loudness`, `probe`, ...) and `schema`; nothing else is touched.
public struct Record: Equatable, Sendable {
    /// The record schema this build writes; records with a larger one are refused.
    public static let schemaVersion = 1

    public var fields: [String: JSON]
    /// Whether `error` was set in this run (by `failing`) rather than carried in from an earlier
    /// stage: the runner reports only these on stderr. Not part of the JSON, nor of equality.
    public private(set) var failedHere = false

    public init(_ fields: [String: JSON] = [:]) { self.fields = fields }

    public static func == (a: Record, b: Record) -> Bool { a.fields == b.fields }

    public init(path: String) { self.fields = ["path": .string(path)] }

    public subscript(key: String) -> JSON? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    public var path: String? { fields["path"]?.stringValue }

    /// True when an earlier stage (or this one) recorded a failure.
    public var hasError: Bool { if let e = fields["error"], e != .null { return true }; return false }

    /// The error code a failed record carries.
    public var errorCode: String? { fields["error"]?["code"]?.stringValue }

    /// This record with `error` set from `e`, attributed to `tool`.
    public func failing(_ e: ToolError, tool: String) -> Record {
        var r = self
        r.fields["error"] = .object([
            "code": .string(e.code.rawValue),
            "message": .string(e.message),
            "suggestion": .string(e.suggestion),
            "tool": .string(tool),
        ])
        r.fields["schema"] = .int(Record.schemaVersion)
        r.failedHere = true
        return r
    }

    /// The stderr line for a record that failed in this run, as compilers write theirs:
    /// `tool: file: code: message` (the input line's place for a line that wasn't a record).
    public func failureLine(tool: String) -> String? {
        guard failedHere, let e = fields["error"], let code = e["code"]?.stringValue else { return nil }
        let message = e["message"]?.stringValue ?? ""
        return "\(tool): \(path ?? "standard input"): \(code): \(message)\n"
    }

    public func serialized() -> String { JSON.object(fields).serialized() }
}

/// Turns one input line into a record, or into an error record when it can't be one.
public enum RecordReader {
    /// A line starting with `{` is a JSON object that must carry a string `path`; any other
    /// non-blank line is a bare path. Returns nil for blank lines.
    public static func record(fromLine line: String, tool: String) -> Record? {
        let trimmed = trimmedOfSpace(line)
        if trimmed.isEmpty { return nil }
        guard trimmed.hasPrefix("{") else {
            // A bare path keeps its spaces; only the line ending is dropped.
            var p = line
            while p.hasSuffix("\n") || p.hasSuffix("\r") { p.removeLast() }
            if p.utf8.contains(0) { return nulInPath(Record(path: p), shown: visible(p), tool: tool) }
            return Record(path: p)
        }
        let shown = trimmed.count > 80 ? String(trimmed.prefix(77)) + "..." : trimmed
        let value: JSON
        do {
            value = try JSON.parse(trimmed)
        } catch let e as JSONParseError {
            return Record(["input": .string(shown)]).failing(ToolError(
                .badInput, "An input line is not valid JSON (\(e)): \(shown)",
                suggestion: "Give one JSON object per line, or a bare file path."), tool: tool)
        } catch {
            return nil
        }
        guard case .object(let o) = value else {
            return Record(["input": .string(shown)]).failing(ToolError(
                .badInput, "An input line is JSON but not an object: \(shown)",
                suggestion: "Give one JSON object with a \"path\" per line, or a bare file path."), tool: tool)
        }
        let record = Record(o)
        if record.hasError { return record }
        if let s = o["schema"] {
            guard let v = s.intValue else {
                return record.failing(ToolError(.badInput, "An input record has a \"schema\" that is not an integer: \(shown)",
                    suggestion: "Pass records written by audio-tools, or plain paths."), tool: tool)
            }
            if v > Record.schemaVersion {
                let name = record.path.map(ToolError.quoted) ?? "An input record"
                return record.failing(ToolError(.newerSchema,
                    "\(name) comes from a newer audio-tools (record schema \(v); this build reads up to \(Record.schemaVersion)).",
                    suggestion: "Run the same version of audio-tools at every stage of the pipeline, or upgrade this one."), tool: tool)
            }
        }
        guard record.path != nil else {
            let what = o["path"] == nil ? "has no \"path\"" : "has a \"path\" that is not a string"
            return record.failing(ToolError(.badInput, "An input record \(what): \(shown)",
                suggestion: "Give each record a string \"path\" naming the audio file."), tool: tool)
        }
        if record.path!.utf8.contains(0) { return nulInPath(record, shown: shown, tool: tool) }
        return record
    }

    /// A path with a NUL in it names no file (the system would read it only up to the NUL, a
    /// different file): the record is refused rather than cut short.
    package static func nulInPath(_ record: Record, shown: String, tool: String) -> Record {
        record.failing(ToolError(.badInput, "An input path contains a NUL character, which no file name can hold: \(shown)",
            suggestion: "Give each path without the NUL (\\u0000), one path or record per line (find without -print0); a path cut at the NUL would name another file."), tool: tool)
    }

    /// `s` for a message: a NUL shown as `\0`, at most 80 characters.
    package static func visible(_ s: String) -> String {
        let v = s.replacingOccurrences(of: "\u{0}", with: "\\0")
        return v.count > 80 ? String(v.prefix(77)) + "..." : v
    }

    /// `line.trimmingCharacters(in: .whitespacesAndNewlines)`, without Foundation when both ends
    /// are ASCII (a record's line: Foundation's trim costs more than parsing it); Foundation's
    /// answer whenever a byte past the ASCII spaces at either end is not ASCII.
    package static func trimmedOfSpace(_ line: String) -> String {
        let u = line.utf8
        func space(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        var from = u.startIndex, to = u.endIndex
        while from < to, space(u[from]) { from = u.index(after: from) }
        while from < to, space(u[u.index(before: to)]) { to = u.index(before: to) }
        if from < to, u[from] >= 0x80 || u[u.index(before: to)] >= 0x80 {
            return line.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return from == u.startIndex && to == u.endIndex ? line : String(line[from..<to])
    }
}
