import AudioIO
import Foundation

/// The error codes of the record contract; the raw value is what a record carries.
public enum ErrorCode: String, CaseIterable, Sendable {
    case badInput = "bad-input"
    case newerSchema = "newer-schema"
    case notFound = "not-found"
    case notAFile = "not-a-file"
    case unreadable
    case empty
    case unrecognised
    case noAudio = "no-audio"
    case protected
    case cloudOnly = "cloud-only"
    case unsupportedCodec = "unsupported-codec"
    case malformed
    case truncated
    case nonFiniteSamples = "non-finite-samples"
    case staleMeasurement = "stale-measurement"
    case offTarget = "off-target"
    case tooLarge = "too-large"
    case lossy
    case exists
    case readOnly = "read-only"
    case writeFailed = "write-failed"
    case diskFull = "disk-full"
    case noMemory = "no-memory"
    case tooManyFiles = "too-many-files"
    case cannotStart = "cannot-start"
    case noBleed = "no-bleed"
    case lowConfidence = "low-confidence"
    case latencyMismatch = "latency-mismatch"
}

/// A refusal a person can act on: `message` names the file and says why, `suggestion` says what
/// to do instead (never "try again").
public struct ToolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var suggestion: String

    public init(_ code: ErrorCode, _ message: String, suggestion: String) {
        self.code = code
        self.message = message
        self.suggestion = suggestion
    }

    public var description: String { "\(message) \(suggestion)" }

    /// The file's name in curly quotes, as messages show it: `“holiday.mov”`.
    public static func quoted(_ path: String) -> String {
        PathBytes.quotedName(path)
    }
}

/// A capability's typed error (decode, layout, gain plan, alignment...) that the tool boundary
/// can say to a person. Capabilities throw facts; the conformances, which hold every sentence,
/// live in Tools/Errors/, and ToolMain applies them to the failing record's path.
public protocol ToolErrorConvertible: Error {
    /// The record's error for this failure of the file at `path`.
    func toolError(path: String) -> ToolError
}

/// A refusal already worded is its own sentence, so one `catch` takes both kinds.
extension ToolError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError { self }
}
