/// roff for man pages: escaping, the inline Markdown the help texts and docs use (`code`,
/// **bold**, *emphasis*, [links](x.md)), and a block converter for the Markdown of a doc page
/// (headings, paragraphs, lists, tables, fenced code). Only the subset the docs use.
public enum Roff {
    /// Text made safe for roff: backslashes shown as themselves, and every `-` an ASCII hyphen
    /// (`\-`), so options and commands can be searched for and copied from the rendered page.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in text {
            switch c {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(c)
            }
        }
        return out
    }

    /// A line of text that roff will not read as a request (a leading `.` or `'`).
    public static func line(_ text: String) -> String {
        text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text
    }

    /// Inline Markdown to roff: `code` and **bold** in bold, *emphasis* in italics, links as
    /// their text (a link to the page of one of `tools`, `lufs-measure.md`, as `lufs-measure(1)`).
    public static func inline(_ text: String, tools: [String] = []) -> String {
        var out = ""
        let chars = Array(text)
        var i = 0
        var plain = ""
        func flush() { out += escape(plain); plain = "" }
        while i < chars.count {
            let c = chars[i]
            if c == "`", let end = chars[(i + 1)...].firstIndex(of: "`") {
                flush()
                out += "\\fB" + escape(String(chars[(i + 1)..<end])) + "\\fR"
                i = end + 1
            } else if c == "*", i + 1 < chars.count, chars[i + 1] == "*",
                      let end = find(["*", "*"], in: chars, from: i + 2) {
                flush()
                out += "\\fB" + inline(String(chars[(i + 2)..<end]), tools: tools) + "\\fR"
                i = end + 2
            } else if c == "*", i + 1 < chars.count, chars[i + 1] != " ",
                      let end = chars[(i + 1)...].firstIndex(of: "*"), end > i + 1 {
                flush()
                out += "\\fI" + inline(String(chars[(i + 1)..<end]), tools: tools) + "\\fR"
                i = end + 1
            } else if c == "[", let close = find(["]", "("], in: chars, from: i + 1),
                      let end = chars[(close + 2)...].firstIndex(of: ")") {
                flush()
                let label = String(chars[(i + 1)..<close])
                out += link(label: label, target: String(chars[(close + 2)..<end]), tools: tools)
                i = end + 1
            } else {
                plain.append(c)
                i += 1
            }
        }
        flush()
        return out
    }

    package static func find(_ pattern: [Character], in chars: [Character], from start: Int) -> Int? {
        guard start <= chars.count - pattern.count else { return nil }
        for j in start...(chars.count - pattern.count) where Array(chars[j..<(j + pattern.count)]) == pattern { return j }
        return nil
    }

    package static func link(label: String, target: String, tools: [String]) -> String {
        let file = target.split(separator: "/").last.map(String.init) ?? target
        if file.hasSuffix(".md") {
            let page = String(file.dropLast(3))
            if tools.contains(page) { return "\\fB" + escape(page) + "\\fR(1)" }
            if page == "records" { return "\\fBaudio\\-tools\\-records\\fR(7)" }
        }
        if target.hasPrefix("http") { return inline(label, tools: tools) + " <" + escape(target) + ">" }
        return inline(label, tools: tools)
    }

    /// The blocks of a Markdown page as roff, and its first-level heading (the page's title).
    /// Second-level headings become sections (in capitals), third-level subsections; text before
    /// the first section goes under `before` (DESCRIPTION). Table rows become tagged paragraphs:
    /// the first cell as the tag, the others as the text (the header row is left out). Block
    /// quotes are notes to readers of the Markdown (where the man page is) and are left out, and
    /// so are HTML comments.
    public static func markdown(_ text: String, before: String = "DESCRIPTION", tools: [String] = []) -> (title: String, body: String) {
        var title = ""
        var out: [String] = []
        var paragraph: [String] = []
        var inCode = false
        var sectionOpen = false
        var tableRow = 0
        var inComment = false

        func openSection() {
            if !sectionOpen { out.append(".SH " + before); sectionOpen = true }
        }
        func endParagraph() {
            guard !paragraph.isEmpty else { return }
            out.append(line(inline(paragraph.joined(separator: " "), tools: tools)))
            paragraph = []
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let t = raw.trimmingCharacters(in: .whitespaces)
            if inCode {
                if t.hasPrefix("```") { out += [".fi", ".RE"]; inCode = false } else { out.append(line(escape(raw))) }
                continue
            }
            // HTML comments (the docs' hidden set-up for their examples) are not for readers.
            if inComment || t.hasPrefix("<!--") {
                inComment = !t.contains("-->")
                continue
            }
            if !t.hasPrefix("|") { tableRow = 0 }
            if t.hasPrefix("```") {
                endParagraph(); openSection()
                out += [".PP", ".RS 4", ".nf"]
                inCode = true
            } else if t.isEmpty || t.hasPrefix(">") {
                endParagraph()
            } else if t.hasPrefix("# ") {
                endParagraph()
                title = String(t.dropFirst(2))
            } else if t.hasPrefix("## ") {
                endParagraph()
                out.append(".SH \"" + escape(String(t.dropFirst(3)).uppercased()).replacingOccurrences(of: "\"", with: "") + "\"")
                sectionOpen = true
            } else if t.hasPrefix("### ") {
                endParagraph(); openSection()
                out.append(".SS \"" + escape(String(t.dropFirst(4))).replacingOccurrences(of: "\"", with: "") + "\"")
            } else if t.hasPrefix("|") {
                endParagraph(); openSection()
                tableRow += 1
                let cells = tableCells(t)
                let isRule = cells.allSatisfy { $0.allSatisfy { "-: ".contains($0) } }
                if tableRow == 1 || isRule || cells.isEmpty { continue }
                out += [".TP", line(inline(cells[0], tools: tools)), line(inline(cells.dropFirst().joined(separator: "; "), tools: tools))]
            } else if t.hasPrefix("- ") || t.hasPrefix("* ") {
                endParagraph(); openSection()
                out.append(".IP \\(bu 2")
                paragraph = [String(t.dropFirst(2))]
            } else if let dot = t.firstIndex(of: "."), dot > t.startIndex, t[..<dot].allSatisfy(\.isNumber),
                      t[t.index(after: dot)...].hasPrefix(" ") {
                endParagraph(); openSection()
                out.append(".IP " + String(t[...dot]) + " 4")
                paragraph = [String(t[t.index(dot, offsetBy: 2)...])]
            } else {
                if paragraph.isEmpty {
                    openSection()
                    // A line indented under a list item continues it; otherwise a new paragraph.
                    if !(raw.hasPrefix("  ") && out.last.map { $0.hasPrefix(".IP") || !$0.hasPrefix(".") } == true) {
                        out.append(".PP")
                    }
                }
                paragraph.append(t)
            }
        }
        endParagraph()
        if inCode { out += [".fi", ".RE"] }
        return (title, out.joined(separator: "\n"))
    }

    /// The cells of a Markdown table row; a `|` inside `code` does not split.
    package static func tableCells(_ row: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var inCode = false
        var escaped = false
        for c in row {
            if escaped { cell.append(c); escaped = false; continue }
            if c == "\\" { escaped = true; continue }
            if c == "`" { inCode.toggle() }
            if c == "|" && !inCode { cells.append(cell); cell = ""; continue }
            cell.append(c)
        }
        cells.append(cell)
        // The row's leading and trailing pipes leave an empty cell at each end.
        if cells.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { cells.removeFirst() }
        if cells.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { cells.removeLast() }
        return cells.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
