import AudioIO
import Foundation
import ToolRunner

/// The cache options audio-probe, library-filter and lufs-measure share, and how they open it:
/// the cache itself is handed the program's version and where its warnings go.
public enum CacheOptions {
    /// The environment variable that names a cache when `--cache` isn't given.
    public static let environmentVariable = "AUDIO_TOOLS_CACHE"

    public static let specs: [OptionSpec] = [
        .value("cache", "FILE", help: "Keep results in the SQLite file FILE (created when missing) and reuse them for files that haven't changed: same path, device, inode, size and modification time, same audio-tools version and result-changing options. Output is byte-identical either way; only the time differs. Default: $AUDIO_TOOLS_CACHE, else none. Keep it on a local disk, one per host: SQLite's locks don't hold over NFS or SMB, and a shared file there gets corrupted."),
        .flag("no-cache", help: "Use no cache, even when AUDIO_TOOLS_CACHE is set.", rules: [
            .conflicts("cache"),
            .conflicts("cache-prune", message: "--cache-prune needs a cache, and --no-cache says there is none."),
        ]),
        .flag("cache-prune", help: "After the run, remove the cache's entries for files that are gone or have changed (relative paths are judged from the current folder). With no paths and a terminal on stdin, only prunes."),
    ]

    /// The cache file the options name, or nil for none. Throws UsageError for contradictions.
    public static func path(_ o: ParsedOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if o.flag("no-cache") {
            try o.checkRules("no-cache")
            return nil
        }
        if let p = o.string("cache") {
            guard !p.isEmpty else { throw UsageError("--cache: give the path of the cache file, e.g. --cache ~/.cache/audio-tools.sqlite.") }
            return p
        }
        if let p = environment[environmentVariable], !p.isEmpty { return p }
        if o.flag("cache-prune") { throw UsageError("--cache-prune needs a cache: give --cache FILE or set AUDIO_TOOLS_CACHE.") }
        return nil
    }

    /// Opens the cache the options name (nil, with a warning on stderr, when it can't be used).
    public static func open(_ o: ParsedOptions) throws -> ResultCache? {
        guard let p = try path(o) else { return nil }
        return ResultCache.open(path: p, version: HelpText.version, warn: Diagnostics.warn)
    }

    /// The end of a run: prunes when asked (saying what it did on stderr) and closes the cache.
    public static func finish(_ cache: ResultCache?, options o: ParsedOptions) {
        guard let cache else { return }
        if o.flag("cache-prune"), let r = cache.prune() {
            Diagnostics.warn("cache \(ToolError.quoted(cache.path)): removed \(LibraryText.count(r.removed)) \(r.removed == 1 ? "entry" : "entries") for files that are gone or changed; \(LibraryText.count(r.kept)) kept.")
        }
        cache.close()
    }

    /// A cache tool run with nothing to read (RecordTool.withoutInput): `--cache-prune` alone is
    /// a whole job, only the cache to tidy.
    public static func withoutInput(_ o: ParsedOptions) {
        if o.flag("cache-prune") { pruneOnly(o) }
    }

    /// `TOOL --cache-prune` with nothing to read: prune, then exit 0 (1 when the cache is unusable).
    public static func pruneOnly(_ o: ParsedOptions) -> Never {
        do {
            guard let cache = try open(o) else { exit(1) }
            finish(cache, options: o)
            exit(0)
        } catch {
            Diagnostics.warn("error: \(error)")
            exit(2)
        }
    }
}
