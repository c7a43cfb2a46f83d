import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// Writes a loudness report folder: one SVG picture per measured input and `index.html`.
/// A tool hands it each input's item from `process` (any thread; the picture is drawn there) and
/// each output record from `emitted` (in order; the picture is written then), and calls `finish`
/// for the index. Every file goes through a temporary name and a rename, so a reader never sees
/// half a file; other files in the folder are left alone.
public final class LoudnessReportWriter {
    public let directory: String
    package let title: String
    package let gate: String?
    private let lock = NSLock()
    /// Drawn pictures waiting for their record, by input path (a list: a path may come twice).
    private var drawn: [String: [(item: LoudnessReportItem, svg: String)]] = [:]
    private var rows: [LoudnessReportIndex.Row] = []
    private var usedNames: Set<String> = ["index.html"]
    private var failed = false
    private let warn: @Sendable (String) -> Void

    /// Creates the folder (and its parents) when missing; refuses a path that is not a folder.
    /// `warn` hears, once, that a picture or the index could not be written.
    public init(directory: String, title: String, gate: String?, warn: @escaping @Sendable (String) -> Void) throws(ReportFolderError) {
        try Self.prepareFolder(directory)
        self.directory = directory
        self.title = title
        self.gate = gate
        self.warn = warn
    }

    /// Draws the picture of the input at `path` (called from `process`, on any thread).
    public func draw(_ item: LoudnessReportItem, for path: String) {
        let svg = LoudnessPicture.svg(item)
        lock.lock(); defer { lock.unlock() }
        drawn[path, default: []].append((item, svg))
    }

    /// Takes an output record (called serially, in output order): writes its picture and adds
    /// its row. A record with an error gets a row with its message and no picture.
    public func emitted(_ record: Record) {
        let path = record.path ?? "(input)"
        lock.lock()
        let entry = drawn[path]?.first
        if entry != nil { drawn[path]!.removeFirst(); if drawn[path]!.isEmpty { drawn[path] = nil } }
        lock.unlock()
        if record.hasError {
            let message = record.fields["error"]?["message"]?.stringValue ?? "could not be measured"
            rows.append(.init(item: LoudnessReportItem(name: path, verdict: .error(message)), picture: nil))
            return
        }
        guard let (item, svg) = entry else {
            rows.append(.init(item: LoudnessReportItem(name: path, verdict: .measured,
                                                       notes: ["Nothing was measured, so no picture was drawn."]), picture: nil))
            return
        }
        let name = pictureName(for: path)
        do {
            try AtomicFile.write(svg, to: directory + "/" + name)
            rows.append(.init(item: item, picture: name))
        } catch {
            warnOnce("can't write the report picture \(ToolError.quoted(directory + "/" + name)): \(error)")
            rows.append(.init(item: item, picture: nil))
        }
    }

    /// Writes `index.html`; false when any part of the report could not be written.
    public func finish() -> Bool {
        let html = LoudnessReportIndex.html(title: title, gate: gate, rows: rows)
        do { try AtomicFile.write(html, to: directory + "/index.html") } catch {
            warnOnce("can't write the report index \(ToolError.quoted(directory + "/index.html")): \(error)")
        }
        return !failed
    }

    private func warnOnce(_ message: String) {
        if !failed { warn(message) }
        failed = true
    }

    /// The input's file name with ".svg", made safe for any file system and unique in this run
    /// ("-2", "-3", … in input order, so the names do not depend on --jobs).
    package func pictureName(for path: String) -> String {
        Self.uniqueName(for: path, suffix: ".svg", used: &usedNames)
    }

    /// Creates `directory` (and its parents) when missing; refuses a path that is not a writable folder.
    package static func prepareFolder(_ directory: String) throws(ReportFolderError) {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw .notAFolder(directory) }
        } else {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw .cantCreate(directory, reason: error.localizedDescription)
            }
        }
        guard access(directory, W_OK) == 0 else { throw .notWritable(directory) }
    }

    /// The input's file name with `suffix`, made safe for any file system and not in `used`
    /// (compared ignoring case): "-2", "-3", … added in the order names are asked for.
    package static func uniqueName(for path: String, suffix: String, used usedNames: inout Set<String>) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? "input"
        var safe = String(base.unicodeScalars.map { c -> Character in
            (c.properties.isAlphabetic || c.properties.numericType != nil || "-_.+".unicodeScalars.contains(c)) ? Character(c) : "_"
        })
        if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        if safe.isEmpty { safe = "input" }
        safe = String(safe.prefix(120))
        var name = safe + suffix
        var k = 2
        while usedNames.contains(name.lowercased()) { name = "\(safe)-\(k)\(suffix)"; k += 1 }
        usedNames.insert(name.lowercased())
        return name
    }

    /// The gate in words for the index ("ebu-r128: −23 ±0.5 LUFS, true peak ≤ −1 dBTP").
    public static func describe(_ gate: LoudnessGate, preset: String?) -> String {
        var parts: [String] = []
        if let t = gate.targetLUFS {
            parts.append("\(LoudnessGate.compact(t)) ±\(LoudnessGate.compact(gate.toleranceLU ?? 0)) LUFS")
        }
        if let c = gate.maxTruePeakDBTP { parts.append("true peak ≤ \(LoudnessGate.compact(c)) dBTP") }
        if let st = gate.maxShortTermLUFS { parts.append("short-term ≤ \(LoudnessGate.compact(st)) LUFS") }
        if let mo = gate.maxMomentaryLUFS { parts.append("momentary ≤ \(LoudnessGate.compact(mo)) LUFS") }
        if let r = gate.maxLoudnessRangeLU { parts.append("LRA ≤ \(LoudnessGate.compact(r)) LU") }
        return (preset.map { $0 + ": " } ?? "") + parts.joined(separator: ", ")
    }

    /// The QC gate in words for the index ("QC acx: clipped runs ≤ 0, …, no dropouts").
    public static func describe(_ qc: QCGate, preset: String?) -> String {
        var parts: [String] = []
        if let m = qc.maxClippedRuns { parts.append("clipped runs ≤ \(m)") }
        if let m = qc.maxOvers { parts.append("overs ≤ \(m)") }
        if let m = qc.minCorrelation { parts.append("correlation ≥ \(QCGate.compact(m))") }
        if let m = qc.maxHeadSilenceSeconds { parts.append("head silence ≤ \(QCGate.compact(m)) s") }
        if let m = qc.maxTailSilenceSeconds { parts.append("tail silence ≤ \(QCGate.compact(m)) s") }
        if qc.noDropouts { parts.append("no dropouts") }
        if qc.noDeadChannels { parts.append("no dead channels") }
        if qc.noInvertedChannels { parts.append("no inverted channels") }
        if let m = qc.maxSamplePeakDBFS { parts.append("sample peak ≤ \(QCGate.compact(m)) dBFS") }
        switch (qc.minRMSDBFS, qc.maxRMSDBFS) {
        case let (lo?, hi?): parts.append("RMS \(QCGate.compact(lo)) to \(QCGate.compact(hi)) dBFS")
        case let (lo?, nil): parts.append("RMS ≥ \(QCGate.compact(lo)) dBFS")
        case let (nil, hi?): parts.append("RMS ≤ \(QCGate.compact(hi)) dBFS")
        case (nil, nil): break
        }
        if let m = qc.maxNoiseFloorDBFS { parts.append("noise floor ≤ \(QCGate.compact(m)) dBFS") }
        if let m = qc.maxDCOffsetDBFS { parts.append("DC offset ≤ \(QCGate.compact(m)) dBFS") }
        return "QC " + (preset.map { $0 + ": " } ?? "") + parts.joined(separator: ", ")
    }

    /// The loudness gate's words and the QC gate's, as one line; nil with neither.
    public static func describe(loudness: String?, qc: String?) -> String? {
        let both = [loudness, qc].compactMap { $0 }
        return both.isEmpty ? nil : both.joined(separator: "; ")
    }
}

extension LoudnessTimeline {
    /// The timeline in a record's `loudness` (lufs-measure --timeline), nil when it has none or
    /// it does not hold together (arrays of different lengths, or not as long as the file).
    public init?(loudness l: JSON?) {
        guard let t = l?["timeline"], let frames = l?["frames"]?.intValue, let rate = t["sample_rate"]?.intValue,
              let hop = t["hop_frames"]?.intValue, hop > 0, rate > 0,
              let m = t["momentary_lufs"]?.arrayValue, let s = t["short_term_lufs"]?.arrayValue,
              let p = t["true_peak_dbtp"]?.arrayValue,
              m.count == s.count, s.count == p.count, p.count == (frames + hop - 1) / hop else { return nil }
        func values(_ a: [JSON]) -> [Double?]? {
            var out: [Double?] = []
            out.reserveCapacity(a.count)
            for v in a {
                if v == .null { out.append(nil) } else if let d = v.doubleValue { out.append(d) } else { return nil }
            }
            return out
        }
        guard let mv = values(m), let sv = values(s), let pv = values(p) else { return nil }
        self.init(sampleRate: rate, hopFrames: hop, frames: frames, momentaryLUFS: mv, shortTermLUFS: sv, truePeakDBTP: pv,
                  rangeLowLUFS: t["range_low_lufs"]?.doubleValue, rangeHighLUFS: t["range_high_lufs"]?.doubleValue)
    }

    /// The record's `loudness.timeline`: the series behind the picture, values to 0.01, null where
    /// undefined (see LoudnessTimeline).
    public var json: JSON {
        func series(_ a: [Double?]) -> JSON { .array(a.map { .optional($0, decimals: 2) }) }
        return .object([
            "rate_hz": .double(rateHz, decimals: 6),
            "hop_frames": .int(hopFrames),
            "sample_rate": .int(sampleRate),
            "momentary_lufs": series(momentaryLUFS),
            "short_term_lufs": series(shortTermLUFS),
            "true_peak_dbtp": series(truePeakDBTP),
            "range_low_lufs": .optional(rangeLowLUFS, decimals: 2),
            "range_high_lufs": .optional(rangeHighLUFS, decimals: 2),
        ])
    }
}

/// Why a report folder can't be used: it is a file, can't be created, or can't be written.
public enum ReportFolderError: Error, Equatable {
    case notAFolder(String)
    case cantCreate(String, reason: String)
    case notWritable(String)
}
