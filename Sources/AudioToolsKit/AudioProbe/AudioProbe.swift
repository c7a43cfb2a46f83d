import AudioIO
import Foundation
import ToolRunner

/// audio-probe: what is in each file under `probe` (container, codec, format, duration, tags,
/// protection, decoder, content id), and for a file that can't be used, an error record whose one
/// sentence says why and what to pick instead. The facts stay in the record even then.
public final class AudioProbe: RecordTool {
    public static let info = ToolInfo(
        name: "audio-probe", key: "probe",
        abstract: "Say what is in audio files: container, codec, format, exact duration, tags, protection, and whether the tools can use them.",
        discussion: "The container is sniffed from the bytes, never the extension. Besides the header, the first and last second of audio are decoded (a seek, not a full decode), so a cut-off download is caught now rather than halfway through a later job. A file that can't be used (protected, cloud-only, not audio, no sound track, damaged, cut off, or needing ffmpeg when it isn't installed) becomes an error record whose message says why and whose suggestion says what to pick instead; the `probe` facts found so far stay in the record. Hidden files are skipped in a directory walk, except iCloud placeholders (.Name.m4a.icloud), which are reported as cloud-only; so are files plainly not audio by name (cover art, playlists, notes), counted in one stderr line. A zero-byte file is empty.",
        options: [
            .flag("deep", help: "Decode every frame, not only the first and last second, to find damage in between; `probe.deep` says where decoding stopped."),
        ] + CacheOptions.specs,
        examples: [
            "audio-probe song.m4a",
            "audio-probe ~/Music | jq -c 'select(.error) | [.path, .error.code]'",
            "audio-probe --deep suspicious.flac",
            "audio-probe ~/Music | library-filter --query 'genre:jazz' --sort artist,year",
            "audio-probe --cache ~/.cache/audio-tools.sqlite ~/Music   # the second run reads only what changed",
        ])

    package let deep: Bool
    package let options: ParsedOptions
    package let cache: ResultCache?

    public init(options o: ParsedOptions) throws {
        deep = o.flag("deep")
        options = o
        cache = try CacheOptions.open(o)
    }

    /// `--cache-prune` alone prunes the cache.
    public static func withoutInput(_ options: ParsedOptions) { CacheOptions.withoutInput(options) }

    public func process(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        if path == StandardInput.path { return try StreamedFiles.probeStandardInput(record, deep: deep, tool: Self.info.name) }  // audio on stdin
        let report = ProbeCache.inspect(path: path, deep: deep, cache: cache).report
        var out = record
        out["probe"] = report.probe
        if let refusal = report.refusal {
            return out.failing(refusal, tool: Self.info.name)
        }
        return out
    }

    public func finish(stderrIsTerminal: Bool) -> Bool {
        CacheOptions.finish(cache, options: options)
        return true
    }

    /// iCloud placeholders are the one kind of hidden file worth reporting: they stand for songs.
    public func includeHidden(name: String) -> Bool {
        ProbeVerdicts.iCloudPlaceholderName(name) != nil
    }
}
