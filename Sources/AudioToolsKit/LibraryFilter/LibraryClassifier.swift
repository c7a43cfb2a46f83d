import AudioIO
import Foundation
import JSONValue
import ToolRunner

/// library-filter's judgement of one input item: skipped by name, or a song, probed (through the
/// cache) unless its record already carries a current `probe`, checked against the constraints,
/// and given `library` {usable, id, reason}.
package struct LibraryClassifier {
    package let constraints: LibraryConstraints
    package let deep: Bool
    package let cache: ResultCache?
    /// The tool named in the error of a file refused here.
    package let tool: String

    package func entry(for input: Record) -> LibraryEntry {
        guard let path = input.path, input.errorCode != ErrorCode.badInput.rawValue,
              input.errorCode != ErrorCode.newerSchema.rawValue else {
            return LibraryEntry(kind: .inputError, item: nil, record: input)
        }
        let name = LibraryItem.fileName(path)
        if let kind = LibrarySkipKind.classify(fileName: name) {
            return LibraryEntry(kind: .skipped(kind), item: nil, record: input)
        }
        var record = input
        var refusal: ToolError?
        var probe = input["probe"]
        var knownID: String?
        /// A cached probe (text) read straight into an item, with its content id.
        var scanned: (item: LibraryItem, contentID: String?)?
        if input.hasError {
            let e = input["error"]
            refusal = ToolError(ErrorCode(rawValue: e?["code"]?.stringValue ?? "") ?? .unreadable,
                                e?["message"]?.stringValue ?? "\(ToolError.quoted(path)) was refused by an earlier tool.",
                                suggestion: e?["suggestion"]?.stringValue ?? "Pick another file.")
        } else if !LibraryItem.isCurrent(probe, path: path) {
            // Not probed yet, or probed before the file last changed: probe it now.
            let (report, id) = ProbeCache.inspect(path: path, deep: deep, cache: cache)
            knownID = id
            if case .raw(let text)? = report.probe, let s = LibraryItem.scanned(path: path, probeText: text) {
                scanned = s
                probe = nil
            } else {
                probe = report.probe?.picking(LibraryItem.probeKeys)  // only what is read below
            }
            record["probe"] = report.probe ?? .null
            if let r = report.refusal {
                refusal = r
                record = record.failing(r, tool: tool)
            }
        }
        let id = (scanned.map { $0.contentID } ?? probe?["content_id"]?.stringValue) ?? knownID ?? AudioProbeInspector.byteID(path: path)
        var item = scanned?.item ?? LibraryItem(path: path, id: "", probe: probe)
        item.id = id ?? ""
        var reason: JSON = .null
        let outcome: LibrarySummary.Outcome
        if let r = refusal {
            outcome = .failed(r.code)
            reason = .object(["code": .string(r.code.rawValue), "message": .string(r.message), "suggestion": .string(r.suggestion)])
        } else if let v = constraints.check(item) {
            outcome = .outsideConstraints
            reason = .object(["code": .string("outside-constraints"), "message": .string(v.message), "suggestion": .string(v.suggestion)])
        } else {
            outcome = .usable
        }
        record["library"] = .object(["usable": .bool(outcome == .usable), "id": id.map { .string($0) } ?? .null, "reason": reason])
        record["schema"] = .int(Record.schemaVersion)
        return LibraryEntry(kind: .song(outcome), item: item, record: record, line: record.serialized())
    }
}
