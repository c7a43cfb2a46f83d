import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// lufs-measure --timeline-csv DIR: for each measured file, `DIR/NAME.csv` with one row per
/// 100 ms step of the series the report draws: time, momentary, short-term, and the true peak so
/// far. Written as the records come out (names in input order, so the same whatever --jobs),
/// each through a temporary file and a rename; other files in DIR are left alone.
package final class TimelineCSVWriter: @unchecked Sendable {
    package let directory: String
    private let lock = NSLock()
    /// Each input's table, waiting for its record, by path (a list: a path may come twice).
    private var made: [String: [String]] = [:]
    private var usedNames: Set<String> = []
    private var failed = false

    package static let header = "time_s,momentary_lufs,short_term_lufs,true_peak_dbtp"

    /// The writer for `--timeline-csv DIR` (created when missing); a folder that can't be used is a usage error.
    package init(directory: String) throws {
        do { try LoudnessReportWriter.prepareFolder(directory) } catch {
            throw error.usage(option: "timeline-csv", holding: "the timelines")
        }
        self.directory = directory
    }

    /// The CSV of `t`: the header, then for entry i the end of its windows in seconds (3 decimals),
    /// the momentary and short-term loudness there and the highest true peak of any channel up to
    /// the end of entry i (2 decimals, rounded as the record's); an undefined value (a window not
    /// yet full, under the −70 LUFS gate, digital silence so far) is an empty cell.
    package static func csv(_ t: LoudnessTimeline) -> String {
        // Fixed decimals from the rounded integer (what "%.Nf" of the rounded value prints, without
        // a format string parsed 24,000 times for ten minutes).
        func cell(_ v: Double?, _ decimals: Int) -> String {
            guard let v, v.isFinite, abs(v) < 1e12 else { return "" }
            let scale: Int64 = decimals == 3 ? 1000 : 100
            let units = Int64((v * Double(scale)).rounded())
            let whole = String(abs(units) / scale), fraction = String(abs(units) % scale)
            return (units < 0 ? "-" : "") + whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        var out = header + "\n"
        out.reserveCapacity(t.count * 32 + 64)
        var peak: Double?
        for i in 0..<t.count {
            if let p = t.truePeakDBTP[i], p > (peak ?? -.infinity) { peak = p }
            out += cell(t.endSeconds(i), 3) + "," + cell(t.momentaryLUFS[i], 2) + "," + cell(t.shortTermLUFS[i], 2) + ","
                + cell(peak, 2) + "\n"
        }
        return out
    }

    /// Keeps the table of the input at `path` for its record (called from `process`, any thread).
    package func prepare(_ timeline: LoudnessTimeline, for path: String) {
        let text = Self.csv(timeline)
        lock.lock(); defer { lock.unlock() }
        made[path, default: []].append(text)
    }

    /// Takes an output record (serially, in output order) and writes its table; an error record has none.
    package func emitted(_ record: Record) {
        let path = record.path ?? "(input)"
        lock.lock()
        let text = made[path]?.first
        if text != nil { made[path]!.removeFirst(); if made[path]!.isEmpty { made[path] = nil } }
        lock.unlock()
        guard let text, !record.hasError else { return }
        let name = LoudnessReportWriter.uniqueName(for: path, suffix: ".csv", used: &usedNames)
        do { try AtomicFile.write(text, to: directory + "/" + name) } catch {
            if !failed { Diagnostics.warn("can't write the timeline \(ToolError.quoted(directory + "/" + name)): \(error)") }
            failed = true
        }
    }

    /// False when any table could not be written.
    package func finish() -> Bool { !failed }
}
