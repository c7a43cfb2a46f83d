import AudioIO
import Foundation
import JSONValue
import ToolRunner

/// audio-probe's and library-filter's use of the cache: one probe per file and `--deep` setting,
/// shared by both tools, with the song's library id beside it for `library-filter --get`.
public enum ProbeCache {
    package static let kind = "probe"

    /// The settings a probe depends on: `--deep`, and the decoders installed.
    public static func settings(deep: Bool) -> String { "deep=\(deep ? 1 : 0);\(DecoderSignature.current)" }

    /// Refusals that depend on more than the file's bytes (permissions, a file changing while it
    /// was read, a path that isn't there), so they are never kept.
    package static let transient: Set<ErrorCode> = [.unreadable, .notFound, .notAFile]

    /// What probing `path` finds, from the cache when it holds this very file, else probed and
    /// kept. `libraryID` is the song's id (the content id, or the byte id when the audio couldn't
    /// be decoded) when the cache knows it, nil otherwise.
    /// A cached probe comes as one raw text (`JSON.raw`), written out as it was stored.
    public static func inspect(path: String, deep: Bool, cache: ResultCache?) -> (report: AudioProbeInspector.Report, libraryID: String?) {
        guard let cache, let stamp = FileStamp.of(path), access(path, R_OK) == 0 else {
            return (AudioProbeInspector.inspect(path: path, deep: deep), nil)
        }
        let settings = settings(deep: deep)
        if let hit = cache.lookup(kind: kind, settings: settings, path: path, stamp: stamp), let report = decode(hit.value) {
            return (report, hit.libraryID)
        }
        let report = AudioProbeInspector.inspect(path: path, deep: deep)
        guard report.probe != nil, !(report.refusal.map { transient.contains($0.code) } ?? false) else { return (report, nil) }
        let id = report.probe?["content_id"]?.stringValue ?? AudioProbeInspector.byteID(path: path)
        // Kept only when the file is still the one that was read, start to end.
        guard FileStamp.of(path) == stamp else { return (report, nil) }
        cache.store(kind: kind, settings: settings, path: path, stamp: stamp, libraryID: id, value: encode(report))
        return (report, id)
    }

    /// `{"probe": {...}, "refusal": null | {"code", "message", "suggestion"}}`: the report exactly,
    /// since JSON numbers keep their text and strings round-trip.
    package static func encode(_ r: AudioProbeInspector.Report) -> String {
        let refusal: JSON = r.refusal.map {
            .object(["code": .string($0.code.rawValue), "message": .string($0.message), "suggestion": .string($0.suggestion)])
        } ?? .null
        return JSON.object(["probe": r.probe ?? .null, "refusal": refusal]).serialized()
    }

    /// The stored report with its probe kept as text (`JSON.raw`), so a hit is written out as it
    /// was stored without being parsed and serialised again; nil for an entry that isn't one.
    package static func decode(_ text: String) -> AudioProbeInspector.Report? {
        // What `encode` writes for a usable file, `{"probe":{...},"refusal":null}` (keys sorted),
        // is cut apart without building the members; the probe's text is still checked.
        let head = #"{"probe":"#, tail = #","refusal":null}"#
        if text.hasPrefix(head), text.hasSuffix(tail), text.utf8.count > head.utf8.count + tail.utf8.count {
            let u = text.utf8
            let start = u.index(u.startIndex, offsetBy: head.utf8.count), end = u.index(u.endIndex, offsetBy: -tail.utf8.count)
            if let probe = JSON.verbatim(String(text[start..<end])), !probe.isNullText {
                return AudioProbeInspector.Report(probe: probe, refusal: nil)
            }
        }
        guard let j = JSON.members(text), let probe = j["probe"], !probe.isNullText,
              let refusal = j["refusal"]?.resolved else { return nil }
        if refusal == .null { return AudioProbeInspector.Report(probe: probe, refusal: nil) }
        guard let code = refusal["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)),
              let message = refusal["message"]?.stringValue, let suggestion = refusal["suggestion"]?.stringValue else { return nil }
        return AudioProbeInspector.Report(probe: probe, refusal: ToolError(code, message, suggestion: suggestion))
    }
}
