import Foundation

/// What a gated (or summarised) lufs-measure run found, one row per input in output order: the
/// stderr summary table and the JUnit report are both written from it.
public struct GateLog {
    public struct Row: Equatable {
        public var name: String
        public var pass: Bool
        public var reasons: [String]
        public var integratedLUFS: Double?
        public var truePeakDBTP: Double?
        /// An input that held no audio at all (an empty folder under a gate), not a file.
        public var isError: Bool
        /// The gain each platform applies (with --platforms), a column each.
        public var platforms: [PlatformCell] = []
        /// Dialogue-gated loudness (lufs-measure --dialogue), shown in a column of its own.
        public var dialogueLUFS: Double? = nil
    }

    public internal(set) var rows: [Row] = []
    /// Whether any row failed the gate.
    public private(set) var anyFailed = false
    /// Whether there is a gate (else rows only summarise).
    public let gated: Bool

    public init(gated: Bool) { self.gated = gated }

    /// The row of one measured file: its gate verdict (`gatePassed`, nil when it has none) with
    /// the reasons it failed, and its loudness and true peak.
    public mutating func add(name: String, gatePassed: Bool?, reasons: [String], integratedLUFS: Double?, truePeakDBTP: Double?) {
        let pass = !gated || (gatePassed ?? false)
        if !pass { anyFailed = true }
        rows.append(Row(name: name, pass: pass, reasons: reasons, integratedLUFS: integratedLUFS, truePeakDBTP: truePeakDBTP,
                        isError: false))
    }

    /// The row of a file that could not be measured: it fails, the error's message its reason
    /// (the error itself already fails the run).
    public mutating func addFailure(name: String, message: String) {
        rows.append(Row(name: name, pass: false, reasons: [message], isError: false))
    }

    package mutating func setPlatforms(_ cells: [PlatformCell]) { if !rows.isEmpty { rows[rows.count - 1].platforms = cells } }

    /// An input that gave the gate nothing to pass: it fails.
    public mutating func addNothing(name: String, message: String) {
        rows.append(Row(name: name, pass: false, reasons: [message], isError: true))
        anyFailed = true
    }

    /// The JUnit XML of the rows.
    public var junit: String {
        JUnitReport.xml(suiteName: "lufs-measure", cases: rows.map {
            JUnitReport.Case(name: $0.name, passed: $0.pass, reasons: $0.reasons, isError: $0.isError)
        })
    }

    /// A readable table of what was measured: one row per file, failures with their reasons.
    public var summaryTable: String {
        func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "—" }
        let dialogue = rows.contains { $0.dialogueLUFS != nil }
        var s = "\n  " + (gated ? "RESULT  " : "") + "LUFS    " + (dialogue ? "DIALOG  " : "") + "dBTP   " + platformHeader + "FILE\n"
        for r in rows {
            s += "  "
            if gated { s += r.pass ? "pass    " : "FAIL    " }
            s += f(r.integratedLUFS).padding(toLength: 7, withPad: " ", startingAt: 0) + " "
            if dialogue { s += f(r.dialogueLUFS).padding(toLength: 7, withPad: " ", startingAt: 0) + " " }
            s += f(r.truePeakDBTP).padding(toLength: 6, withPad: " ", startingAt: 0) + " " + platformCells(r)
            s += r.isError ? r.name : (r.name.split(separator: "/").last.map(String.init) ?? r.name)
            if !r.reasons.isEmpty { s += "  (" + r.reasons.joined(separator: "; ") + ")" }
            s += "\n"
        }
        let files = rows.filter { !$0.isError }
        let failed = files.filter { !$0.pass }.count
        if gated {
            let nothing = rows.count - files.count
            s += "  \(files.count - failed) of \(files.count) files passed the gate"
            s += nothing > 0 ? "; \(nothing) input\(nothing == 1 ? "" : "s") held no audio, which fails it\n" : "\n"
        } else if failed > 0 {
            s += "  \(failed) of \(files.count) files could not be measured\n"
        }
        return s
    }
}
