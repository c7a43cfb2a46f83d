import Foundation
import Testing
@testable import AudioTools

@Suite struct OptionsTests {
    let specs: [OptionSpec] = [
        .value("target", "LUFS", help: "t"),
        .value("tag", "T", help: "t", repeatable: true),
        .flag("dual-mono", help: "d"),
    ] + HelpText.common

    @Test func bothSpellingsOfValues() throws {
        let a = try ParsedOptions.parse(["--target", "-14", "x.wav", "--jobs=3", "--dual-mono"], specs: specs)
        #expect(try a.double("target") == -14)
        #expect(a.paths == ["x.wav"])
        #expect(try a.int("jobs") == 3)
        #expect(a.flag("dual-mono"))
        let b = try ParsedOptions.parse(["--target=-23.5", "-j4"], specs: specs)
        #expect(try b.double("target") == -23.5)
        #expect(try b.int("jobs") == 4)
    }

    @Test func repeatedNonRepeatableIsAnError() {
        #expect(throws: UsageError.self) { try ParsedOptions.parse(["--target", "1", "--target", "2"], specs: specs) }
        #expect((try? ParsedOptions.parse(["--tag", "a", "--tag=b"], specs: specs).strings("tag")) == ["a", "b"])
    }

    @Test func errorsNameTheOption() {
        #expect(throws: UsageError("Unknown option '--targte'. Did you mean --target?")) {
            try ParsedOptions.parse(["--targte", "1"], specs: specs)
        }
        #expect(throws: UsageError("--target needs a value <LUFS>.")) { try ParsedOptions.parse(["--target"], specs: specs) }
        #expect(throws: UsageError("--dual-mono takes no value.")) { try ParsedOptions.parse(["--dual-mono=1"], specs: specs) }
        let p = try! ParsedOptions.parse(["--target", "loud"], specs: specs)
        #expect(throws: UsageError("--target: 'loud' is not a number.")) { try p.double("target") }
    }

    @Test func dashDashAndStdin() throws {
        let a = try ParsedOptions.parse(["-", "--", "--weird-name.wav"], specs: specs)
        #expect(a.paths == ["-", "--weird-name.wav"])
    }
}

@Suite struct RunnerTests {
    @Test(arguments: [1, 2, 7])
    func outputKeepsInputOrder(jobs: Int) {
        var out: [Int] = []
        let runner = OrderedRunner<Int, Int>(jobs: jobs, window: 8) { i in
            if i % 3 == 0 { usleep(2000) }
            return i * 10
        }
        runner.run(input: 0..<200) { out.append($0) }
        #expect(out == (0..<200).map { $0 * 10 })
    }

    @Test func emptyInput() {
        var count = 0
        OrderedRunner<Int, Int>(jobs: 2, window: 4) { $0 }.run(input: [Int]()) { _ in count += 1 }
        #expect(count == 0)
    }

    @Test func readsLazilyWithinTheWindow() {
        // The reader may run at most `window` items ahead of what has been emitted.
        let lock = NSLock()
        var produced = 0
        var maxAhead = 0
        var emitted = 0
        let input = AnySequence { () -> AnyIterator<Int> in
            var i = 0
            return AnyIterator {
                guard i < 100 else { return nil }
                lock.lock(); produced += 1; maxAhead = max(maxAhead, produced - emitted); lock.unlock()
                i += 1
                return i
            }
        }
        OrderedRunner<Int, Int>(jobs: 2, window: 5) { $0 }.run(input: input) { _ in
            lock.lock(); emitted += 1; lock.unlock()
        }
        #expect(emitted == 100)
        #expect(maxAhead <= 6)
    }
}

@Suite struct WalkerTests {
    @Test func walksSortedSkippingHidden() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for p in ["b/z.wav", "a.wav", "b/.hidden.wav", ".Song.mp3.icloud", "c/d/e.flac"] {
            let full = root + "/" + p
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: full, contents: Data())
        }
        let all = Array(DirectoryWalker(root: root)).map { String($0.dropFirst(root.count + 1)) }
        #expect(all == ["a.wav", "b/z.wav", "c/d/e.flac"])
        let withICloud = Array(DirectoryWalker(root: root, includeHidden: { $0.hasSuffix(".icloud") }))
        #expect(withICloud.count == 4)
    }
}
