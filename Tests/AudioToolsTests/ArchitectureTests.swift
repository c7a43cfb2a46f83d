import Foundation
import Testing

/// What the compiler can't keep: the layers of Package.swift as docs/architecture.md draws them.
/// The build (`--explicit-target-dependency-import-check error`) refuses an import a target hasn't
/// declared and a loop between targets; this suite keeps Package.swift itself to the diagram, the
/// signal library free of files, processes and the command line, and the tool files small.
@Suite struct ArchitectureTests {
    static let sourcesRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("Sources").path
    }()

    /// Each layer and the targets it may import (the C modules included); nothing else.
    static let layers: [String: Set<String>] = [
        "JSONValue": [],
        "AudioSignal": ["CVectorKernels", "CKissFFT"],
        "AudioIO": ["AudioSignal", "JSONValue", "CSndfile", "CSamplerate", "CSQLite", "CTagLib", "COpusFile"],
        "ToolRunner": ["AudioIO", "AudioSignal", "JSONValue"],
        "AudioToolsKit": ["ToolRunner", "AudioIO", "AudioSignal", "JSONValue"],
    ]
    static let executables = ["lufs-measure", "lufs-normalize", "vo-align", "audio-probe", "library-filter", "audio-tools"]
    /// Modules of the toolchain any layer may import.
    static let system: Set<String> = ["Foundation", "Glibc", "Darwin", "Dispatch", "Synchronization"]

    /// A target's Swift files, relative to its folder, with comments and string literals blanked.
    static func files(of target: String) -> [(file: String, code: String)] {
        let root = sourcesRoot + "/" + target
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var out: [(String, String)] = []
        for case let rel as String in walker where rel.hasSuffix(".swift") {
            guard let text = try? String(contentsOfFile: root + "/" + rel, encoding: .utf8) else { continue }
            out.append((rel, stripped(text)))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// Source text without comments and string literals, so prose can't make a dependency.
    static func stripped(_ text: String) -> String {
        var out = ""
        let s = Array(text.unicodeScalars)
        var i = 0
        while i < s.count {
            if s[i] == "/", i + 1 < s.count, s[i + 1] == "/" {
                while i < s.count, s[i] != "\n" { i += 1 }
            } else if s[i] == "/", i + 1 < s.count, s[i + 1] == "*" {
                i += 2
                while i + 1 < s.count, !(s[i] == "*" && s[i + 1] == "/") { i += 1 }
                i += 2
            } else if s[i] == "\"" {
                let triple = i + 2 < s.count && s[i + 1] == "\"" && s[i + 2] == "\""
                i += triple ? 3 : 1
                while i < s.count {
                    if s[i] == "\\" { i += 2; continue }
                    if triple, i + 2 < s.count, s[i] == "\"", s[i + 1] == "\"", s[i + 2] == "\"" { i += 3; break }
                    if !triple, s[i] == "\"" || s[i] == "\n" { i += 1; break }
                    i += 1
                }
                out += "\"\""
            } else {
                out.unicodeScalars.append(s[i]); i += 1
            }
        }
        return out
    }

    static func identifiers(_ code: String) -> Set<String> {
        var out = Set<String>()
        var word = ""
        for ch in code.unicodeScalars {
            if CharacterSet.alphanumerics.contains(ch) || ch == "_" { word.unicodeScalars.append(ch) } else {
                if !word.isEmpty { out.insert(word) }
                word = ""
            }
        }
        return out
    }

    static func imports(_ code: String) -> Set<String> {
        Set(code.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { return nil }
            return String(words[i + 1])
        })
    }

    @Test func theSourcesAreFound() {
        #expect(Self.files(of: "AudioSignal").contains { $0.file.hasSuffix("LoudnessMeter.swift") })
        #expect(!Self.files(of: "ToolRunner").isEmpty && !Self.files(of: "AudioToolsKit").isEmpty)
    }

    /// Every Swift folder under Sources/ is a layer or an executable: no code outside the diagram.
    @Test func everyTargetIsALayer() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.sourcesRoot).filter { !$0.hasPrefix("C") }
        #expect(Set(folders) == Set(Self.layers.keys).union(Self.executables))
    }

    /// A layer imports only the layers under it: Package.swift can't grow a dependency the diagram
    /// doesn't have without this failing (the compiler keeps the imports to Package.swift).
    @Test(arguments: ["JSONValue", "AudioSignal", "AudioIO", "ToolRunner", "AudioToolsKit"])
    func layersImportOnlyTheLayersUnder(target: String) {
        let allowed = Self.layers[target]!.union(Self.system)
        for (file, code) in Self.files(of: target) {
            let extra = Self.imports(code).subtracting(allowed)
            #expect(extra.isEmpty, "\(target)/\(file) imports \(extra.sorted())")
        }
    }

    /// The signal library is numbers in, numbers out: no file, process, environment or clock of
    /// the machine in it, so a program can run it on a buffer and a test without a file.
    @Test func theSignalLibraryTouchesNoFile() {
        let forbidden: Set<String> = ["FileManager", "FileHandle", "Process", "ProcessInfo", "URL", "fopen",
                                      "unlink", "mkstemp", "getenv", "pread", "pwrite", "Date", "exit"]
        for (file, code) in Self.files(of: "AudioSignal") {
            let named = Self.identifiers(code).intersection(forbidden)
            #expect(named.isEmpty, "AudioSignal/\(file) names \(named.sorted())")
        }
    }

    /// A tool's own file declares its options and wires them to the capabilities: small, and the
    /// five small in all. What grows past that is a capability that wants its own file. Counted in
    /// characters other than white space, so the formatter's line breaks don't move the count
    /// (about 75 a line as the files are written: 20,000 is some 270 lines, 75,000 some 1,000).
    @Test func toolFilesStaySmall() throws {
        var wiring = 0
        let kit = Self.sourcesRoot + "/AudioToolsKit"
        for tool in ["LufsMeasure", "LufsNormalize", "VoAlign", "AudioProbe", "LibraryFilter"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: "\(kit)/\(tool)") where file.hasPrefix(tool + ".") || file.hasPrefix(tool + "+") {
                let size = try String(contentsOfFile: "\(kit)/\(tool)/\(file)", encoding: .utf8)
                    .unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.count
                wiring += size
                #expect(size <= 20_000, "\(tool)/\(file) has \(size) characters other than white space")
            }
        }
        #expect(wiring > 0 && wiring < 75_000, "the tools' own files have \(wiring) characters other than white space")
    }

    /// Each executable's main.swift is one line that hands over to the tools' layer.
    @Test func executablesAreOneLine() throws {
        for tool in Self.executables {
            let text = try String(contentsOfFile: "\(Self.sourcesRoot)/\(tool)/main.swift", encoding: .utf8)
            let lines = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            #expect(lines.count == 1 && lines[0].hasPrefix("import AudioToolsKit;"), "\(tool)/main.swift: \(lines)")
        }
    }
}
