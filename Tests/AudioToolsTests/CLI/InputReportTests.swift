import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct InputReportTests {
    @Test func directoryArgumentsThatYieldNothingAreReported() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("audio-tools-input-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/empty/nested", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/full", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: root + "/full/a.wav", contents: Data("x".utf8))
        _ = fm.createFile(atPath: root + "/empty/.hidden.wav", contents: Data("x".utf8))
        let report = InputReport()
        var input = InputRecords(paths: [root + "/empty/", root + "/full", root + "/full/a.wav"], tool: "t",
                                 includeHidden: { _ in false }, report: report)
        var paths: [String] = []
        while let r = input.next() { paths.append(r.path ?? "") }
        #expect(paths == [root + "/full/a.wav", root + "/full/a.wav"])
        #expect(report.emptyDirectories == [root + "/empty/"])
        #expect(report.records == 2)
        #expect(InputReport.noAudioMessage(root + "/empty/") == "no audio files found in “empty”")
    }
}
