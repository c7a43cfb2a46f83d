import Foundation
import Testing

/// Docs that run: every ```sh block of README.md and docs/*.md is run as written, with the built
/// tools first on PATH, and every ```make block is run twice (the second run must write nothing).
/// The convention authors follow is in docs/architecture.md ("Docs that run").
enum DocExamples {
    static let root = E2E.fixtures.deletingLastPathComponent()

    /// One fenced block and the hidden comments before it.
    struct Block {
        var file: String
        var line: Int
        var language: String
        var body: String
        var setup: [String] = []
        var checks: [String] = []
        var exitStatus: Int32 = 0
        var rerun = false
        var makeArguments = ""
        var noRun: String?

        var runs: Bool { noRun == nil && (DocExamples.shellLanguages.contains(language) || language == "make") }
        var place: String { "\(file):\(line)" }
    }

    static let shellLanguages: Set<String> = ["sh", "bash", "shell"]

    /// The documents whose examples run: README.md and every docs/*.md (or, while writing one,
    /// those named in DOC_EXAMPLES, separated by spaces).
    static var documents: [String] {
        if let only = ProcessInfo.processInfo.environment["DOC_EXAMPLES"], !only.isEmpty {
            return only.split(separator: " ").map(String.init)
        }
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The fenced blocks of one Markdown text, each with the `<!-- setup: … -->`,
    /// `<!-- check: … -->`, `<!-- expect: … -->`, `<!-- make: … -->` and `<!-- norun: … -->`
    /// comments written since the block before it.
    static func blocks(_ text: String, file: String) throws -> [Block] {
        let lines = text.components(separatedBy: "\n")
        var result: [Block] = []
        var pending = Block(file: file, line: 0, language: "", body: "")
        var i = 0
        while i < lines.count {
            let trimmed = lines[i].trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("<!--") {
                var comment = String(trimmed.dropFirst(4))
                while !comment.contains("-->") && i + 1 < lines.count {
                    i += 1
                    comment += "\n" + lines[i]
                }
                comment = String(comment[..<(comment.range(of: "-->")?.lowerBound ?? comment.endIndex)])
                let content = comment.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let colon = content.firstIndex(of: ":") else { i += 1; continue }
                let key = content[..<colon].trimmingCharacters(in: .whitespaces)
                let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                switch key {
                case "setup": pending.setup.append(value)
                case "check": pending.checks.append(value)
                case "make": pending.makeArguments = value
                case "norun": pending.noRun = value.isEmpty ? "no reason given" : value
                case "expect":
                    for word in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                        if word == "rerun" { pending.rerun = true }
                        else if word.hasPrefix("exit "), let n = Int32(word.dropFirst(5)) { pending.exitStatus = n }
                        else { throw DocError("\(file):\(i + 1): unknown expectation “\(word)” (use “exit N” or “rerun”)") }
                    }
                default: break
                }
            } else if trimmed.hasPrefix("```") {
                let fence = String(trimmed.prefix { $0 == "`" })
                var block = pending
                block.line = i + 1
                block.language = String(trimmed.dropFirst(fence.count)).split(separator: " ").first.map(String.init) ?? ""
                var body: [String] = []
                i += 1
                while i < lines.count && !lines[i].trimmingCharacters(in: .whitespaces).hasPrefix(fence) {
                    body.append(lines[i])
                    i += 1
                }
                block.body = body.joined(separator: "\n")
                result.append(block)
                pending = Block(file: file, line: 0, language: "", body: "")
            }
            i += 1
        }
        return result
    }

    struct DocError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// What a run of a script printed.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `script` with bash (-e -o pipefail) in `folder`, the tools first on PATH and HOME a
    /// folder of the scratch's own; a script running longer than `limit` seconds is ended.
    static func run(_ script: String, in folder: String, scripts: String, name: String,
                    extra: [String: String] = [:], limit: Int = 180) throws -> Output {
        let path = scripts + "/" + name + ".sh"
        try ("set -e -o pipefail\n" + script + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment
        for key in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "AUDIO_TOOLS_CACHE"] { env[key] = nil }
        // The scratch's bin/ first: a hidden set-up may put a stand-in there for what a test
        // can't reach (other hosts); then the tools as built.
        env["PATH"] = folder + "/bin:" + E2E.binDir.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["HOME"] = folder + "/home"
        env["FIXTURES"] = root.appendingPathComponent("Fixtures").path
        for (k, v) in extra { env[k] = v }
        // Signals back to their defaults: a test runner may ignore some (SIGTERM, SIGINT), and a
        // child would inherit that, where a user's shell has them (records.md kills a tool).
        let r = try E2E.program("/usr/bin/env", ["--default-signal", "timeout", "-k", "5", String(limit), "bash", path],
                                environment: env, directory: folder)
        return Output(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self), stderr: r.stderr)
    }

    /// Every file below `folder` with its size and modification time: what a second `make` must leave alone.
    static func snapshot(_ folder: String) -> [String: String] {
        var result: [String: String] = [:]
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return result }
        while let name = walk.nextObject() as? String {
            if name == "Fixtures" || name.hasPrefix("Fixtures/") { walk.skipDescendants(); continue }
            var st = stat()
            guard lstat(folder + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            result[name] = "\(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        }
        return result
    }

    static func failure(_ block: Block, _ what: String, _ script: String, _ o: Output) -> String {
        func tail(_ s: String) -> String { s.count > 4000 ? "…" + s.suffix(4000) : s }
        return "\(block.place): \(what)\n--- ran\n\(script)\n--- exit status \(o.status)\n--- stdout\n\(tail(o.stdout))\n--- stderr\n\(tail(o.stderr))"
    }

    /// Runs one document's blocks in order in one scratch folder; the first failure is returned
    /// (later blocks build on earlier ones, so they are not run).
    static func runDocument(_ file: String) throws -> (ran: Int, failure: String?) {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let all = try blocks(text, file: file)
        let name = file.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: ".md", with: "")
        let scratch = E2E.tempDir("doc-" + name), scripts = E2E.tempDir("doc-scripts-" + name)
        defer {
            try? FileManager.default.removeItem(atPath: scratch)
            try? FileManager.default.removeItem(atPath: scripts)
        }
        try FileManager.default.createDirectory(atPath: scratch + "/home", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/Fixtures", withDestinationPath: root.appendingPathComponent("Fixtures").path)
        var ran = 0
        for (n, block) in all.enumerated() where block.runs {
            if let prompt = block.body.split(separator: "\n").first(where: { $0.hasPrefix("$ ") }) {
                return (ran, "\(block.place): a ```\(block.language) block runs as written, but “\(prompt)” is a prompt and its output: make it ```console (or drop the prompt)")
            }
            for (k, setup) in block.setup.enumerated() {
                let o = try run(setup, in: scratch, scripts: scripts, name: "\(n)-setup\(k)")
                if o.status != 0 { return (ran, failure(block, "its hidden set-up failed", setup, o)) }
            }
            let stdoutFile = scripts + "/\(n).stdout", stderrFile = scripts + "/\(n).stderr"
            if block.language == "make" {
                try block.body.write(toFile: scratch + "/Makefile", atomically: true, encoding: .utf8)
                let command = "make " + block.makeArguments
                let first = try run(command, in: scratch, scripts: scripts, name: "\(n)-make1")
                if first.status != block.exitStatus {
                    return (ran, failure(block, "the recipe exited \(first.status), the docs expect \(block.exitStatus)", command, first))
                }
                let before = snapshot(scratch)
                let second = try run(command, in: scratch, scripts: scripts, name: "\(n)-make2")
                let after = snapshot(scratch)
                if second.status != block.exitStatus { return (ran, failure(block, "the second run of the recipe failed", command, second)) }
                if before != after {
                    let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
                    return (ran, failure(block, "the second run of the recipe wrote \(changed.joined(separator: ", ")); it should do nothing", command, second))
                }
                try first.stdout.write(toFile: stdoutFile, atomically: true, encoding: .utf8)
                try first.stderr.write(toFile: stderrFile, atomically: true, encoding: .utf8)
            } else {
                for pass in block.rerun ? [1, 2] : [1] {
                    let o = try run(block.body, in: scratch, scripts: scripts, name: "\(n)-run\(pass)")
                    if o.status != block.exitStatus {
                        let what = pass == 2 ? "run a second time, it exited \(o.status)" : "it exited \(o.status), the docs expect \(block.exitStatus)"
                        return (ran, failure(block, what, block.body, o))
                    }
                    try o.stdout.write(toFile: stdoutFile, atomically: true, encoding: .utf8)
                    try o.stderr.write(toFile: stderrFile, atomically: true, encoding: .utf8)
                }
            }
            for (k, check) in block.checks.enumerated() {
                let o = try run(check, in: scratch, scripts: scripts, name: "\(n)-check\(k)",
                                extra: ["BLOCK_STDOUT": stdoutFile, "BLOCK_STDERR": stderrFile])
                if o.status != 0 {
                    let printed = "\n--- the block printed on stdout\n" + ((try? String(contentsOfFile: stdoutFile, encoding: .utf8)) ?? "")
                        + "\n--- and on stderr\n" + ((try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "")
                    return (ran, failure(block, "its hidden check failed", check, o) + printed)
                }
            }
            ran += 1
        }
        return (ran, nil)
    }

    static let programs = ["bash", "make", "jq", "ffmpeg", "sox", "espeak-ng", "parallel", "timeout"]
    static var missing: [String] { programs.filter { !E2E.has($0) } }
}

@Suite("Docs that run")
struct DocExamplesE2ETests {
    @Test("Every ```sh and ```make example of a document runs as written",
          .enabled(if: DocExamples.missing.isEmpty, "needs \(DocExamples.missing.joined(separator: ", ")) (make test-deps installs them)"),
          arguments: DocExamples.documents)
    func document(_ file: String) throws {
        let (_, failure) = try DocExamples.runDocument(file)
        if let failure { Issue.record(Comment(rawValue: failure)) }
    }

    @Test("The block reader: languages, hidden set-up, checks and expectations attach to the next block")
    func reader() throws {
        let text = """
        Intro.
        <!-- setup: touch a.wav -->
        <!-- setup:
        touch b.wav
        touch c.wav
        -->
        <!-- expect: exit 1, rerun -->
        <!-- check: test -f out/a.wav -->
        ```sh
        lufs-measure a.wav
        ```
        ```console
        $ lufs-measure a.wav
        ```
        <!-- norun: a fragment of the rule above -->
        ```make
        x: y
        ```
        """
        let b = try DocExamples.blocks(text, file: "t.md")
        #expect(b.count == 3)
        #expect(b[0].line == 9 && b[0].language == "sh" && b[0].body == "lufs-measure a.wav")
        #expect(b[0].setup == ["touch a.wav", "touch b.wav\ntouch c.wav"])
        #expect(b[0].checks == ["test -f out/a.wav"])
        #expect(b[0].exitStatus == 1 && b[0].rerun && b[0].runs)
        #expect(b[1].language == "console" && !b[1].runs && b[1].setup.isEmpty && b[1].exitStatus == 0)
        #expect(b[2].language == "make" && !b[2].runs && b[2].noRun == "a fragment of the rule above")
        #expect(throws: DocExamples.DocError.self) { try DocExamples.blocks("<!-- expect: exit one -->\n```sh\ntrue\n```", file: "t.md") }
    }
}
