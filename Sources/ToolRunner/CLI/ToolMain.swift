import AudioIO
import Foundation

/// Runs a RecordTool: parses the command line, streams input records through `process` on
/// `--jobs` threads, writes results to stdout in input order, and exits with the contract's
/// status (0 all good, 1 a record or gate failed or stdout closed, 2 usage error). This file is
/// the start and the exits; the loop is in ToolRun. It knows no tool: each run is handed the
/// names of the whole family (for the man pages' SEE ALSO and the records page).
public enum ToolMain {
    /// What every run starts with, whatever its loop: the parsed command line, the tool, the
    /// number of jobs and the progress line. `--help`, `--version` and usage errors end here.
    public struct Startup<T: RecordTool> {
        public let options: ParsedOptions
        public let tool: T
        public let jobs: Int
        public let stderrIsTerminal: Bool
        package let progress: Progress
        /// What the directory walks of this run left out.
        public let walkTally = WalkTally()
        /// What the input held, complete once `input` has been read to its end.
        public let inputReport = InputReport()

        /// Input records from the path arguments or stdin, with the tool's hidden-file rule; the
        /// walks leave out what is plainly not audio, counted in `walkTally`.
        public var input: InputRecords {
            InputRecords(paths: options.paths, tool: T.info.name, includeHidden: { [tool] in tool.includeHidden(name: $0) },
                         tally: walkTally, report: inputReport)
        }

        /// Writes the one stderr line saying what the walks left out, if they left out anything;
        /// without `byName`, leaving out the files skipped by name (counted elsewhere).
        public func reportWalk(byName: Bool = true) {
            if let s = walkTally.sentence(byName: byName) { Diagnostics.warn(s) }
        }

        /// Reports one emitted record on the progress line.
        public func step(failed: Bool, path: String?) { progress.step(failed: failed, path: path) }
        /// Clears the progress line before final output on stderr.
        public func clearProgress() { progress.clear() }
    }

    /// `family`: the names of all the tools, this one included; worked out only for the pages
    /// that name them (every tool's description is built for it, which a run doesn't need).
    public static func start<T: RecordTool>(_ type: T.Type, family: @autoclosure () -> [String], arguments: [String] = ToolMain.commandLineArguments) -> Startup<T> {
        let info = T.info
        Diagnostics.toolName = info.name
        // Hours of a measurement's history go to unlinked temporary files, not memory.
        TemporarySpillFile.install()
        // What a decoding library prints by itself is said once per file, with the tool's prefix.
        LibraryMessages.sink = { path, text in Diagnostics.warn("\(ToolError.quoted(path)): the decoding library said: \(text)") }
        signal(SIGPIPE, SIG_IGN)
        // A parent that blocks SIGINT/SIGTERM/SIGHUP (a test runner) must not leave this run
        // deaf to them: unblocked on the main thread before any worker starts (threads inherit it).
        var stops = sigset_t()
        sigemptyset(&stops)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stops, s) }
        pthread_sigmask(SIG_UNBLOCK, &stops, nil)
        do {
            let parsed = try ParsedOptions.parse(arguments, specs: info.options + HelpText.common)
            if parsed.flag("help") { writeStdout(HelpText.render(info)); exit(0) }
            try generate(info, parsed, family: family)
            if parsed.flag("version") { writeStdout(info.name + " (" + HelpText.version + ")\n"); exit(0) }
            if parsed.paths.isEmpty, isatty(0) != 0 {
                // An option may be a whole job by itself (`--cache-prune`): nothing to read.
                T.withoutInput(parsed)
                throw UsageError(info.noInputMessage)
            }
            if parsed.paths.contains("-"), isatty(0) != 0 { throw UsageError(StandardInputArgument.terminalMessage) }
            let tool = try T(options: parsed)
            // The init checked what it reads in its own order; anything declared it left out is
            // still enforced here.
            try parsed.validate(requirements: info.requirements)
            let jobs = try parsed.jobs()
            let stderrTTY = isatty(2) != 0
            let progress = Progress(enabled: !parsed.flag("no-progress") && (parsed.flag("progress") || stderrTTY),
                                    terminal: stderrTTY, sharesTerminalWithStdout: Progress.stdoutSharesTerminalWithStderr(),
                                    tool: info.name)
            return Startup(options: parsed, tool: tool, jobs: jobs, stderrIsTerminal: stderrTTY, progress: progress)
        } catch let e as UsageError {
            usageFailure(info, e.message)
        } catch {
            usageFailure(info, "\(error)")
        }
    }

    /// The packaging outputs (`--generate-man`, `--generate-completion SHELL`,
    /// `--generate-records-man FILE`): written to stdout, then the tool exits.
    package static func generate(_ info: ToolInfo, _ parsed: ParsedOptions, family: () -> [String]) throws {
        if parsed.flag("generate-man") {
            writeStdout(ManPage.tool(info, others: family())); exit(0)
        }
        if let shell = try parsed.choice("generate-completion") {
            writeStdout(ShellCompletion.script(shell, for: info)!); exit(0)
        }
        if let path = parsed.string("generate-records-man") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("--generate-records-man: \(ToolError.quoted(path)) can't be read; give the path of docs/records.md.")
            }
            writeStdout(ManPage.records(markdown: String(decoding: data, as: UTF8.self), tools: family())); exit(0)
        }
    }

    /// The arguments after the program name, read as bytes so a path that isn't UTF-8 keeps
    /// its bytes (escaped as PathBytes describes); CommandLine.arguments would replace them.
    public static var commandLineArguments: [String] {
        let argv = CommandLine.unsafeArgv
        return (1..<Int(CommandLine.argc)).compactMap { argv[$0].map { PathBytes.string(cString: UnsafePointer($0)) } }
    }

    public static func usageFailure(_ info: ToolInfo, _ message: String) -> Never {
        Diagnostics.write("\(info.name): error: \(message)\n\(HelpText.usageLine(info))\n  See '\(info.name) --help' for more information.\n")
        exit(2)
    }

    /// Why the last write to stdout failed (EPIPE: the reader is gone, as with `| head`).
    nonisolated(unsafe) public static var stdoutErrno: Int32 = 0

    /// The sentence for a stdout that failed for another reason than a reader that left (a full
    /// disk, /dev/full, an I/O error): nil for EPIPE, which ends a run quietly.
    public static func stdoutFailure() -> String? {
        guard stdoutErrno != EPIPE, stdoutErrno != 0 else { return nil }
        return "can't write the records to standard output: \(String(cString: strerror(stdoutErrno))); the run stopped there."
    }

    /// Writes all of `text` to stdout; false when stdout is closed or failing.
    @discardableResult
    public static func writeStdout(_ text: String) -> Bool {
        var t = text
        return t.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(1, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; stdoutErrno = errno; return false }
                if n == 0 { stdoutErrno = EPIPE; return false }
                off += n
            }
            return true
        }
    }
}
