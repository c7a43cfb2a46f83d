import AudioSignal
import Foundation
import JSONValue

/// lufs-measure's use of the cache: one measurement per file and per set of options that change
/// it (`--layout`, `--dual-mono`, the decoders installed). A gate doesn't change a measurement, so
/// the measurement is kept unrounded beside its `loudness` object and the gate is evaluated afresh
/// on every run, exactly as on a fresh measurement.
public struct LoudnessCache {
    package static let kind = "loudness"
    package let cache: ResultCache
    package let settings: String

    /// `layout` is the `--layout` override (nil: the file's own); `dualMono` is `--dual-mono`.
    /// Every new option that changes a measurement must be added here.
    public init(cache: ResultCache, layout: ChannelLayout?, dualMono: Bool) {
        self.cache = cache
        settings = "layout=\(layout?.description ?? "file");dual-mono=\(dualMono ? 1 : 0);\(DecoderSignature.current)"
    }

    package init(cache: ResultCache, settings: String) { self.cache = cache; self.settings = settings }

    /// This cache for measurements with `loudness.dialogue`, kept apart under `key` (the
    /// detector, its version and the dialogue settings): another detector version misses.
    public func keyed(dialogue key: String) -> LoudnessCache { LoudnessCache(cache: cache, settings: settings + ";" + key) }

    /// A kept measurement: the `loudness` object without its gate, kept as text (written out as
    /// stored, not parsed again), and the values a gate reads when they were asked for.
    public struct Entry {
        public var loudness: JSON
        public var measurement: LoudnessMeasurement?
        /// With `--dialogue`: dialogue loudness unrounded and the fallback, which a dialogue gate judges.
        public var dialogue: (integratedLUFS: Double?, fallback: Bool)? = nil

        /// The `loudness` object of a record: as stored, or with `gate` (made from the
        /// measurement) among its members.
        public func loudness(gate: ((LoudnessMeasurement) -> JSON)?) -> JSON {
            guard let gate, let m = measurement, var l = loudness.opened.objectValue else { return loudness }
            l["gate"] = gate(m)
            return .object(l)
        }
    }

    /// What the cache holds for the file at `path` as it is now; `stamp` is what to store a fresh
    /// result under (nil when the file can't be stamped: then nothing is kept). With `forGate`
    /// the measurement is read too, and an entry without a readable one is a miss.
    public func lookup(path: String, forGate: Bool = false) -> (entry: Entry?, stamp: FileStamp?) {
        guard let stamp = FileStamp.of(path), access(path, R_OK) == 0 else { return (nil, nil) }
        guard let hit = cache.lookup(kind: Self.kind, settings: settings, path: path, stamp: stamp) else { return (nil, stamp) }
        return (Self.decode(hit.value, measurement: forGate), stamp)
    }

    /// Keeps a fresh measurement of the file `stamp` describes, when the file is still that file.
    public func store(path: String, stamp: FileStamp?, identity: FileIdentity, loudness: JSON, measurement m: LoudnessMeasurement,
                      dialogue: (integratedLUFS: Double?, fallback: Bool)? = nil) {
        guard let stamp, stamp.identity == identity, FileStamp.of(path) == stamp, var l = loudness.objectValue else { return }
        l["gate"] = nil
        var measurement = Self.encode(m).objectValue ?? [:]
        if let d = dialogue {
            measurement["dialogue_integrated"] = d.integratedLUFS.map { $0.isFinite ? .number(String(describing: $0)) : .null } ?? .null
            measurement["dialogue_fallback"] = .bool(d.fallback)
        }
        cache.store(kind: Self.kind, settings: settings, path: path, stamp: stamp, libraryID: nil,
                    value: JSON.object(["loudness": .object(l), "measurement": .object(measurement)]).serialized())
    }

    /// Every value at full precision: Swift writes the shortest text that reads back to the same double.
    package static func encode(_ m: LoudnessMeasurement) -> JSON {
        func d(_ v: Double?) -> JSON { v.map { $0.isFinite ? .number(String(describing: $0)) : .null } ?? .null }
        return .object([
            "integrated": d(m.integratedLUFS), "range": d(m.loudnessRangeLU),
            "momentary_max": d(m.momentaryMaxLUFS), "short_term_max": d(m.shortTermMaxLUFS),
            "sample_peaks": .array(m.samplePeaks.map { d($0) }), "true_peaks": .array(m.truePeaks.map { d($0) }),
            "frames": .int(m.frames), "sample_rate": .int(m.sampleRate),
            "undefined": .array(m.undefined.map { .string($0.rawValue) }), "notes": .array(m.notes.map { .string($0) }),
        ])
    }

    package static func decode(_ text: String, measurement wanted: Bool = true) -> Entry? {
        guard let j = JSON.members(text), let l = j["loudness"], case .raw(let lText) = l, lText.utf8.first == UInt8(ascii: "{"),
              let mText = j["measurement"] else { return nil }
        guard wanted else { return Entry(loudness: l, measurement: nil) }
        guard let m = mText.objectValue else { return nil }
        func d(_ key: String) -> Double? { m[key]?.doubleValue }
        func list(_ key: String) -> [Double]? {
            guard let a = m[key]?.arrayValue else { return nil }
            let v = a.compactMap(\.doubleValue)
            return v.count == a.count ? v : nil
        }
        guard let sp = list("sample_peaks"), let tp = list("true_peaks"), let frames = m["frames"]?.intValue,
              let rate = m["sample_rate"]?.intValue, let notes = m["notes"]?.arrayValue?.compactMap(\.stringValue),
              // An entry from before the reasons were typed has none: measured again, not guessed.
              let undefinedCodes = m["undefined"]?.arrayValue else { return nil }
        let undefined = undefinedCodes.compactMap { $0.stringValue.flatMap(LoudnessMeasurement.Undefined.init(rawValue:)) }
        guard undefined.count == undefinedCodes.count else { return nil }
        var entry = Entry(loudness: l, measurement: LoudnessMeasurement(
            integratedLUFS: d("integrated"), loudnessRangeLU: d("range"), momentaryMaxLUFS: d("momentary_max"),
            shortTermMaxLUFS: d("short_term_max"), samplePeaks: sp, truePeaks: tp, frames: frames,
            sampleRate: rate, undefined: undefined, notes: notes))
        if let fallback = m["dialogue_fallback"]?.boolValue { entry.dialogue = (d("dialogue_integrated"), fallback) }
        return entry
    }
}
