import Foundation
import Testing

/// The walls of docs/architecture.md, checked on the sources: which folder of the core may name
/// which other folder's types, where the C modules are imported, and how big Tools/ may grow.
/// A type belongs to the folder that declares it at top level; a folder "uses" another when its
/// code (comments and string literals left out) names one of that folder's types.
@Suite struct ArchitectureTests {
    static let core: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("Sources/AudioTools").path
    }()

    /// Each folder's files, with comments and string literals blanked out.
    static let sources: [String: [(file: String, code: String)]] = {
        var out: [String: [(String, String)]] = [:]
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: core) else { return [:] }
        for case let rel as String in walker where rel.hasSuffix(".swift") {
            let folder = String(rel.split(separator: "/")[0])
            guard let text = try? String(contentsOfFile: core + "/" + rel, encoding: .utf8) else { continue }
            out[folder, default: []].append((rel, stripped(text)))
        }
        return out
    }()

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
                if let f = word.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(f) { out.insert(word) }
                word = ""
            }
        }
        return out
    }

    /// Top-level type names and the folder declaring each.
    static let owners: [String: String] = {
        var out: [String: String] = [:]
        let kinds = ["struct", "enum", "class", "protocol", "typealias", "actor"]
        for (folder, files) in sources {
            for (_, code) in files {
                for line in code.split(separator: "\n") where !(line.first?.isWhitespace ?? true) {
                    let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
                    for (k, w) in words.enumerated() where kinds.contains(String(w)) && k + 1 < words.count {
                        if let f = words[k + 1].first, f.isUppercase { out[String(words[k + 1])] = folder }
                        break
                    }
                }
            }
        }
        return out
    }()

    /// folder → the other folders whose types it names, with the names.
    static let uses: [String: [String: Set<String>]] = {
        var out: [String: [String: Set<String>]] = [:]
        for (folder, files) in sources {
            for (_, code) in files {
                for name in identifiers(code) {
                    guard let owner = owners[name], owner != folder else { continue }
                    out[folder, default: [:]][owner, default: []].insert(name)
                }
            }
        }
        return out
    }()

    @Test func theSourcesAreFound() {
        #expect(Self.sources.keys.contains("Loudness") && Self.sources.keys.contains("Tools"))
        #expect(Self.owners["LoudnessMeter"] == "Loudness")
    }

    /// The capabilities are numbers in, numbers out: no record, JSON, error code, user sentence or
    /// command line in them.
    @Test(arguments: ["Loudness", "Normalize", "Align", "BitstreamGain", "QC", "Platforms", "Speech"])
    func capabilitiesKnowNoRecords(folder: String) {
        let forbidden: Set<String> = ["Record", "JSON", "ErrorCode", "ToolError", "UsageError", "ParsedOptions",
                                      "OptionSpec", "Diagnostics", "ToolInfo", "XMLText"]
        for (file, code) in Self.sources[folder] ?? [] {
            let named = Self.identifiers(code).intersection(forbidden)
            #expect(named.isEmpty, "\(file) names \(named.sorted())")
        }
        for other in ["Records", "CLI", "Tools", "Cache", "Report"] {
            #expect(Self.uses[folder]?[other] == nil, "\(folder) uses \(other): \(Self.uses[folder]?[other]?.sorted() ?? [])")
        }
    }

    /// CLI runs tools it is handed; the cache is handed its version and warning sink.
    @Test func theCommandLineAndTheCacheKnowNoTool() {
        for folder in ["CLI", "Cache"] {
            #expect(Self.uses[folder]?["Tools"] == nil, "\(folder) uses Tools: \(Self.uses[folder]?["Tools"]?.sorted() ?? [])")
        }
        #expect(Self.uses["Cache"]?["CLI"] == nil, "Cache uses CLI: \(Self.uses["Cache"]?["CLI"]?.sorted() ?? [])")
        #expect(Self.uses["IO"]?["CLI"] == nil && Self.uses["IO"]?["Tools"] == nil)
    }

    /// No two folders use each other, directly or around a longer loop.
    @Test func noLoopsBetweenFolders() {
        var index: [String: Int] = [:], low: [String: Int] = [:], stack: [String] = [], on = Set<String>()
        var loops: [[String]] = []
        var next = 0
        func visit(_ v: String) {
            index[v] = next; low[v] = next; next += 1; stack.append(v); on.insert(v)
            for w in (Self.uses[v] ?? [:]).keys.sorted() {
                if index[w] == nil { visit(w); low[v] = min(low[v]!, low[w]!) } else if on.contains(w) { low[v] = min(low[v]!, index[w]!) }
            }
            if low[v] == index[v] {
                var c: [String] = []
                while let w = stack.popLast() { on.remove(w); c.append(w); if w == v { break } }
                if c.count > 1 { loops.append(c.sorted()) }
            }
        }
        for v in Self.sources.keys.sorted() where index[v] == nil { visit(v) }
        let detail = loops.map { c in
            c.flatMap { a in c.compactMap { b in Self.uses[a]?[b].map { "\(a) → \(b) (\($0.sorted().prefix(3).joined(separator: ", ")))" } } }
        }
        #expect(loops.isEmpty, "folders in loops: \(detail)")
    }

    /// Only the decode layer, IO, the kernels and the FFT wrapper touch C.
    @Test func cModulesStayAtTheEdge() throws {
        let allowed = ["IO/", "Decode/", "Kernels/", "Align/RealFFT.swift"]
        let fm = FileManager.default
        for case let rel as String in fm.enumerator(atPath: Self.core)! where rel.hasSuffix(".swift") {
            let text = try String(contentsOfFile: Self.core + "/" + rel, encoding: .utf8)
            let importsC = text.split(separator: "\n").contains { $0.hasPrefix("import C") }
            #expect(!importsC || allowed.contains { rel.hasPrefix($0) }, "\(rel) imports a C module")
        }
    }

    /// Tools/ declares options and wires them: small files, and the wiring small in all. The
    /// sentences (Tools/Errors/) grow with each capability's errors, so only their files are capped.
    @Test func toolsStaySmall() throws {
        var wiring = 0
        for (file, _) in Self.sources["Tools"] ?? [] {
            let lines = try String(contentsOfFile: Self.core + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            if !file.hasPrefix("Tools/Errors/") { wiring += lines }
            #expect(lines <= 300, "\(file) has \(lines) lines")
        }
        #expect(wiring < 1000, "Tools/ (without Errors/) has \(wiring) lines")
    }

    /// Each executable is one line that hands over to the core.
    @Test func executablesAreOneLine() throws {
        let sources = URL(fileURLWithPath: Self.core).deletingLastPathComponent().path
        for tool in ["lufs-measure", "lufs-normalize", "vo-align", "audio-probe", "library-filter", "audio-tools"] {
            let text = try String(contentsOfFile: "\(sources)/\(tool)/main.swift", encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("//") && !$0.hasPrefix("import ") }
            #expect(code.count == 1, "\(tool)/main.swift: \(code)")
        }
    }
}
