import AudioIO
import Foundation
import ToolRunner

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

    package let query: LibraryQuery
    package let sort: LibrarySort
    package let page: LibraryPage
    package let pageInfoPath: String?
    package let getIDs: [String]
    package let includeUnusable: Bool
    package let printSummary: Bool
    package let options: ParsedOptions
    package let classifier: LibraryClassifier
    package var cache: ResultCache? { classifier.cache }

    public init(options o: ParsedOptions) throws {
        includeUnusable = o.flag("all")
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
        classifier = LibraryClassifier(constraints: c, deep: o.flag("deep"), cache: try CacheOptions.open(o), tool: Self.info.name)
    }

    /// `--cache-prune` alone prunes the cache.
    public static func withoutInput(_ options: ParsedOptions) { CacheOptions.withoutInput(options) }

    /// iCloud placeholders stand for songs: the one kind of hidden file the walk looks at.
    public func includeHidden(name: String) -> Bool {
        LibrarySkipKind.iCloudRealName(fileName: name) != nil
    }

    /// Records refused upstream (by audio-probe) are songs too: counted, and listed under --all.
    public var processesFailedRecords: Bool { true }

    public func process(_ record: Record) throws -> Record { classifier.entry(for: record).record }

    /// The tool's run: ToolMain's option parsing, input and worker pool, then filtering, ordering
    /// and paging by LibrarySelection, since output is a selection of the input rather than one record per line.
    public static func main(family: [String], arguments: [String] = ToolMain.commandLineArguments) -> Never {
        let startup = ToolMain.start(LibraryFilter.self, family: family, arguments: arguments)
        let tool = startup.tool
        let runner = OrderedRunner(jobs: startup.jobs, window: ToolMain.runnerWindow(jobs: startup.jobs)) { (r: Record) -> LibraryEntry in tool.classifier.entry(for: r) }
        var selection = LibrarySelection(query: tool.query, sort: tool.sort, page: tool.page, getIDs: tool.getIDs, includeUnusable: tool.includeUnusable)
        // `--get` with a cache: the files the index names, when it knows them all, instead of a walk.
        var input = AnySequence(startup.input)
        var fromIndex = false
        if let cache = tool.cache, let paths = LibraryIndex.locate(
            ids: tool.getIDs, roots: startup.options.paths, cache: cache,
            settings: ProbeCache.settings(deep: tool.classifier.deep), includeHidden: { tool.includeHidden(name: $0) }) {
            input = AnySequence(paths.map { Record(path: $0) })
            fromIndex = true
        }
        var failed = false
        // stdout closed: end quietly; stdout failing otherwise (a full disk): say why, then end.
        let output = LineWriter(onClosed: { startup.clearProgress(); ToolMain.stdoutFailure().map(Diagnostics.warn); exit(1) },
                                beforeWrite: startup.progress.yieldToStdout)
        runner.run(input: input) { entry in
            startup.step(failed: !entry.usable, path: entry.record.path)
            selection.add(entry)
            if case .inputError = entry.kind {
                // Input that couldn't be read as a record is reported at once, as every tool does.
                failed = true
                output.append(entry.record.serialized())
                output.flush()
                if !startup.options.flag("quiet"), let line = entry.record.failureLine(tool: info.name) { Diagnostics.write(line) }
            }
        }
        startup.clearProgress()
        // What the walk skipped by name is counted in the summary sentence, as what came on stdin is.
        selection.countSkipped(startup.walkTally.skippedByKind)
        let written = selection.write(folders: startup.options.paths, tool: info.name) { output.append($0) }
        if written.gone { failed = true }
        if let p = tool.pageInfoPath, let info = written.pageInfo {
            do { try AtomicFile.write(info.json.serialized() + "\n", to: p) } catch {
                Diagnostics.warn("can't write the page info to \(ToolError.quoted(p)): \(error)")
                failed = true
            }
        }
        output.flush()
        CacheOptions.finish(tool.cache, options: tool.options)
        if tool.printSummary {
            Diagnostics.warn(selection.summary(fromIndex: fromIndex))
            if !fromIndex { startup.reportWalk(byName: false) }
        }
        exit(failed ? 1 : 0)
    }
}
