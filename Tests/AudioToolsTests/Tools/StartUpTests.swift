import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What every run builds as it starts (the option table, the core count), made without key
/// paths or generic joins, still says the same as the tables it comes from.
@Suite struct StartUpTests {
    @Test func presetNamesListEveryPresetInOrder() {
        #expect(LoudnessPreset.names == LoudnessPreset.all.map { $0.name }.joined(separator: ", "))
        #expect(LoudnessPreset.names.hasPrefix("ebu-r128, ebu-r128-s1, "))
    }

    @Test func familyNamesFollowTheCatalog() {
        #expect(ToolCatalog.names == ["audio-probe", "library-filter", "lufs-measure", "lufs-normalize", "vo-align"])
    }

    @Test func defaultJobsAreTheCores() throws {
        let o = try ParsedOptions.parse([], specs: HelpText.common)
        #expect(try o.jobs() == ProcessInfo.processInfo.activeProcessorCount)
        #expect(try o.jobs() >= 1)
    }
}
