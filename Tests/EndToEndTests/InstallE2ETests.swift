import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What a user gets from `make install` and the Debian package: man pages that `man` renders,
/// completion scripts that their shells load, and every file in its place.
@Suite struct InstallE2ETests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a program found on PATH; stdout and stderr are read through files so neither can block.
    static func sh(_ program: String, _ args: [String], environment extra: [String: String] = [:],
                   in dir: URL? = nil) throws -> E2E.Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [program] + args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in extra { env[k] = v }
        p.environment = env
        if let dir { p.currentDirectoryURL = dir }
        let tmp = E2E.tempDir("sh")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        _ = FileManager.default.createFile(atPath: tmp + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: tmp + "/err", contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: tmp + "/out")
        p.standardError = FileHandle(forWritingAtPath: tmp + "/err")
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return E2E.Run(status: p.terminationStatus,
                       stdout: (try? String(contentsOfFile: tmp + "/out", encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOfFile: tmp + "/err", encoding: .utf8)) ?? "")
    }

    static func files(under dir: String) -> [String] {
        let e = FileManager.default.enumerator(atPath: dir)
        var out: [String] = []
        while let f = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + f, isDirectory: &isDir), !isDir.boolValue { out.append(f) }
        }
        return out.sorted()
    }

    static func expectedFiles(man: String, zsh: String, manSuffix: String = "") -> [String] {
        var files = ["\(man)/man7/audio-tools-records.7\(manSuffix)", "bin/audio-tools", "\(man)/man1/audio-tools.1\(manSuffix)"]
        files.append("share/audio-tools/\(SpeechModelFile.fileName)")  // the speech detector's weights (--dialogue)
        for t in ToolCatalog.names {
            files += ["bin/\(t)", "\(man)/man1/\(t).1\(manSuffix)", "share/bash-completion/completions/\(t)",
                      "\(zsh)/_\(t)", "share/fish/vendor_completions.d/\(t).fish"]
        }
        files += installedDocs.map { "share/doc/audio-tools/" + $0 }
        return files.sorted()
    }

    /// The doc pages make install ships (the man pages cite them): README.md and docs/*.md, the report picture, and docs/schema/*.json.
    static var installedDocs: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.path + "/docs")) ?? []
        let schemas = (try? FileManager.default.contentsOfDirectory(atPath: root.path + "/docs/schema")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") || $0 == "lufs-measure-report.svg" }
            + schemas.filter { $0.hasSuffix(".json") }.map { "schema/" + $0 }  // the records' schemas records.md links
    }

    @Test(.enabled(if: E2E.has("man"), "needs man (man-db; make test-deps installs it)"))
    func manPagesRenderWithManAndListEveryOption() throws {
        let dir = E2E.tempDir("man")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for info in ToolCatalog.all {
            let gen = try E2E.run(info.name, ["--generate-man"])
            #expect(gen.status == 0 && gen.stderr.isEmpty)
            let path = dir + "/\(info.name).1"
            try gen.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            // --warnings makes groff report anything it can't format; the page must have none.
            let shown = try Self.sh("man", ["--warnings", "-l", path], environment: ["MANWIDTH": "120", "MANPAGER": "cat", "LC_ALL": "C.UTF-8"])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stderr.isEmpty, "\(info.name): \(shown.stderr)")
            let text = shown.stdout
            #expect(text.contains("\(info.name) - "), "NAME line")
            for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
                #expect(text.contains("\n" + section + "\n"), "\(info.name): \(section)")
            }
            for o in info.options + HelpText.common where !o.hidden {
                #expect(text.contains("--" + o.name), "\(info.name): --\(o.name) missing from the rendered page")
            }
            #expect(!text.contains("generate-"))
            #expect(text.contains("audio-tools-records(7)"))
        }
        let records = try E2E.run("lufs-measure", ["--generate-records-man", Self.root.path + "/docs/records.md"])
        #expect(records.status == 0)
        let path = dir + "/audio-tools-records.7"
        try records.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let shown = try Self.sh("man", ["--warnings", "-l", path], environment: ["MANWIDTH": "120", "MANPAGER": "cat", "LC_ALL": "C.UTF-8"])
        #expect(shown.status == 0 && shown.stderr.isEmpty, "\(shown.stderr)")
        for code in ErrorCode.allCases { #expect(shown.stdout.contains(code.rawValue)) }
        #expect(shown.stdout.contains("EXIT STATUS"))
    }

    @Test func recordsPageRefusesAMissingSource() throws {
        let r = try E2E.run("lufs-measure", ["--generate-records-man", "/nonexistent/records.md"])
        #expect(r.status == 2 && r.stdout.isEmpty)
        #expect(r.stderr.contains("“records.md” can't be read"))
        let bad = try E2E.run("vo-align", ["--generate-completion", "tcsh"])
        #expect(bad.status == 2 && bad.stderr.contains("'tcsh' is not one of: bash, zsh, fish"))
    }

    @Test func versionComesFromTheOneConstant() throws {
        for t in ToolCatalog.names {
            let r = try E2E.run(t, ["--version"])
            #expect(r.status == 0 && r.stdout == "\(t) (audio-tools \(AudioToolsVersion.string))\n")
        }
    }

    /// Completes `words` (the last one being completed) with the tool's bash script loaded as
    /// bash-completion would load it, and returns what bash offers.
    static func bashComplete(_ script: String, _ tool: String, _ words: [String], in dir: String) throws -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let r = try sh("bash", ["--norc", "--noprofile", "-c", """
            source '\(script)' || exit 3
            complete -p \(tool) >/dev/null || exit 4
            COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            \(ShellCompletion.bashFunction(tool)) || exit 5
            printf '%s\\n' "${COMPREPLY[@]}"
            """], in: URL(fileURLWithPath: dir))
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test func bashCompletesOptionsPresetsAndPaths() throws {
        let dir = E2E.tempDir("bash")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/takes", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/tone.wav", contents: Data())
        for t in ToolCatalog.names {
            let gen = try E2E.run(t, ["--generate-completion", "bash"])
            try gen.stdout.write(toFile: dir + "/\(t).bash", atomically: true, encoding: .utf8)
            let loaded = try Self.sh("bash", ["--norc", "-c", "source '\(dir)/\(t).bash' && complete -p \(t)"])
            #expect(loaded.status == 0 && loaded.stderr.isEmpty && loaded.stdout == "complete -F \(ShellCompletion.bashFunction(t)) \(t)\n",
                    "\(t): \(loaded.stderr)")
        }
        let measure = dir + "/lufs-measure.bash", normalize = dir + "/lufs-normalize.bash", align = dir + "/vo-align.bash"
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "--pre"], in: dir) == ["--preset"])
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "--preset", ""], in: dir)
                == LoudnessPreset.all.map(\.name).sorted())
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "--preset", "pod"], in: dir) == ["podcast"])
        // --preset=po: bash splits the word at '='.
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "--preset", "=", "so"], in: dir) == ["social"])
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "--layout", "5."], in: dir)
                == ChannelLayout.names.components(separatedBy: ", ").filter { $0.hasPrefix("5.") }.sorted())
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "--target", ""], in: dir) == [])
        #expect(try Self.bashComplete(measure, "lufs-measure", ["lufs-measure", "-j", "2", "t"], in: dir) == ["takes", "tone.wav"])
        #expect(try Self.bashComplete(normalize, "lufs-normalize", ["lufs-normalize", "--peak", ""], in: dir) == ["ignore", "limit", "reduce"])
        #expect(try Self.bashComplete(normalize, "lufs-normalize", ["lufs-normalize", "--format", "fl"], in: dir) == ["flac"])
        #expect(try Self.bashComplete(normalize, "lufs-normalize", ["lufs-normalize", "--out-dir", "t"], in: dir) == ["takes"])
        #expect(try Self.bashComplete(align, "vo-align", ["vo-align", "--reference", "t"], in: dir) == ["takes", "tone.wav"])
        #expect(try Self.bashComplete(align, "vo-align", ["vo-align", "--h"], in: dir) == ["--help"])
    }

    @Test(.enabled(if: E2E.has("fish"), "fish is not installed (optional)"))
    func fishCompletesPresets() throws {
        let dir = E2E.tempDir("fish")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for t in ToolCatalog.names {
            let script = try E2E.run(t, ["--generate-completion", "fish"])
            try script.stdout.write(toFile: dir + "/\(t).fish", atomically: true, encoding: .utf8)
            let parsed = try Self.sh("fish", ["--no-config", "-n", dir + "/\(t).fish"])
            #expect(parsed.status == 0 && parsed.stderr.isEmpty, "\(t): \(parsed.stderr)")
        }
        let r = try Self.sh("fish", ["--no-config", "-c", "source \(dir)/lufs-normalize.fish; complete -C'lufs-normalize --preset '; complete -C'lufs-normalize --fade-c'"])
        #expect(r.status == 0, "\(r.stderr)")
        let offered = r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        #expect(offered == LoudnessPreset.all.map(\.name).sorted() + ["--fade-curve"])
    }

    /// Types `line` and Tab into an interactive zsh (in a pseudo-terminal, with the completion
    /// system loaded from `fpath`) and returns what the terminal shows once it shows `expected`
    /// (or after 10 s).
    static func zshComplete(_ line: String, until expected: String, fpath: String) throws -> String {
        let harness = fpath + "/harness.zsh"
        try """
            zmodload zsh/zpty
            zpty z 'zsh -f -i'
            zpty -w z "PS1='READY> '; fpath=(\(fpath) \\$fpath); autoload -U compinit; compinit -u -D"
            zpty -r z chunk '*READY> '
            zpty -r z chunk '*READY> '
            zpty -w -n z $1$'\\t'
            out=''
            for i in {1..100}; do
              zpty -r -t z chunk && out+=$chunk
              [[ $out == *"$2"* ]] && break
              sleep 0.1
            done
            zpty -d z
            print -r -- $out
            """.write(toFile: harness, atomically: true, encoding: .utf8)
        return try sh("timeout", ["30", "zsh", "-f", harness, line, expected]).stdout
    }

    @Test(.enabled(if: E2E.has("zsh"), "zsh is not installed (optional)"))
    func zshCompletesPresetsAndOptions() throws {
        let dir = E2E.tempDir("zsh")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for t in ToolCatalog.names {
            let gen = try E2E.run(t, ["--generate-completion", "zsh"])
            try gen.stdout.write(toFile: dir + "/_\(t)", atomically: true, encoding: .utf8)
            let r = try Self.sh("zsh", ["-n", dir + "/_\(t)"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(t): \(r.stderr)")
        }
        // What the Tab key does in zsh with these scripts on fpath.
        for (line, completed) in [("lufs-measure --preset pod", "lufs-measure --preset podcast"),
                                  ("lufs-normalize --fade-c", "lufs-normalize --fade-curve")] {
            let shown = try Self.zshComplete(line, until: completed, fpath: dir)
            #expect(shown.contains(completed), "\(shown)")
        }
    }

    @Test(.enabled(if: E2E.has("make"), "needs make"))
    func makeInstallPutsEverythingUnderThePrefixAndUninstallRemovesIt() throws {
        let prefix = E2E.tempDir("prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        // The real `make install`, with its build step a no-op (SWIFT=true) and the tools this test
        // run built.
        let install = try Self.sh("make", ["-s", "-C", Self.root.path, "install", "SWIFT=true", "BIN=\(E2E.binDir.path)", "PREFIX=\(prefix)"])
        #expect(install.status == 0, "\(install.stderr)")
        #expect(Self.files(under: prefix) == Self.expectedFiles(man: "share/man", zsh: "share/zsh/site-functions"))
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/lufs-measure"))
        // What was installed is what the tools generate.
        let page = try String(contentsOfFile: prefix + "/share/man/man1/vo-align.1", encoding: .utf8)
        #expect(page == (try E2E.run("vo-align", ["--generate-man"])).stdout)
        // Every page audio-tools-records(7) cites is installed beside it, and no installed page
        // sends its reader to the source tree's `make bench`.
        let records = try String(contentsOfFile: Self.root.path + "/docs/records.md", encoding: .utf8)
        let links = records.components(separatedBy: "](").dropFirst().compactMap { $0.split(separator: ")").first }
        for cited in links.map({ String($0.split(separator: "#").first ?? "") }).filter({ $0.hasSuffix(".md") && !$0.contains("/") }) {
            #expect(FileManager.default.fileExists(atPath: prefix + "/share/doc/audio-tools/" + cited), "\(cited)")
        }
        for man in Self.files(under: prefix + "/share/man") {
            let text = try String(contentsOfFile: prefix + "/share/man/" + man, encoding: .utf8)
            #expect(!text.contains("make bench"), "\(man)")
        }
        // bin holds one program; each tool is a link to it, and runs as the tool it is named.
        for t in ToolCatalog.names {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: prefix + "/bin/\(t)")) == "audio-tools", "\(t)")
        }
        let installed = try E2E.program(prefix + "/bin/lufs-measure", ["--version"])
        #expect(installed.status == 0 && String(decoding: installed.stdout, as: UTF8.self).hasPrefix("lufs-measure ("))
        let probe = try E2E.program(prefix + "/bin/audio-probe", [Self.root.path + "/Fixtures/clips/voiceover.wav"])
        #expect(probe.status == 0 && String(decoding: probe.stdout, as: UTF8.self).contains("\"probe\":"), "\(probe.stderr)")
        // The installed tools find the detector's weights beside them.
        let dialogue = try E2E.program(prefix + "/bin/lufs-measure", ["--dialogue", Self.root.path + "/Fixtures/clips/voiceover.wav"],
                                       environment: ProcessInfo.processInfo.environment.filter { $0.key != SpeechModelFile.environmentVariable })
        #expect(String(decoding: dialogue.stdout, as: UTF8.self).contains("\"dialogue\":"), "\(dialogue.stderr)")
        let uninstall = try Self.sh("make", ["-s", "-C", Self.root.path, "uninstall", "PREFIX=\(prefix)"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(Self.files(under: prefix) == [])
    }

    /// Runs `lufs-measure --dialogue` and `--preset netflix` by name, with `bin` first on PATH,
    /// from a folder outside the tree and without the weights' environment variable, the way a
    /// user runs an installed tool; both must measure the dialogue (the weights are found from
    /// the program's own file, not from the name it was called by).
    static func expectDialogueByName(bin: String) throws {
        let cwd = E2E.tempDir("by-name")
        defer { try? FileManager.default.removeItem(atPath: cwd) }
        try FileManager.default.copyItem(atPath: root.path + "/Fixtures/clips/voiceover.wav", toPath: cwd + "/programme.wav")
        var env = ProcessInfo.processInfo.environment.filter { $0.key != SpeechModelFile.environmentVariable }
        env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        for args in [["--dialogue", "programme.wav"], ["--preset", "netflix", "programme.wav"]] {
            let r = try E2E.program("/bin/sh", ["-c", "exec lufs-measure \"$@\"", "sh"] + args, environment: env, directory: cwd)
            let out = String(decoding: r.stdout, as: UTF8.self)
            #expect(!out.contains("not-found") && !r.stderr.contains("not-found"), "\(args): \(r.stderr)")
            let record = try JSON.parse(String(out.split(separator: "\n").first ?? ""))
            #expect(record["loudness"]?["dialogue"]?["integrated_lufs"]?.doubleValue != nil, "\(args): \(out) \(r.stderr)")
        }
    }

    @Test(.enabled(if: E2E.has("make"), "needs make"))
    func installedToolsCalledByNameFromPATHFindTheSpeechWeights() throws {
        let dest = E2E.tempDir("destdir")
        defer { try? FileManager.default.removeItem(atPath: dest) }
        let install = try Self.sh("make", ["-s", "-C", Self.root.path, "install-files", "BIN=\(E2E.binDir.path)",
                                           "DESTDIR=\(dest)", "PREFIX=/usr"])
        #expect(install.status == 0, "\(install.stderr)")
        try Self.expectDialogueByName(bin: dest + "/usr/bin")
    }

    @Test(.enabled(if: E2E.has("make") && E2E.has("dpkg-query") && E2E.has("pkg-config"), "needs make, pkg-config and dpkg (Debian)"))
    func debianTreeToolsCalledByNameFromPATHFindTheSpeechWeights() throws {
        let dir = E2E.tempDir("deb-by-name")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tree = try Self.sh("make", ["-s", "-C", Self.root.path, "deb-tree", "BIN=\(E2E.binDir.path)",
                                        "DEB_ROOT=\(dir)/root", "DEB_STRIP="])
        #expect(tree.status == 0, "\(tree.stderr)")
        try Self.expectDialogueByName(bin: dir + "/root/usr/bin")
    }

    /// `audio-tools TOOL ...` is TOOL; without a tool it lists them, and says so when the name is wrong.
    @Test func theOneProgramRunsAsTheToolItIsGiven() throws {
        let bin = E2E.binDir.path + "/audio-tools"
        let measured = try E2E.program(bin, ["lufs-measure", Self.root.path + "/Fixtures/clips/voiceover.wav"])
        let direct = try E2E.run("lufs-measure", [Self.root.path + "/Fixtures/clips/voiceover.wav"])
        #expect(measured.status == 0 && String(decoding: measured.stdout, as: UTF8.self) == direct.stdout)
        let help = try E2E.program(bin, ["library-filter", "--help"])
        #expect(String(decoding: help.stdout, as: UTF8.self) == (try E2E.run("library-filter", ["--help"])).stdout)
        let list = try E2E.program(bin, ["--help"])
        #expect(list.status == 0)
        for t in ToolCatalog.names { #expect(String(decoding: list.stdout, as: UTF8.self).contains("  \(t)"), "\(t)") }
        let wrong = try E2E.program(bin, ["lufs-mesure"])
        #expect(wrong.status == 2 && wrong.stdout.isEmpty && wrong.stderr.contains("'lufs-mesure' is not one of the tools"))
        #expect(try E2E.program(bin, []).status == 2)
        // Its own page renders cleanly and names every tool.
        let page = try E2E.program(bin, ["--generate-man"])
        let dir = E2E.tempDir("multicall-man")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try page.stdout.write(to: URL(fileURLWithPath: dir + "/audio-tools.1"))
        if E2E.has("man") {
            let shown = try Self.sh("man", ["--warnings", "-l", dir + "/audio-tools.1"], environment: ["MANWIDTH": "120", "MANPAGER": "cat", "LC_ALL": "C.UTF-8"])
            #expect(shown.status == 0 && shown.stderr.isEmpty, "\(shown.stderr)")
            for t in ToolCatalog.names { #expect(shown.stdout.contains(t + "(1)"), "\(t)") }
            #expect(shown.stdout.contains("\nTOOLS\n"))
        }
    }

    @Test(.enabled(if: E2E.has("make") && E2E.has("dpkg-query") && E2E.has("pkg-config"), "needs make, pkg-config and dpkg (Debian)"))
    func debianPackageTreeHoldsEveryFileAndNamesItsLibraries() throws {
        let dir = E2E.tempDir("deb")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tree = try Self.sh("make", ["-s", "-C", Self.root.path, "deb-tree", "BIN=\(E2E.binDir.path)",
                                        "DEB_ROOT=\(dir)/root", "DEB_STRIP="])
        #expect(tree.status == 0, "\(tree.stderr)")
        let files = Self.files(under: dir + "/root")
        var expected = Self.expectedFiles(man: "share/man", zsh: "share/zsh/vendor-completions", manSuffix: ".gz").map { "usr/" + $0 }
        expected += ["DEBIAN/control", "usr/share/doc/audio-tools/changelog.gz", "usr/share/doc/audio-tools/copyright"]
        #expect(files == expected.sorted())
        #expect(Self.files(under: dir) == files.map { "root/" + $0 }, "nothing left beside the tree")
        let control = try String(contentsOfFile: dir + "/root/DEBIAN/control", encoding: .utf8)
        func field(_ name: String) -> String? {
            control.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
        }
        #expect(field("Package") == "audio-tools")
        #expect(field("Version") == AudioToolsVersion.string)
        #expect(field("Recommends") == "ffmpeg")
        let depends = (field("Depends") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0] }
        // The runtime packages (not the -dev ones) of the libraries the Makefile's LIB_DEPS lists.
        #expect(depends.contains("libsndfile1"), "\(depends)")
        #expect(depends.contains("libsamplerate0"), "\(depends)")
        #expect(depends.contains { $0.hasPrefix("libkissfft-float") }, "\(depends)")
        #expect(!depends.contains { $0.hasSuffix("-dev") })
        // The man pages in the package are what the tools generate, compressed.
        let man = try Self.sh("zcat", [dir + "/root/usr/share/man/man1/lufs-normalize.1.gz"])
        #expect(man.stdout == (try E2E.run("lufs-normalize", ["--generate-man"])).stdout)
        // dpkg-deb accepts the tree as a package (uncompressed here, to stay fast).
        if E2E.has("dpkg-deb") {
            let deb = try Self.sh("dpkg-deb", ["--root-owner-group", "-Znone", "--build", dir + "/root", dir + "/t.deb"])
            #expect(deb.status == 0, "\(deb.stderr)")
            let listed = try Self.sh("dpkg-deb", ["-c", dir + "/t.deb"])
            #expect(listed.stdout.contains("./usr/bin/lufs-measure"))
            #expect(listed.stdout.contains("root/root"))
        }
    }
}
