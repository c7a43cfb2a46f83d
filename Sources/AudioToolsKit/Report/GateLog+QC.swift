import Foundation
import JSONValue
import ToolRunner

/// The QC gate's verdict and the platforms' gains in the gate log (so in the summary table and
/// the JUnit report).
extension GateLog {
    /// One platform's column in the summary table: the gain it applies (dB).
    public struct PlatformCell: Equatable, Sendable {
        public var name: String
        public var gainDB: Double?
    }

    /// The file's verdict over its loudness gate and its QC gate, and the QC gate's reasons.
    package static func qcVerdict(_ record: Record, loudnessPassed: Bool?) -> (Bool?, [String]) {
        guard let g = record["qc"]?["gate"], let qcPassed = g["pass"]?.boolValue else { return (loudnessPassed, []) }
        let reasons = g["reasons"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return ((loudnessPassed ?? true) && qcPassed, reasons)
    }

    /// Gives the last row the platforms of `loudness.platforms`.
    package mutating func addPlatforms(_ platforms: JSON?) {
        guard let list = platforms?.arrayValue else { return }
        setPlatforms(list.compactMap { p in
            p["name"]?.stringValue.map { PlatformCell(name: $0, gainDB: p["gain_db"]?.doubleValue) }
        })
    }

    /// The platform columns' header: the names of the first row that has platforms.
    package var platformHeader: String {
        guard let cells = rows.first(where: { !$0.platforms.isEmpty })?.platforms else { return "" }
        return cells.map { Self.pad($0.name, Self.width($0.name)) }.joined()
    }

    /// A row's platform cells: each platform's gain, signed, in dB.
    package func platformCells(_ r: Row) -> String {
        r.platforms.map { c in
            Self.pad(c.gainDB.map { String(format: "%+.1f", $0) } ?? "—", Self.width(c.name))
        }.joined()
    }

    package static func width(_ name: String) -> Int { max(name.count, 6) + 1 }
    package static func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: n, withPad: " ", startingAt: 0) }
}
