import Foundation
import ToolRunner

extension ReportFolderError {
    /// The usage error for a --report folder that can't be used.
    package var usage: UsageError { usage(option: "report", holding: "the report") }

    /// The usage error for the folder option `--option` (which holds `holding`) that can't be used.
    package func usage(option: String, holding: String) -> UsageError {
        switch self {
        case .notAFolder(let d):
            return UsageError("--\(option): \(ToolError.quoted(d)) exists and is not a folder; give a folder for \(holding) (it is created when missing).")
        case .cantCreate(let d, let reason):
            return UsageError("--\(option): the folder \(ToolError.quoted(d)) can't be created (\(reason)); check the parent folder is writable.")
        case .notWritable(let d):
            return UsageError("--\(option): the folder \(ToolError.quoted(d)) is not writable; choose another folder.")
        }
    }
}

extension LoudnessReportWriter {
    /// The writer for `--report DIR`, warning on stderr; a folder that can't be used is a usage error.
    package static func forOption(_ directory: String, title: String, gate: String?) throws -> LoudnessReportWriter {
        do { return try LoudnessReportWriter(directory: directory, title: title, gate: gate, warn: { Diagnostics.warn($0) }) }
        catch { throw error.usage }
    }
}
