import AudioIO
import Foundation

/// What a tool tells ToolMain about itself: name, help text and its own options.
public struct ToolInfo: Sendable {
    public var name: String
    /// The record key this tool adds (`loudness`, `probe`, ...).
    public var key: String
    public var abstract: String
    public var discussion: String
    public var options: [OptionSpec]
    public var examples: [String]
    /// Extra lines for the EXIT STATUS section (status 1 meanings beyond failed records).
    public var exitNotes: String
    /// The EXIT STATUS and output sections in full, for a tool whose statuses differ from the
    /// per-record rule (library-filter); nil for the standard text.
    public var exitStatusText: String?
    /// The usage error for running with no paths and a terminal on stdin.
    public var noInputMessage: String
    /// What the command line must hold whatever the options (checked after the values, before
    /// the options' own rules).
    public var requirements: [OptionRequirement]

    public init(name: String, key: String, abstract: String, discussion: String = "",
                options: [OptionSpec], examples: [String] = [], exitNotes: String = "",
                exitStatusText: String? = nil,
                noInputMessage: String = "No input: give audio files or directories, or pipe records or paths into standard input.",
                requirements: [OptionRequirement] = []) {
        self.name = name; self.key = key; self.abstract = abstract; self.discussion = discussion
        self.options = options; self.examples = examples; self.exitNotes = exitNotes
        self.exitStatusText = exitStatusText; self.noInputMessage = noInputMessage
        self.requirements = requirements
    }
}

/// A tool: it declares itself and turns one record into one record. Reading input, walking
/// directories, passing errors through, --jobs, ordering, progress and exit status are ToolMain's.
/// `process` is called from several threads at once.
public protocol RecordTool: AnyObject {
    static var info: ToolInfo { get }
    /// Reads the options: values are checked against their declarations as they are read, and
    /// the init places the declared rules' checks (`checkRules`), so the order in which errors
    /// are found is the init's; throw UsageError for what depends on the values themselves.
    init(options: ParsedOptions) throws
    /// Run with no paths and a terminal on stdin, before the usage error that follows: for an
    /// option that is a whole job by itself (`--cache-prune`); it may exit. Default: nothing.
    static func withoutInput(_ options: ParsedOptions)
    /// Called for each record serially, in input order, before it is handed to `process` on a
    /// worker thread: for decisions that must not depend on thread timing (lufs-normalize claims
    /// output paths here, so the first of two colliding inputs always wins). Throw to refuse.
    func prepare(_ record: Record) throws
    /// Adds the tool's key to `record`; throws ToolError to refuse it.
    func process(_ record: Record) throws -> Record
    /// Called once per output record, serially and in output order (for summaries and reports).
    func emitted(_ record: Record)
    /// Called after the last record is emitted and before `finish`, with the directory arguments
    /// that yielded no input and the number of input records. Default: a warning on stderr for
    /// each such folder (a gate treats it as a failure instead).
    func inputEnded(emptyDirectories: [String], records: Int)
    /// Called after the last record; returns false when something beyond the records failed
    /// (a gate), which makes the exit status 1.
    func finish(stderrIsTerminal: Bool) -> Bool
    /// Whether the directory walk should yield this hidden entry (default: none).
    func includeHidden(name: String) -> Bool
    /// A record that came in already carrying an error is passed through untouched unless this
    /// returns true (library-filter reports such records in its summary).
    var processesFailedRecords: Bool { get }
    /// A stage between `process` and standard output, for a run whose records depend on other
    /// records (default: none, each record is written as soon as its turn comes).
    var stage: RecordStage? { get }
}

/// Holds processed records back until what they depend on is known (lufs-measure --album writes
/// an album's records when its last track is measured). With a stage, ToolMain reads the whole
/// input ahead on a thread of its own and shows the stage every record there (`admit`, input
/// order, failed records included; then `admitEnded`), while decoding stays within the usual
/// window. Each processed record is handed over again (`accept`: the writing thread, input
/// order); the stage returns the records now ready, in input order, and ToolMain writes exactly
/// those. Records it holds do not count against the window, so the work keeps flowing.
public protocol RecordStage: AnyObject {
    func admit(_ record: Record)
    /// Every input record has been admitted (some may still be processing).
    func admitEnded()
    func accept(_ record: Record) -> [Record]
    /// The writing thread asks for what is ready without handing a record over (after the
    /// runner's input has ended).
    func ready() -> [Record]
    /// After the last `accept`: whatever is still held, in input order.
    func drain() -> [Record]
}

extension RecordTool {
    public static func withoutInput(_ options: ParsedOptions) {}
    public func prepare(_ record: Record) throws {}
    public func emitted(_ record: Record) {}
    public func inputEnded(emptyDirectories: [String], records: Int) {
        for d in emptyDirectories { Diagnostics.warn(InputReport.noAudioMessage(d)) }
    }
    public func finish(stderrIsTerminal: Bool) -> Bool { true }
    public func includeHidden(name: String) -> Bool { false }
    public var processesFailedRecords: Bool { false }
    public var stage: RecordStage? { nil }
}

/// Diagnostics on stderr, prefixed with the tool's name (stdout carries records only).
public enum Diagnostics {
    nonisolated(unsafe) public static var toolName = "audio-tools"
    /// The lock a library's stderr is caught under, so no line of the tool's is caught with it.
    private static var lock: NSLock { LibraryMessages.stderrLock }

    public static func warn(_ message: String) {
        write("\(toolName): \(message)\n")
    }

    public static func write(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        var t = text
        t.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(2, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { if errno == EINTR { continue }; return }
                off += n
            }
        }
    }
}
