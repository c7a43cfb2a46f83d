import Foundation

/// library-filter: from a music library, only what can really be used. Reads records (from
/// audio-probe, or bare paths, which it probes with the same routine) or walks folders, and
/// writes the usable songs with `library` {usable, id, reason}; searches, sorts, pages, and
/// resolves stable ids back to current paths. Unlike the other tools it drops records (the
/// unusable ones, the non-songs) and orders its output, so it runs its own loop around ToolMain's parts.
public final class LibraryFilter: RecordTool {
    public static let info = ToolInfo(
        name: "library-filter", key: "library",
        abstract: "Keep only the songs of a music library that can really be used, with search, sort, paging and stable ids.",
        discussion: "Input is records from audio-probe, bare paths, or folders to walk (iCloud placeholders .Name.m4a.icloud included). Files are probed unless the record already carries a current `probe`. Protected, cloud-only, broken, silent-video and undecodable files are dropped (written with their reason under --all); cover art, playlists, cue sheets and text are skipped by name and counted. Sorting and paging need every usable song before the first line can be written, so output starts when the input ends. A one-sentence summary goes to stderr at the end. Exit status is 0 when the run worked, even if files were filtered out: that is the tool's job.",
        options: [
            .flag("all", help: "Also write the unusable songs, with library.usable false and the reason (and the probe's error)."),
            .value("query", "QUERY", help: "Keep songs matching QUERY: bare words search title, artist, album and genre; field:text, field:A..B ranges, -term negates; all terms apply. Fields: title, artist, album, genre, year, track, duration, format, codec, sample_rate, channels, bit_depth, path, size."),
            .value("sort", "FIELDS", help: "Order by field[+|-][,field...] (default: mtime-, the most recently modified first)."),
            .whole("offset", "N", help: "Skip the first N songs of the sorted listing."),
            .whole("limit", "N", help: "Write at most N songs."),
            .value("page-info", "FILE", help: "Write {offset, limit, returned, total, has_more, next_offset} as JSON to FILE (atomically), for a picker that pages."),
            .value("get", "ID", help: "Write only the song with this library.id, found wherever it now is in the folders given; repeatable. An id that is gone gets an error record.", repeatable: true,
                   rules: [.conflicts("query", "offset", "limit", "page-info", message: "--get finds songs by id and can't be combined with --{other}.")]),
            .number("min-duration", "SECONDS", help: "Songs shorter than this are unusable."),
            .number("max-duration", "SECONDS", help: "Songs longer than this are unusable."),
            .whole("min-sample-rate", "HZ", help: "Songs at a lower sample rate are unusable."),
            .whole("channels", "N", help: "Only songs with exactly N channels are usable."),
            .flag("deep", help: "Probe by decoding every frame, not only the first and last second (slower; finds damage in between)."),
            .flag("no-summary", help: "Don't print the summary sentence on stderr."),
        ] + CacheOptions.specs,
        examples: [
            "library-filter ~/Music",
            "audio-probe ~/Music | library-filter --all | jq -c 'select(.library.usable | not) | [.path, .library.reason.code]'",
            "library-filter --query 'artist:miles year:1955..1965 -genre:live' --sort year,album,track ~/Music",
            "library-filter --sort title --offset 50 --limit 50 --page-info page.json ~/Music",
            "library-filter --get 3f2a9c0d1e8b7a6c5d4e3f21 ~/Music ~/Backup/Music",
            "library-filter --cache ~/.cache/audio-tools.sqlite --sort artist,album,track ~/Music   # probes only what changed",
        ],
        exitStatusText: """
            EXIT STATUS:
              0  the run worked (unusable songs left out, or written with --all, are not failures)
              1  an input line was not a record, a --get id is gone, --page-info couldn't be written, or stdout closed early
              2  usage error (bad option or value, a query or sort that can't be understood); nothing is written to stdout

            Output is the usable songs' records, keys sorted, with `library` added; the summary sentence goes to stderr.

            """,
        noInputMessage: "No input: give music folders or files, or pipe audio-probe records or paths into standard input.")

    let includeUnusable: Bool
    let query: LibraryQuery
    let sort: LibrarySort
    let page: LibraryPage
    let pageInfoPath: String?
    let getIDs: [String]
    let constraints: LibraryConstraints
    let deep: Bool
    let printSummary: Bool
    let options: ParsedOptions
    let cache: ResultCache?

    public init(options o: ParsedOptions) throws {
        includeUnusable = o.flag("all")
        deep = o.flag("deep")
        printSummary = !o.flag("no-summary")
        do {
            query = try LibraryQuery.parse(o.string("query") ?? "")
        } catch let e as LibraryParseError {
            throw UsageError("--query: \(e.message). \(e.suggestion)")
        }
        do {
            sort = try LibrarySort.parse(o.string("sort") ?? "")
        } catch let e as LibraryParseError {
            throw UsageError("--sort: \(e.message). \(e.suggestion)")
        }
        let offset = try o.int("offset") ?? 0
        let limit = try o.int("limit")
        do {
            page = try LibraryPage.validated(offset: offset, limit: limit)
        } catch let e as ToolError { throw UsageError("\(e.message) \(e.suggestion)") }
        pageInfoPath = o.string("page-info")
        let c = LibraryConstraints(minDuration: try o.double("min-duration"), maxDuration: try o.double("max-duration"),
                                   minSampleRate: try o.int("min-sample-rate"), channels: try o.int("channels"))
        do { try c.validate() } catch let e as ToolError { throw UsageError("\(e.message) \(e.suggestion)") }
        constraints = c
        var ids: [String] = []
        for raw in o.strings("get") {
            let id = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard id.count == ContentID.hexLength, id.allSatisfy({ $0.isHexDigit }) else {
                throw UsageError("--get: '\(raw)' is not a library id (\(ContentID.hexLength) hex digits, as library.id shows).")
            }
            if !ids.contains(id) { ids.append(id) }
        }
        getIDs = ids
        try o.checkRules("get")
        options = o
        cache = try CacheOptions.open(o)
    }

    /// `--cache-prune` alone prunes the cache.
    public static func withoutInput(_ options: ParsedOptions) { CacheOptions.withoutInput(options) }

    /// What became of one input item, computed on a worker thread.
    struct Entry {
        enum Kind {
            /// A line that isn't a usable record (bad JSON, newer schema): written as it is.
            case inputError
            case skipped(LibrarySkipKind)
            case song(LibrarySummary.Outcome)
        }
        var kind: Kind
        var item: LibraryItem?
        var record: Record
        /// The record's line, written on the worker (a song's only; nil otherwise).
        var line: String? = nil
        var usable: Bool { if case .song(.usable) = kind { return true }; return false }
    }

    /// iCloud placeholders stand for songs: the one kind of hidden file the walk looks at.
    public func includeHidden(name: String) -> Bool {
        LibrarySkipKind.iCloudRealName(fileName: name) != nil
    }

    /// Records refused upstream (by audio-probe) are songs too: counted, and listed under --all.
    public var processesFailedRecords: Bool { true }

    public func process(_ record: Record) throws -> Record { entry(for: record).record }

    func entry(for input: Record) -> Entry {
        guard let path = input.path, input.errorCode != ErrorCode.badInput.rawValue,
              input.errorCode != ErrorCode.newerSchema.rawValue else {
            return Entry(kind: .inputError, item: nil, record: input)
        }
        let name = LibraryItem.fileName(path)
        if let kind = LibrarySkipKind.classify(fileName: name) {
            return Entry(kind: .skipped(kind), item: nil, record: input)
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
                record = record.failing(r, tool: Self.info.name)
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
        return Entry(kind: .song(outcome), item: item, record: record, line: record.serialized())
    }

    /// The tool's run: ToolMain's option parsing, input and worker pool, then filtering, ordering
    /// and paging here, since output is a selection of the input rather than one record per line.
    public static func main(family: [String], arguments: [String] = ToolMain.commandLineArguments) -> Never {
        let startup = ToolMain.start(LibraryFilter.self, family: family, arguments: arguments)
        let tool = startup.tool
        let runner = OrderedRunner(jobs: startup.jobs, window: ToolMain.runnerWindow(jobs: startup.jobs)) { (r: Record) -> Entry in tool.entry(for: r) }
        var listing = LibraryListing(sortFields: Set(tool.sort.keys.map(\.field)))
        // `--get` with a cache: the files the index names, when it knows them all, instead of a walk.
        var input = AnySequence(startup.input)
        var fromIndex = false
        if let cache = tool.cache, let paths = LibraryIndex.locate(
            ids: tool.getIDs, roots: startup.options.paths, cache: cache,
            settings: ProbeCache.settings(deep: tool.deep), includeHidden: { tool.includeHidden(name: $0) }) {
            input = AnySequence(paths.map { Record(path: $0) })
            fromIndex = true
        }
        var failed = false
        let output = LineWriter(onClosed: { startup.clearProgress(); exit(1) })  // stdout closed: end quietly
        func write(_ line: String) {
            output.append(line)
        }
        runner.run(input: input) { entry in
            startup.step(failed: !entry.usable, path: entry.record.path)
            switch entry.kind {
            case .inputError:
                // Input that couldn't be read as a record is reported at once, as every tool does.
                failed = true
                write(entry.record.serialized())
                output.flush()
            case .skipped(let kind):
                listing.summary.count(.skipped(kind))
            case .song(let outcome):
                listing.summary.count(outcome)
                guard let item = entry.item else { return }
                let wanted = tool.getIDs.isEmpty ? tool.query.matches(item) : tool.getIDs.contains(item.id)
                if wanted && (entry.usable || tool.includeUnusable) {
                    // Per song only the sort fields are kept in memory; the finished line goes to disk.
                    listing.append(item, line: entry.line ?? entry.record.serialized())
                }
            }
        }
        startup.clearProgress()
        // What the walk skipped by name is counted in the summary sentence, as what came on stdin is.
        for (kind, n) in startup.walkTally.skippedByKind { listing.summary.skipped[kind, default: 0] += n }
        let order = tool.sort.sortedIndices(listing.items)
        if tool.getIDs.isEmpty {
            let (pageOrder, info) = tool.page.apply(to: order)
            for i in pageOrder { write(listing.lines.line(i)) }
            if let p = tool.pageInfoPath {
                do { try AtomicFile.write(info.json.serialized() + "\n", to: p) } catch {
                    Diagnostics.warn("can't write the page info to \(ToolError.quoted(p)): \(error)")
                    failed = true
                }
            }
        } else {
            for id in tool.getIDs {
                let found = order.filter { listing.items[$0].id == id }
                for i in found { write(listing.lines.line(i)) }
                if found.isEmpty {
                    failed = true
                    write(goneRecord(id: id, folders: startup.options.paths).serialized())
                }
            }
        }
        output.flush()
        CacheOptions.finish(tool.cache, options: tool.options)
        if tool.printSummary, fromIndex {
            let n = listing.items.count
            Diagnostics.warn("\(LibraryText.count(n)) \(n == 1 ? "song" : "songs") found by id in the cache's index, without walking the folders")
        } else if tool.printSummary {
            var sentence = listing.summary.sentence
            if !tool.query.isEmpty {
                sentence += "; \(LibraryText.count(listing.items.count)) \(listing.items.count == 1 ? "matches" : "match") the query"
            }
            Diagnostics.warn(sentence)
            startup.reportWalk(byName: false)
        }
        exit(failed ? 1 : 0)
    }

    /// The common help, with the exit statuses this tool really has (dropping a song isn't a failure).

    /// The error record for an id no file in the input has any more.
    static func goneRecord(id: String, folders: [String]) -> Record {
        let places = folders.filter { $0 != "-" }
        let whereText = places.isEmpty ? "the input" : places.count == 1 ? ToolError.quoted(places[0]) : "the folders given"
        let e = ToolError(.notFound, "No song with id \(id) is in \(whereText) any more.",
                          suggestion: "It may have been deleted, changed or moved outside these folders; give the folder that holds it now, or pick the song again.")
        var r = Record(["library": .object(["usable": .bool(false), "id": .string(id), "reason": .object([
            "code": .string(e.code.rawValue), "message": .string(e.message), "suggestion": .string(e.suggestion)])])])
        r = r.failing(e, tool: info.name)
        return r
    }
}
