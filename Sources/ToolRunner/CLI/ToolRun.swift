import AudioIO
import Foundation

/// The standard run of a tool, from the first input record to the exit status.
extension ToolMain {
    /// The standard loop: one output record per input record, in input order.
    public static func run<T: RecordTool>(_ type: T.Type, family: @autoclosure () -> [String], arguments: [String] = ToolMain.commandLineArguments) -> Never {
        let info = T.info
        let startup = start(type, family: family(), arguments: arguments)
        // Under a memory limit too low to start work, say so and stop, before any thread waits.
        do { try MemoryHeadroom.check("") } catch let e as ResourceFailure {
            let t = e.toolError(path: "")
            Diagnostics.warn("\(t.code.rawValue): \(t.message) \(t.suggestion)")
            exit(1)
        } catch {}
        let tool = startup.tool
        let progress = startup.progress
        let jobs = startup.jobs
        let stderrTTY = startup.stderrIsTerminal
        var failed = false
        // The reader thread runs `prepare` on each record in input order.
        // With a stage, the whole input is read ahead on its own thread and admitted to the stage
        // (records are small; the stage must know every record to know when a group is complete),
        // while the runner still decodes at most its window ahead.
        let stage = tool.stage
        let records: AnySequence<Record> = stage.map { st in
            AnySequence(InputReadAhead(startup.input, each: { st.admit($0) }, end: { st.admitEnded() }))
        } ?? AnySequence(startup.input)
        let input = records.lazy.map { (record: Record) -> Record in
            if record.hasError && !tool.processesFailedRecords { return record }
            do {
                try tool.prepare(record)
                return record
            } catch let e as ToolErrorConvertible {
                return record.failing(e.toolError(path: record.path ?? ""), tool: info.name)
            } catch {
                return record
            }
        }
        // Without a stage, a record's line is written on the worker that made it, not in the
        // one thread that writes them all out.
        func processed(_ record: Record) -> Record {
            if record.hasError && !tool.processesFailedRecords { return record }
            do {
                try MemoryHeadroom.check(record.path ?? "")
                var out = try tool.process(record)
                if !out.hasError { out["schema"] = .int(Record.schemaVersion) }
                return out
            } catch let e as ToolErrorConvertible {
                return record.failing(e.toolError(path: record.path ?? ""), tool: info.name)
            } catch {
                return record.failing(ToolError(.unreadable,
                    "\(record.path.map(ToolError.quoted) ?? "A record") could not be processed: \(error).",
                    suggestion: "Check that the file is a complete, readable audio file."), tool: info.name)
            }
        }
        let runner = OrderedRunner(jobs: jobs, window: runnerWindow(jobs: jobs)) { (record: Record) -> Finished in
            Finished(processed(record), serialize: stage == nil)
        }
        // stdout closed: end quietly; stdout failing otherwise (a full disk): say why, then end.
        let output = LineWriter(onClosed: { progress.clear(); ToolMain.stdoutFailure().map(Diagnostics.warn); exit(1) },
                                beforeWrite: progress.yieldToStdout)
        // One line on stderr for each record that failed here, so a refusal isn't silent when
        // stdout goes to a file; a record that came in failed was told about by its own stage.
        // Not with `--output -`, where the records themselves go to stderr.
        let tellFailures = !startup.options.flag("quiet")
        func write(_ out: Record, line: String? = nil) {
            if out.hasError { failed = true }
            tool.emitted(out)
            progress.step(failed: out.hasError, path: out.path)
            output.append(line ?? out.serialized())
            if tellFailures, out.hasError, !RecordDiversion.isDiverted, let l = out.failureLine(tool: info.name) {
                output.flush()  // the record first, where both go to one terminal
                progress.interject(l)
            }
        }
        runner.run(input: input, emit: { done in
            if let stage { stage.accept(done.record).forEach { write($0) } } else { write(done.record, line: done.line) }
        }, caughtUp: output.flush, inputEnded: {
            output.flush()
            stage?.ready().forEach { write($0) }
        })
        stage?.drain().forEach { write($0) }
        output.flush()
        progress.clear()
        startup.reportWalk()
        tool.inputEnded(emptyDirectories: startup.inputReport.emptyDirectories, records: startup.inputReport.records)
        let extrasPassed = tool.finish(stderrIsTerminal: stderrTTY)
        exit(SignalStop.exitStatus ?? (failed || !extrasPassed ? 1 : 0))  // a stopped --follow: 128 + the signal
    }

    /// Items read ahead of the one being written: enough that results which come back in
    /// microseconds (cache hits) don't leave the threads waiting on each other, few enough that
    /// memory stays small (a path in, a record of a kilobyte or two out). With 16, a warm run
    /// over 100,000 files switched threads 56,000 times; with 256, 9,000, in half the time.
    public static func runnerWindow(jobs: Int) -> Int { max(256, jobs * 64) }

    /// A processed record, and its line when the worker wrote it already.
    package struct Finished {
        package var record: Record
        package var line: String?
        package init(_ record: Record, serialize: Bool) {
            self.record = record
            line = serialize ? record.serialized() : nil
        }
    }
}
