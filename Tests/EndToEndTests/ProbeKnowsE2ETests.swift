import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The probe says what it knows: zero bytes is `empty`, cloud-only needs evidence, and the
/// headers of WMA, Matroska and QuickTime files are read for their facts and tags.
@Suite struct ProbeKnowsE2ETests {
    static func ffmpeg(_ args: [String]) throws -> Bool {
        guard E2E.has("ffmpeg") else { Issue.record("ffmpeg is needed (make test-deps installs it)"); return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-y"] + args
        p.standardInput = FileHandle.nullDevice
        try p.run(); p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// The tools as on a machine without ffmpeg.
    static let noFFmpeg = ["PATH": "/nonexistent"]

    @Test func zeroBytesIsEmptyAndCloudOnlyNeedsEvidence() throws {
        let dir = E2E.tempDir("empty")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["song.mp3", "take.wav", ".later.m4a.icloud"] {
            _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data())
        }
        let probe = try E2E.run("audio-probe", [dir + "/song.mp3", dir + "/take.wav", dir + "/.later.m4a.icloud"])
        let codes = probe.records.map { $0["error"]?["code"]?.stringValue }
        #expect(codes == ["empty", "empty", "cloud-only"], "\(probe.stdout)")
        // An empty file with an audio name may be a placeholder a sync client hasn't filled in: say so.
        #expect(probe.records.first?["error"]?["suggestion"]?.stringValue?.contains("placeholder") == true, "\(probe.stdout)")
        let filter = try E2E.run("library-filter", ["--all", dir])
        let reasons = filter.records.map { $0["library"]?["reason"]?["code"]?.stringValue }
        #expect(reasons.sorted { ($0 ?? "") < ($1 ?? "") } == ["cloud-only", "empty", "empty"], "\(filter.stdout)")
        let measure = try E2E.run("lufs-measure", [dir + "/song.mp3"])
        #expect(measure.records.first?["error"]?["code"]?.stringValue == "empty")
    }

    @Test func wmaFactsComeFromTheASFHeadersWithoutFFmpeg() throws {
        let dir = E2E.tempDir("wma")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard try Self.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:duration=3", "-ac", "2", "-ar", "44100",
                               "-c:a", "wmav2", "-b:a", "128k", "-metadata", "title=Old Song", "-metadata", "album=Old Album",
                               "-metadata", "genre=Jazz", "-metadata", "date=1987", "-metadata", "track=7", dir + "/old.wma"]) else { return }
        let r = try E2E.run("audio-probe", [dir + "/old.wma"], environment: Self.noFFmpeg)
        let rec = try #require(r.records.first)
        #expect(rec["error"]?["code"]?.stringValue == "unsupported-codec")
        let p = try #require(rec["probe"])
        #expect(p["container"]?.stringValue == "asf")
        #expect(p["sample_rate"]?.intValue == 44100)
        #expect(p["channels"]?.intValue == 2)
        let seconds = try #require(p["duration_seconds"]?.doubleValue, "\(p)")
        #expect(abs(seconds - 3) < 0.1, "\(seconds)")
        let bps = try #require(p["bit_rate_bps"]?.intValue, "\(p)")
        #expect(abs(bps - 128_000) < 8_000, "\(bps)")
        #expect(p["tags"]?["title"]?.stringValue == "Old Song")
        // The Extended Content Description's WM/ attributes.
        #expect(p["tags"]?["album"]?.stringValue == "Old Album", "\(p)")
        #expect(p["tags"]?["genre"]?.stringValue == "Jazz")
        #expect(p["tags"]?["year"]?.stringValue == "1987")
        #expect(p["tags"]?["track"]?.stringValue == "7")
    }

    @Test func mp3BitRateFromItsFrameHeader() throws {
        let dir = E2E.tempDir("mp3-rate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard try Self.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:duration=3", "-c:a", "libmp3lame", "-b:a", "128k",
                               dir + "/cbr.mp3"]) else { Issue.record("ffmpeg couldn't encode MP3"); return }
        let r = try E2E.run("audio-probe", [dir + "/cbr.mp3"])
        let p = try #require(r.records.first?["probe"])
        let bps = try #require(p["bit_rate_bps"]?.intValue, "\(p)")
        #expect(abs(bps - 128_000) < 4_000, "\(bps)")
    }

    @Test func matroskaTagsAndDurationAreRead() throws {
        let dir = E2E.tempDir("mka")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard try Self.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:duration=3", "-c:a", "flac",
                               "-metadata", "title=Mkv Title", "-metadata", "artist=Mkv Artist", "-metadata", "album=Mkv Album",
                               "-metadata", "genre=Jazz", "-metadata", "date=1999", dir + "/song.mka"]) else { return }
        let r = try E2E.run("audio-probe", [dir + "/song.mka"], environment: Self.noFFmpeg)
        let p = try #require(r.records.first?["probe"])
        let tags = try #require(p["tags"])
        #expect(tags["title"]?.stringValue == "Mkv Title", "\(tags)")
        #expect(tags["artist"]?.stringValue == "Mkv Artist")
        #expect(tags["album"]?.stringValue == "Mkv Album")
        #expect(tags["genre"]?.stringValue == "Jazz")
        #expect(tags["year"]?.stringValue == "1999")
        let seconds = try #require(p["duration_seconds"]?.doubleValue, "\(p)")
        #expect(abs(seconds - 3) < 0.05)
    }

    @Test func quickTimeKeysAndMdtaTagsAreRead() throws {
        let dir = E2E.tempDir("mdta")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard try Self.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:duration=3", "-c:a", "aac", "-movflags", "use_metadata_tags",
                               "-metadata", "title=Mdta Title", "-metadata", "artist=Mdta Artist", "-metadata", "album=Mdta Album",
                               dir + "/clip.mov"]) else { return }
        let r = try E2E.run("audio-probe", [dir + "/clip.mov"], environment: Self.noFFmpeg)
        let tags = try #require(r.records.first?["probe"]?["tags"])
        #expect(tags["title"]?.stringValue == "Mdta Title", "\(tags)")
        #expect(tags["artist"]?.stringValue == "Mdta Artist")
        #expect(tags["album"]?.stringValue == "Mdta Album")
    }
}
