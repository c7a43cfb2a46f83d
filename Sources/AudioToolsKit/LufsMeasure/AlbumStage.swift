import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// lufs-measure --album's stage between measuring and writing: it groups tracks into albums as
/// they are read, collects each measured track's gating blocks and peaks, and holds records
/// until their album is complete, then adds `loudness.album` to each and lets them go, in input
/// order. An album is complete when the whole input has been read (ToolMain reads it ahead, so
/// this is early: no more of its tracks can come) and all its tracks are measured; tracks are measured in parallel meanwhile, whatever the
/// folders. The album's values depend only on which tracks it has and their input order, never
/// on timing, so the output is the same whatever --jobs is.
public final class AlbumStage: RecordStage {
    /// What an album needs from one measured track.
    public struct Track: Sendable {
        public var blocks: LoudnessBlocks
        /// Largest linear sample peak over the channels.
        public var samplePeak: Double
        /// Largest linear true peak over the channels (nil when not measured).
        public var truePeak: Double?

        public init(blocks: LoudnessBlocks, samplePeak: Double, truePeak: Double?) {
            self.blocks = blocks; self.samplePeak = samplePeak; self.truePeak = truePeak
        }
    }

    package struct Album {
        package var expected = 0
        package var arrived = 0
        package var tracks: [Track] = []
        package var failed: [String] = []
        package var value: JSON?
        package var released = 0
    }

    private let keyOf: (Record) -> AlbumKey?
    private let lock = NSLock()
    private var admittedKeys: [Int: AlbumKey] = [:]
    private var admitted = 0
    private var accepted = 0
    private var albums: [AlbumKey: Album] = [:]
    private var held: [(record: Record, key: AlbumKey?)] = []
    private var heldHead = 0
    private var inputDone = false
    private var deposits: [String: [Track]] = [:]

    /// `keyOf` names the album of an input record (nil: not part of any album, e.g. a record
    /// that already failed); it runs on the reading thread, in input order.
    public init(keyOf: @escaping (Record) -> AlbumKey?) {
        self.keyOf = keyOf
    }

    /// Hands over a measured track (from any worker thread); picked up when its record arrives.
    public func deposit(path: String, track: Track) {
        lock.lock(); defer { lock.unlock() }
        deposits[path, default: []].append(track)
    }

    public func admit(_ record: Record) {
        let key = record.hasError ? nil : keyOf(record)
        lock.lock(); defer { lock.unlock() }
        if let key {
            admittedKeys[admitted] = key
            albums[key, default: Album()].expected += 1
        }
        admitted += 1
    }

    public func accept(_ record: Record) -> [Record] {
        lock.lock(); defer { lock.unlock() }
        let key = admittedKeys.removeValue(forKey: accepted)
        accepted += 1
        if let key {
            var a = albums[key] ?? Album()
            a.arrived += 1
            if !record.hasError, record["loudness"] != nil, let path = record.path, var list = deposits[path], !list.isEmpty {
                a.tracks.append(list.removeFirst())
                deposits[path] = list.isEmpty ? nil : list
            } else {
                a.failed.append(record.path ?? "(a record without a path)")
            }
            albums[key] = a
        }
        held.append((record, key))
        return release()
    }

    public func admitEnded() {
        lock.lock(); defer { lock.unlock() }
        inputDone = true
    }

    public func ready() -> [Record] {
        lock.lock(); defer { lock.unlock() }
        return release()
    }

    public func drain() -> [Record] {
        lock.lock(); defer { lock.unlock() }
        inputDone = true
        return release()
    }

    /// The held records at the front whose albums are complete. Caller holds the lock.
    private func release() -> [Record] {
        var out: [Record] = []
        while heldHead < held.count {
            let (record, key) = held[heldHead]
            guard let key else { out.append(record); heldHead += 1; continue }
            guard inputDone, var a = albums[key], a.arrived == a.expected else { break }
            if a.value == nil { a.value = Self.json(key, a); a.tracks = [] }
            a.released += 1
            albums[key] = a.released == a.expected ? nil : a
            var r = record
            if !r.hasError, var l = r["loudness"]?.objectValue {
                l["album"] = a.value!
                r["loudness"] = .object(l)
            }
            out.append(r)
            heldHead += 1
        }
        if heldHead > 64, heldHead * 2 > held.count { held.removeFirst(heldHead); heldHead = 0 }
        return out
    }

    /// `loudness.album`: gated over the union of the tracks' blocks (BS.1770-4 over the album as
    /// one programme), peaks the largest of any track; null values with a note when undefined.
    package static func json(_ key: AlbumKey, _ a: Album) -> JSON {
        var notes: [String] = []
        let blocks = a.tracks.map(\.blocks)
        let integrated = LoudnessBlocks.integratedLUFS(blocks)
        let range = LoudnessBlocks.loudnessRangeLU(blocks)
        if !a.failed.isEmpty {
            let names = a.failed.map(ToolError.quoted).joined(separator: ", ")
            notes.append("\(a.failed.count) track\(a.failed.count == 1 ? "" : "s") of this album could not be measured (\(names)) and \(a.failed.count == 1 ? "is" : "are") not counted in its values.")
        }
        if integrated == nil {
            notes.append(a.tracks.isEmpty ? "The album has no measured track, so its loudness is undefined."
                         : "The album's integrated loudness is undefined: no 400 ms block of any track passes the −70 LUFS gate (silence), or every track is shorter than 400 ms.")
        }
        if range == nil, !a.tracks.isEmpty {
            notes.append("The album's loudness range is undefined: no track has a 3 s block above the −70 LUFS gate.")
        }
        let sample = a.tracks.map(\.samplePeak).max() ?? 0
        let truePeaks = a.tracks.compactMap(\.truePeak)
        let tp: Double? = truePeaks.count == a.tracks.count && !truePeaks.isEmpty ? truePeaks.max() : nil
        if sample == 0, !a.tracks.isEmpty { notes.append("The album's peak levels are undefined in dB: every track is digital silence.") }
        return .object([
            "by": .string(key.by),
            "key": .string(key.text),
            "tracks": .int(a.tracks.count),
            "integrated_lufs": .optional(integrated, decimals: 2),
            "loudness_range_lu": .optional(range, decimals: 2),
            "true_peak_dbtp": .optional(tp.flatMap { $0 > 0 ? 20 * log10($0) : nil }, decimals: 2),
            "sample_peak_dbfs": .optional(sample > 0 ? 20 * log10(sample) : nil, decimals: 2),
            "notes": .array(notes.map { .string($0) }),
        ])
    }
}
