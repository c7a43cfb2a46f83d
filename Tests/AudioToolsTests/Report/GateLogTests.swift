import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct GateLogTests {
    static func record(_ path: String, pass: Bool?, integrated: Double = -23) -> Record {
        var l: [String: JSON] = ["integrated_lufs": .double(integrated), "true_peak_dbtp": .double(-3)]
        if let pass { l["gate"] = .object(["pass": .bool(pass), "reasons": .array(pass ? [] : [.string("too quiet")])]) }
        var r = Record(path: path)
        r["loudness"] = .object(l)
        return r
    }

    @Test func rowsTableAndJUnitSayWhatPassed() {
        var log = GateLog(gated: true)
        log.add(Self.record("a/one.wav", pass: true))
        log.add(Self.record("a/two.wav", pass: false, integrated: -30))
        log.addNothing(name: "empty", message: "no audio files found in “empty”")
        #expect(log.anyFailed)
        #expect(log.rows.map(\.pass) == [true, false, false])
        let table = log.summaryTable
        #expect(table.contains("pass    -23.0   -3.0   one.wav"))
        #expect(table.contains("FAIL    -30.0   -3.0   two.wav  (too quiet)"))
        #expect(table.contains("1 of 2 files passed the gate; 1 input held no audio, which fails it"))
        #expect(log.junit.contains("two.wav") && log.junit.contains("too quiet"))
    }

    @Test func withoutAGateRowsOnlySummarise() {
        var log = GateLog(gated: false)
        log.add(Self.record("b.wav", pass: nil))
        #expect(!log.anyFailed && log.rows.first?.pass == true)
        #expect(!log.summaryTable.contains("RESULT") && log.summaryTable.contains("b.wav"))
    }

    @Test func rowsComeFromValuesAndAnErrorFailsItsRowOnly() {
        var log = GateLog(gated: true)
        log.add(name: "a/one.wav", gatePassed: true, reasons: [], integratedLUFS: -23, truePeakDBTP: -3)
        log.addFailure(name: "a/bad.wav", message: "“bad.wav” is cut off.")
        #expect(!log.anyFailed)
        #expect(log.rows.map(\.pass) == [true, false] && log.rows[1].reasons == ["“bad.wav” is cut off."])
        log.add(name: "a/two.wav", gatePassed: nil, reasons: [], integratedLUFS: nil, truePeakDBTP: nil)
        #expect(log.anyFailed)
        var failed = Record(path: "a/bad.wav")
        failed["error"] = .object(["message": .string("“bad.wav” is cut off.")])
        var fromRecords = GateLog(gated: true)
        fromRecords.add(failed)
        #expect(fromRecords.rows == [log.rows[1]])
    }
}
