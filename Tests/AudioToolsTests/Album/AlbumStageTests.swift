import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LoudnessBlocksTests {
    static func energy(_ lufs: Double) -> Double { pow(10, (lufs + 0.691) / 10) }

    @Test func unionGatingIsNotAnAverageOfTracks() throws {
        // Two tracks of equal length at -20 and -30 LUFS: both pass the relative gate, so the
        // album is the loudness of the mean energy (-22.6), not the mean of loudnesses (-25).
        let a = LoudnessBlocks(momentary: Array(repeating: Self.energy(-20), count: 100))
        let b = LoudnessBlocks(momentary: Array(repeating: Self.energy(-30), count: 100))
        let album = try #require(LoudnessBlocks.integratedLUFS([a, b]))
        let expected = -0.691 + 10 * log10((Self.energy(-20) + Self.energy(-30)) / 2)
        #expect(abs(album - expected) < 1e-9)
        // A track 20 LU down falls under the album's relative gate (mean − 10 LU) and is left out.
        let quiet = LoudnessBlocks(momentary: Array(repeating: Self.energy(-40), count: 100))
        #expect(abs(try #require(LoudnessBlocks.integratedLUFS([a, quiet])) - (-20)) < 1e-9)
        // ...while on its own it has its own loudness.
        #expect(abs(try #require(LoudnessBlocks.integratedLUFS([quiet])) - (-40)) < 1e-9)
        // Track lengths weigh in: 3 s of -20 against 30 s of -30.
        let short = LoudnessBlocks(momentary: Array(repeating: Self.energy(-20), count: 30))
        let long = LoudnessBlocks(momentary: Array(repeating: Self.energy(-30), count: 300))
        let weighted = -0.691 + 10 * log10((30 * Self.energy(-20) + 300 * Self.energy(-30)) / 330)
        #expect(abs(try #require(LoudnessBlocks.integratedLUFS([short, long])) - weighted) < 1e-9)
    }

    @Test func rangeSpansTheTracks() throws {
        let a = LoudnessBlocks(shortTerm: Array(repeating: Self.energy(-20), count: 100))
        let b = LoudnessBlocks(shortTerm: Array(repeating: Self.energy(-30), count: 100))
        #expect(abs(try #require(LoudnessBlocks.loudnessRangeLU([a, b])) - 10) < 1e-9)
        #expect(try #require(LoudnessBlocks.loudnessRangeLU([a])) == 0)
        #expect(LoudnessBlocks.integratedLUFS([LoudnessBlocks(momentary: [0, 0])]) == nil)
        #expect(LoudnessBlocks.integratedLUFS([]) == nil)
    }

    @Test func theMeterHandsOverTheBlocksItGated() {
        let rate = 48000
        let meter = LoudnessMeter(sampleRate: rate, weights: [1])
        let x = (0..<(rate * 5)).map { Float(0.1 * sin(2 * Double.pi * 997 * Double($0) / Double(rate))) }
        meter.add(AudioBlock(channels: [x], frames: x.count))
        let m = meter.finish()
        let b = meter.blocks
        #expect(b.momentary.count == 47)  // 5 s: 400 ms blocks every 100 ms
        #expect(b.shortTerm.count == 21)
        #expect(LoudnessBlocks.integratedLUFS([b]) == m.integratedLUFS)
        #expect(LoudnessBlocks.loudnessRangeLU([b]) == m.loudnessRangeLU)
    }
}

@Suite struct AlbumStageTests {
    static func record(_ path: String) -> Record { Record(path: path) }
    static func measured(_ path: String) -> Record {
        var r = Record(path: path)
        r["loudness"] = .object(["integrated_lufs": .double(-20)])
        return r
    }
    static func track(_ lufs: Double, peak: Double) -> AlbumStage.Track {
        AlbumStage.Track(blocks: LoudnessBlocks(momentary: Array(repeating: LoudnessBlocksTests.energy(lufs), count: 50),
                                                shortTerm: Array(repeating: LoudnessBlocksTests.energy(lufs), count: 20)),
                         samplePeak: peak, truePeak: peak * 1.1)
    }

    /// Albums by the first path component.
    static func stage() -> AlbumStage {
        AlbumStage(keyOf: { r in AlbumKey(by: "folder", text: String(r.path!.split(separator: "/")[0])) })
    }

    @Test func recordsWaitForTheirAlbumAndLeaveInInputOrder() throws {
        let s = Self.stage()
        for p in ["a/1", "a/2", "b/1", "a/3"] { s.admit(Self.record(p)) }
        s.deposit(path: "a/1", track: Self.track(-20, peak: 0.5))
        #expect(s.accept(Self.measured("a/1")).isEmpty)
        s.deposit(path: "a/2", track: Self.track(-20, peak: 0.25))
        #expect(s.accept(Self.measured("a/2")).isEmpty)
        s.admitEnded()
        #expect(s.ready().isEmpty)  // a/3 is still being measured
        s.deposit(path: "b/1", track: Self.track(-30, peak: 0.1))
        #expect(s.accept(Self.measured("b/1")).isEmpty)  // done, but behind album a in the input
        s.deposit(path: "a/3", track: Self.track(-20, peak: 0.125))
        let out = s.accept(Self.measured("a/3"))
        #expect(out.map(\.path) == ["a/1", "a/2", "b/1", "a/3"])
        let a = try #require(out[0]["loudness"]?["album"])
        #expect(a["tracks"]?.intValue == 3)
        #expect(a["key"]?.stringValue == "a")
        #expect(abs((a["integrated_lufs"]?.doubleValue ?? 0) - (-20)) < 0.005)
        #expect(abs((a["sample_peak_dbfs"]?.doubleValue ?? 0) - 20 * log10(0.5)) < 0.005)
        #expect(abs((a["true_peak_dbtp"]?.doubleValue ?? 0) - 20 * log10(0.55)) < 0.005)
        #expect(out[2]["loudness"]?["album"]?["tracks"]?.intValue == 1)
        #expect(s.drain().isEmpty)
    }

    @Test func aFailedTrackIsNamedAndNotCounted() throws {
        let s = Self.stage()
        for p in ["a/1", "a/2"] { s.admit(Self.record(p)) }
        s.deposit(path: "a/1", track: Self.track(-20, peak: 0.5))
        _ = s.accept(Self.measured("a/1"))
        let failed = Self.record("a/2").failing(ToolError(.truncated, "cut", suggestion: "s"), tool: "lufs-measure")
        let out = s.accept(failed) + s.drain()
        #expect(out.count == 2)
        let a = try #require(out[0]["loudness"]?["album"])
        #expect(a["tracks"]?.intValue == 1)
        #expect(a["notes"]?.arrayValue?.first?.stringValue?.contains("“2”") == true)
        #expect(out[1].hasError)
        #expect(out[1]["loudness"] == nil)
    }

    @Test func recordsOutsideAlbumsPassWhenTheirTurnComes() {
        let s = AlbumStage(keyOf: { _ in nil })
        s.admit(Self.record("x"))
        #expect(s.accept(Self.record("x")).map(\.path) == ["x"])
        let failedIn = Self.record("y").failing(ToolError(.notFound, "m", suggestion: "s"), tool: "audio-probe")
        let k = Self.stage()
        k.admit(failedIn)  // came in failed: in no album
        #expect(k.accept(failedIn).count == 1)
    }
}

@Suite struct RunnerInputEndTests {
    @Test(arguments: [1, 3])
    func inputEndedIsReportedOnceBeforeTheLastOutputs(jobs: Int) {
        var events: [String] = []
        OrderedRunner<Int, Int>(jobs: jobs, window: 4) { i in usleep(UInt32(i % 2 == 0 ? 3000 : 0)); return i }
            .run(input: 0..<12, emit: { events.append("\($0)") }, inputEnded: { events.append("end") })
        #expect(events.filter { $0 == "end" }.count == 1)
        #expect(events.filter { $0 != "end" } == (0..<12).map(String.init))
        let end = events.firstIndex(of: "end")!
        #expect(end <= 12 && end >= 12 - 4)  // read-ahead is at most the window
    }
}

@Suite struct InputReadAheadTests {
    @Test func readsEverythingAheadInOrderAndSaysWhenItEnds() {
        final class Log: @unchecked Sendable { let lock = NSLock(); var seen: [Int] = []; var ended = false }
        let log = Log()
        let r = InputReadAhead(0..<5000, each: { i in log.lock.lock(); log.seen.append(i); log.lock.unlock() },
                          end: { log.lock.lock(); log.ended = true; log.lock.unlock() })
        var got: [Int] = []
        while let i = r.next() { got.append(i) }
        #expect(got == Array(0..<5000))
        log.lock.lock(); defer { log.lock.unlock() }
        #expect(log.seen == Array(0..<5000))
        #expect(log.ended)
    }
}
