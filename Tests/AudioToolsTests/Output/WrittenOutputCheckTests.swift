import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The figures a written file may have: within the documented tolerance of the target and under
/// the ceiling, or off it for a documented reason only.
@Suite struct WrittenOutputCheckTests {
    static let check = WrittenOutputCheck(targetLUFS: -16, ceilingDBTP: -1, peakMode: .limit, loudnessIsOwn: true, maxCompensationDB: 6)

    func miss(_ lufs: Double?, _ tp: Double?, compensation: Double = 0, lossy: Bool = false, shortfall: Bool = false,
              in c: WrittenOutputCheck = check) -> WrittenOutputCheck.Miss? {
        c.miss(integratedLUFS: lufs, truePeakDBTP: tp, compensationDB: compensation, lossyChecked: lossy,
               codecShortfall: shortfall, sourceLUFS: -40)
    }

    @Test func onTargetAndUnderTheCeilingPasses() {
        #expect(miss(-16.05, -1.15) == nil)
        #expect(miss(-15.91, -1.0) == nil)
        #expect(miss(-16.0, -0.99) == nil, "within the peak allowance")
        #expect(miss(nil, -30) == nil, "no integrated loudness (silence, too short): nothing to judge")
    }

    @Test func offTargetOrOverTheCeilingFails() throws {
        let over = try #require(miss(-4.02, 1.5, compensation: -6))
        #expect(over.offTarget && over.overCeiling && over.toleranceLU == 0.1)
        let e = over.toolError(path: "a.wav")
        #expect(e.code == .offTarget && e.message.contains("11.98 LU over the -16 LUFS target") && e.message.contains("-1 dBTP ceiling"), "\(e.message)")
        #expect(e.message.contains("(-40.00 LUFS)"))
        #expect(miss(-15.85, -1.2)?.offTarget == true)
        #expect(miss(-36, -21)?.offTarget == true, "under, with no compensation at its limit")
        #expect(miss(-16, -0.9)?.overCeiling == true)
        #expect(miss(-15.85, -1.2, lossy: true) == nil, "a lossy file may land within 0.2 LU")
    }

    @Test func documentedShortfallsPass() {
        // The compensation at its limit: the docs say the file stays under the target, with a note.
        #expect(miss(-19, -1.1, compensation: 6) == nil)
        let reduce = WrittenOutputCheck(targetLUFS: -16, ceilingDBTP: -1, peakMode: .reduce, loudnessIsOwn: true, maxCompensationDB: 6)
        #expect(miss(-21, -1.0, in: reduce) == nil, "--peak reduce: under the target by its shortfall")
        #expect(miss(-14, -1.0, in: reduce)?.offTarget == true, "but never over it")
        let ignore = WrittenOutputCheck(targetLUFS: -16, ceilingDBTP: -1, peakMode: .ignore, loudnessIsOwn: true, maxCompensationDB: 6)
        #expect(miss(-16, 3, in: ignore) == nil, "--peak ignore lets the peaks through")
        let album = WrittenOutputCheck(targetLUFS: -16, ceilingDBTP: -1, peakMode: .limit, loudnessIsOwn: false, maxCompensationDB: 6)
        #expect(miss(-20, -3, in: album) == nil, "an album track sits at the album's gain")
        #expect(miss(-20, 0, in: album)?.overCeiling == true)
        #expect(miss(-15.5, 0, lossy: true, shortfall: true) == nil, "a lossy file the codec check gave up on says so itself")
    }
}
