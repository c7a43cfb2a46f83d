import Foundation

/// Runs a RecordTool: parses the command line, streams input records through `process` on
/// `--jobs` threads, writes results to stdout in input order, and exits with the contract's
/// status (0 all good, 1 a record or gate failed or stdout closed, 2 usage error).
public enum ToolMain {
    /// What every run starts with, whatever its loop: the parsed command line, the tool, the
    /// number of jobs and the progress line. `--help`, `--version` and usage errors end here.
    public struct Startup<T: RecordTool> {
        public let options: ParsedOptions
        public let tool: T
        public let jobs: Int
        public let stderrIsTerminal: Bool
        let progress: Progress
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

    public static func start<T: RecordTool>(_ type: T.Type, arguments: [String] = ToolMain.commandLineArguments) -> Startup<T> {
        let info = T.info
        Diagnostics.toolName = info.name
        signal(SIGPIPE, SIG_IGN)
        do {
            let parsed = try ParsedOptions.parse(arguments, specs: info.options + HelpText.common)
            if parsed.flag("help") { writeStdout(HelpText.render(info)); exit(0) }
            try generate(info, parsed)
            if parsed.flag("version") { writeStdout(info.name + " (" + HelpText.version + ")\n"); exit(0) }
            if parsed.paths.isEmpty, isatty(0) != 0 {
                // `--cache-prune` alone is a whole job: nothing to read, only the cache to tidy.
                if parsed.flag("cache-prune") { CacheOptions.pruneOnly(parsed) }
                throw UsageError(info.noInputMessage)
            }
            let tool = try T(options: parsed)
            let jobs = try parsed.jobs()
            let stderrTTY = isatty(2) != 0
            let progress = Progress(enabled: !parsed.flag("no-progress") && (parsed.flag("progress") || stderrTTY),
                                    terminal: stderrTTY, tool: info.name)
            return Startup(options: parsed, tool: tool, jobs: jobs, stderrIsTerminal: stderrTTY, progress: progress)
        } catch let e as UsageError {
            usageFailure(info, e.message)
        } catch {
            usageFailure(info, "\(error)")
        }
    }

    /// The standard loop: one output record per input record, in input order.
    public static func run<T: RecordTool>(_ type: T.Type, arguments: [String] = ToolMain.commandLineArguments) -> Never {
        let info = T.info
        let startup = start(type, arguments: arguments)
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
            } catch let e as ToolError {
                return record.failing(e, tool: info.name)
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
                var out = try tool.process(record)
                if !out.hasError { out["schema"] = .int(Record.schemaVersion) }
                return out
            } catch let e as ToolError {
                return record.failing(e, tool: info.name)
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
        let output = LineWriter(onClosed: { progress.clear(); exit(1) })  // stdout closed: end quietly
        func write(_ out: Record, line: String? = nil) {
            if out.hasError { failed = true }
            tool.emitted(out)
            progress.step(failed: out.hasError, path: out.path)
            output.append(line ?? out.serialized())
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
        exit(failed || !extrasPassed ? 1 : 0)
    }

    /// Items read ahead of the one being written: enough that results which come back in
    /// microseconds (cache hits) don't leave the threads waiting on each other, few enough that
    /// memory stays small (a path in, a record of a kilobyte or two out). With 16, a warm run
    /// over 100,000 files switched threads 56,000 times; with 256, 9,000, in half the time.
    public static func runnerWindow(jobs: Int) -> Int { max(256, jobs * 64) }

    /// A processed record, and its line when the worker wrote it already.
    struct Finished {
        var record: Record
        var line: String?
        init(_ record: Record, serialize: Bool) {
            self.record = record
            line = serialize ? record.serialized() : nil
        }
    }

    /// The packaging outputs (`--generate-man`, `--generate-completion SHELL`,
    /// `--generate-records-man FILE`): written to stdout, then the tool exits.
    static func generate(_ info: ToolInfo, _ parsed: ParsedOptions) throws {
        if parsed.flag("generate-man") {
            writeStdout(ManPage.tool(info, others: ToolCatalog.names)); exit(0)
        }
        if let shell = try parsed.choice("generate-completion", ShellCompletion.shells) {
            writeStdout(ShellCompletion.script(shell, for: info)!); exit(0)
        }
        if let path = parsed.string("generate-records-man") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("--generate-records-man: \(ToolError.quoted(path)) can't be read; give the path of docs/records.md.")
            }
            writeStdout(ManPage.records(markdown: String(decoding: data, as: UTF8.self), tools: ToolCatalog.names)); exit(0)
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

    /// Writes all of `text` to stdout; false when stdout is closed or failing.
    @discardableResult
    public static func writeStdout(_ text: String) -> Bool {
        var t = text
        return t.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(1, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                if n == 0 { return false }
                off += n
            }
            return true
        }
    }
}

/// Processes items on `jobs` threads while reading input lazily, and hands results to `emit`
/// on the calling thread in input order. At most `window` items are read but not yet emitted,
/// so memory stays bounded however long the input is.
///
/// One mutex guards the state and three conditions say what changed, so each thread is woken only
/// for what it waits on (the reader for room, a worker for an item, the caller for the next result
/// in order). Results that come back in microseconds (cache hits) are not handed over one wake-up
/// each: the reader refills the window from half empty, and while results come quickly the caller
/// looks for them every millisecond (or when half the window is done) and takes all that are ready.
/// A slow item's result is handed over at once.
public final class OrderedRunner<Item, Output> {
    private let jobs: Int
    private let window: Int
    private let work: (Item) -> Output
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let itemReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let resultReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [(Int, Item)] = []
    private var queueHead = 0
    private var results: [Int: Output] = [:]
    private var inFlight = 0
    private var readCount = 0
    private var inputDone = false
    /// The sequence number the caller waits for next.
    private var nextToEmit = 0

    public init(jobs: Int, window: Int, work: @escaping (Item) -> Output) {
        self.jobs = max(1, jobs)
        self.window = max(window, self.jobs)
        self.work = work
        // Adaptive: a thread finding the mutex held spins briefly before sleeping. Every thread
        // takes it once or twice per item, and items from a cache take microseconds.
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
        for c in [room, itemReady, resultReady] { pthread_cond_init(c, nil) }
    }

    deinit {
        pthread_mutex_destroy(mutex)
        for c in [room, itemReady, resultReady] { pthread_cond_destroy(c); c.deallocate() }
        mutex.deallocate()
    }

    /// Workers waiting for an item, whether the reader waits for room, whether the caller is
    /// polling for results (all under the mutex): so nobody is woken for nothing.
    private var idleWorkers = 0
    private var readerWaiting = false
    private var callerPolling = false
    /// An item done in less than this is quick: its result needn't wake the caller at once.
    static var quickNanoseconds: UInt64 { 200_000 }
    /// How often the caller looks for results while they come quickly.
    static var pollNanoseconds: UInt64 { 1_000_000 }

    private func lock() { pthread_mutex_lock(mutex) }
    private func unlock() { pthread_mutex_unlock(mutex) }

    /// `inputEnded` is called once on the calling thread, between two `emit`s, soon after the
    /// last input item has been read; `caughtUp` after each run of `emit`s, when the next result
    /// isn't ready yet (the moment to flush what they wrote).
    public func run<S: Sequence>(input: S, emit: (Output) -> Void, caughtUp: () -> Void = {}, inputEnded: () -> Void = {}) where S.Element == Item {
        let reader = Thread { [self] in
            var it = input.makeIterator()
            while true {
                lock()
                // A full window is refilled from half full, not one item per emitted one.
                if inFlight >= window {
                    readerWaiting = true
                    while inFlight > window / 2 { pthread_cond_wait(room, mutex) }
                    readerWaiting = false
                }
                unlock()
                let next = it.next()
                lock()
                if let item = next {
                    queue.append((readCount, item))
                    readCount += 1
                    inFlight += 1
                    if idleWorkers > 0 { pthread_cond_signal(itemReady) }
                } else {
                    inputDone = true
                    pthread_cond_broadcast(itemReady)
                    pthread_cond_signal(resultReady)
                }
                unlock()
                if next == nil { return }
            }
        }
        reader.stackSize = 1 << 22
        reader.start()
        for _ in 0..<jobs {
            let t = Thread { [self] in
                while true {
                    lock()
                    if queueHead >= queue.count && !inputDone {
                        // Going idle: what is ready goes out now rather than at the next poll.
                        if results[nextToEmit] != nil { pthread_cond_signal(resultReady) }
                        idleWorkers += 1
                        while queueHead >= queue.count && !inputDone { pthread_cond_wait(itemReady, mutex) }
                        idleWorkers -= 1
                    }
                    if queueHead >= queue.count {
                        if results[nextToEmit] != nil { pthread_cond_signal(resultReady) }
                        unlock()
                        return
                    }
                    let (seq, item) = queue[queueHead]
                    queueHead += 1
                    if queueHead > 64, queueHead * 2 > queue.count {
                        queue.removeFirst(queueHead); queueHead = 0
                    }
                    unlock()
                    let start = Clock.monotonicNanoseconds()
                    let out = work(item)
                    let slow = Clock.monotonicNanoseconds() - start >= Self.quickNanoseconds
                    lock()
                    results[seq] = out
                    // A quick result waits for the caller's next look (it polls while results come
                    // quickly) unless half the window is done; a slow one is handed over at once.
                    if results[nextToEmit] != nil, slow || !callerPolling || results.count >= window / 2 {
                        pthread_cond_signal(resultReady)
                    }
                    unlock()
                }
            }
            t.stackSize = 1 << 23
            t.start()
        }
        var ready: [Output] = []
        var endReported = false
        var poll = false
        while true {
            lock()
            while results[nextToEmit] == nil && !(inputDone && nextToEmit == readCount) && !(inputDone && !endReported) {
                if poll {
                    // Results have been coming quickly: look again in a millisecond instead of
                    // being woken for each. A look that finds nothing ends the polling.
                    callerPolling = true
                    var deadline = timespec()
                    clock_gettime(CLOCK_REALTIME, &deadline)
                    deadline.tv_nsec += Int(Self.pollNanoseconds)
                    if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
                    let timedOut = pthread_cond_timedwait(resultReady, mutex, &deadline) == ETIMEDOUT
                    callerPolling = false
                    if timedOut && results[nextToEmit] == nil { poll = false }
                } else {
                    pthread_cond_wait(resultReady, mutex)
                }
            }
            if inputDone && !endReported {
                endReported = true
                unlock()
                inputEnded()
                continue
            }
            while let out = results.removeValue(forKey: nextToEmit) {
                ready.append(out)
                nextToEmit += 1
            }
            unlock()
            if ready.isEmpty { break }
            poll = true
            for out in ready { emit(out) }
            // Room is made only once they are written: the window bounds what is read but not yet emitted.
            lock()
            inFlight -= ready.count
            if readerWaiting && inFlight <= window / 2 { pthread_cond_signal(room) }
            let more = results[nextToEmit] != nil
            unlock()
            if !more { caughtUp() }
            ready.removeAll(keepingCapacity: true)
        }
    }
}

/// Buffers stdout lines and writes them in one go at `flush` (or once 64 KiB have gathered): one
/// system call per batch of ready records instead of one per record. `onClosed` runs when stdout
/// is closed or failing.
final class LineWriter {
    private var pending = ""
    private let onClosed: () -> Void

    init(onClosed: @escaping () -> Void) {
        self.onClosed = onClosed
        pending.reserveCapacity(1 << 16)
    }

    func append(_ line: String) {
        pending += line
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !pending.isEmpty else { return }
        if !ToolMain.writeStdout(pending) { onClosed() }
        pending.removeAll(keepingCapacity: true)
    }
}

/// Reads a sequence to its end on its own thread as fast as it yields, calling `each` on every
/// element there (in order) and `end` after the last; iterating hands the elements over in order,
/// waiting when the reader is behind. The thread ends when the input does.
final class InputReadAhead<Base: Sequence>: Sequence, IteratorProtocol {
    private let cond = NSCondition()
    private var buffer: [Base.Element] = []
    private var head = 0
    private var done = false

    init(_ base: Base, each: @escaping (Base.Element) -> Void, end: @escaping () -> Void) {
        let t = Thread { [self] in
            for element in base {
                each(element)
                cond.lock(); buffer.append(element); cond.signal(); cond.unlock()
            }
            end()
            cond.lock(); done = true; cond.broadcast(); cond.unlock()
        }
        t.stackSize = 1 << 22
        t.start()
    }

    func next() -> Base.Element? {
        cond.lock(); defer { cond.unlock() }
        while head >= buffer.count && !done { cond.wait() }
        guard head < buffer.count else { return nil }
        let e = buffer[head]
        head += 1
        if head > 1024, head * 2 > buffer.count { buffer.removeFirst(head); head = 0 }
        return e
    }
}

/// A one-line progress report on stderr: rewritten in place on a terminal, otherwise a line at
/// most every two seconds.
final class Progress {
    private let enabled: Bool
    private let terminal: Bool
    private let tool: String
    private var done = 0
    private var failed = 0
    private var last = Date.distantPast
    private var shown = false

    init(enabled: Bool, terminal: Bool, tool: String) {
        self.enabled = enabled; self.terminal = terminal; self.tool = tool
    }

    func step(failed f: Bool, path: String?) {
        guard enabled else { return }
        done += 1
        if f { failed += 1 }
        let now = Date()
        guard now.timeIntervalSince(last) >= (terminal ? 0.1 : 2) else { return }
        last = now
        let name = path.map { String($0.split(separator: "/").last ?? "") } ?? ""
        let text = "\(tool): \(done) done, \(failed) failed\(name.isEmpty ? "" : " — \(name)")"
        if terminal { Diagnostics.write("\r\u{1B}[K" + text); shown = true } else { Diagnostics.write(text + "\n") }
    }

    func clear() {
        guard enabled else { return }
        if terminal, shown { Diagnostics.write("\r\u{1B}[K"); shown = false }
        if !terminal, done > 0 { Diagnostics.write("\(tool): \(done) done, \(failed) failed\n"); done = 0 }
    }
}
