import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// How the programs start. A release build (Makefile: the Swift runtime linked in) links them
/// position-dependent, so the dynamic loader has no pointers of the runtime to patch as each one
/// starts; a build against the runtime's shared libraries must stay position-independent, or the
/// loader warns on stderr about their protected symbols at every start.
@Suite struct StartUpE2ETests {
    /// The ELF header's e_type of a built program: 2 is ET_EXEC (fixed addresses), 3 ET_DYN (PIE).
    static func elfType(_ path: String) throws -> UInt16 {
        let f = try #require(FileHandle(forReadingAtPath: path), "\(path) can't be read")
        defer { try? f.close() }
        let h = try #require(try f.read(upToCount: 18))
        try #require(h.count == 18 && Array(h.prefix(4)) == [0x7F, 0x45, 0x4C, 0x46], "\(path) is not an ELF file")
        return UInt16(h[h.startIndex + 16]) | UInt16(h[h.startIndex + 17]) << 8
    }

    @Test func startsWithNothingOnStderr() throws {
        for tool in ToolCatalog.names {
            let r = try E2E.run(tool, ["--version"])
            #expect(r.status == 0)
            #expect(r.stdout.hasPrefix(tool + " ("))
            #expect(r.stderr.isEmpty, "\(tool) --version wrote to stderr: \(r.stderr.prefix(300))")
        }
    }

    /// Whichever way the programs under test were built: against the runtime's shared libraries
    /// they are position-independent (checked with readelf), so the loader has nothing to warn of.
    @Test(.enabled(if: E2E.has("readelf"), "needs readelf (binutils)"))
    func aProgramOnTheSharedRuntimeIsPositionIndependent() throws {
        for tool in ToolCatalog.names + ["audio-tools"] {
            let path = E2E.binDir.appendingPathComponent(tool).path
            let dynamic = try InstallE2ETests.sh("readelf", ["-d", path])
            try #require(dynamic.status == 0, "readelf -d \(tool): \(dynamic.stderr)")
            if dynamic.stdout.contains("libswiftCore") { #expect(try Self.elfType(path) == 3, "\(tool) is position-dependent") }
        }
    }

    /// The release build and the Debian package's link the runtime in and link position-dependent.
    @Test func theReleaseBuildsLinkPositionDependent() throws {
        for target in [["build", "CONFIG=release"], ["deb"]] {
            let r = try InstallE2ETests.sh("make", ["-n", "-s", "-C", InstallE2ETests.root.path] + target)
            let build = r.stdout.split(separator: "\n").filter { $0.contains("swift build") }
            #expect(build.count == 1 && build[0].contains("-c release --static-swift-stdlib -Xlinker -no-pie"),
                    "make -n \(target.joined(separator: " ")): \(build)")
        }
    }
}

/// On a terminal, stdout and stderr are one screen: each record starts on a line of its own,
/// never glued onto the progress line.
@Suite struct ProgressTerminalE2ETests {
    @Test(.enabled(if: E2E.has("script"), "needs script (util-linux) for a pseudo-terminal"))
    func recordsOnTheTerminalDoNotStartOnTheProgressLine() throws {
        let dir = E2E.tempDir("progress-tty")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["a.wav", "b.wav"] {
            try E2E.write(dir + "/" + name, rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)])
        }
        let tool = E2E.binDir.path + "/lufs-measure"
        let r = try E2E.program("/usr/bin/env", ["script", "-qec", "'\(tool)' --jobs 1 '\(dir)/a.wav' '\(dir)/b.wav'", "/dev/null"])
        #expect(r.status == 0, "\(r.stderr)")
        let screen = String(decoding: r.stdout, as: UTF8.self)
        #expect(screen.contains("lufs-measure: 1 done"), "the progress line is drawn: \(screen.debugDescription)")
        // Every record begins a line, or follows the sequence that clears the progress line.
        var records = 0
        for range in screen.ranges(of: "{\"loudness\"") {
            records += 1
            let before = Array(screen[..<range.lowerBound].utf8)
            #expect(before.isEmpty || before.last == 0x0A || before.suffix(4) == Array("\r\u{1B}[K".utf8)[...],
                    "\(screen.debugDescription)")
        }
        #expect(records == 2, "\(screen.debugDescription)")
        let end = Array(screen.utf8)
        #expect(end.last == 0x0A || end.suffix(4) == Array("\r\u{1B}[K".utf8)[...], "the line is cleared at the end: \(screen.debugDescription)")
    }
}
