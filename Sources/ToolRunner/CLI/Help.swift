import Foundation

/// Help and usage text in the style of swift-argument-parser.
public enum HelpText {
    public static let version = "audio-tools " + AudioToolsVersion.string

    /// The options every tool has, appended after the tool's own.
    public static let common: [OptionSpec] = [
        .whole("jobs", "N", short: "j", in: 1...1024, help: "Files processed at once (default: the number of cores). Output order and bytes never depend on it."),
        .flag("progress", help: "Show progress on stderr (default: on when stderr is a terminal)."),
        .flag("no-progress", help: "Never show progress."),
        .flag("quiet", help: "No line on stderr for each record that fails (tool: file: code: message); the records carry the errors all the same."),
        .flag("version", help: "Print the version and exit."),
        .flag("help", short: "h", help: "Show this help and exit."),
        // For packaging (`make install`, `make deb`): pages and scripts generated from this table.
        .flag("generate-man", help: "Print this tool's man page (roff) and exit.", hidden: true),
        .choice("generate-completion", "SHELL", ShellCompletion.shells, help: "Print this tool's completion script for SHELL and exit.",
                hidden: true),
        .value("generate-records-man", "FILE", help: "Print audio-tools-records(7), converted from the Markdown of FILE (docs/records.md), and exit.",
               hidden: true),
    ]

    public static func usageLine(_ info: ToolInfo) -> String {
        "USAGE: \(info.name) [<options>] [<path> ...]"
    }

    public static func render(_ info: ToolInfo) -> String {
        var s = "OVERVIEW: \(info.abstract)\n\n"
        if !info.discussion.isEmpty { s += wrap(info.discussion, indent: 0) + "\n\n" }
        s += usageLine(info) + "\n\n"
        s += "ARGUMENTS:\n"
        s += row("<path>", pathHelp)
        s += "\nOPTIONS:\n"
        for o in info.options + common where !o.hidden { s += row(label(o), o.help) }
        if !info.examples.isEmpty {
            s += "\nEXAMPLES:\n"
            for e in info.examples { s += "  " + e + "\n" }
        }
        if let custom = info.exitStatusText {
            s += "\n" + custom
            return s
        }
        s += "\nEXIT STATUS:\n"
        for (code, meaning) in exitStatus(info).rows { s += "  \(code)  \(meaning)\n" }
        s += "\n" + exitStatus(info).notes.joined(separator: "\n") + "\n"
        return s
    }

    /// What the path arguments are, for --help and the man page's DESCRIPTION.
    public static let pathHelp = "Audio files, or directories (walked recursively, sorted; hidden entries, the file stdout is written to, and files plainly not audio by name or first bytes, such as cover.jpg, notes.txt or index.html, skipped and counted on stderr; each folder walked once, even through symbolic links). '-' or none: read standard input, one JSON record or bare path per line."

    /// The EXIT STATUS rows (status, meaning) and the note on output that follows them, for
    /// --help and the man page: the standard per-record rule, or read back from a tool's own
    /// `exitStatusText` (lines "  N  meaning"; other lines are the note).
    public static func exitStatus(_ info: ToolInfo) -> (rows: [(String, String)], notes: [String]) {
        guard let custom = info.exitStatusText else {
            let extra = info.exitNotes
            return ([("0", "every record succeeded\(extra.isEmpty ? "" : " (and \(extra) passed)")"),
                     ("1", "at least one record failed\(extra.isEmpty ? "" : ", or \(extra) failed"); also when stdout is closed early"),
                     ("2", "usage error (bad option or value); nothing is written to stdout")],
                    ["Output is one JSON object per input, keys sorted, with `\(info.key)` added (or `error`)."])
        }
        var rows: [(String, String)] = []
        var notes: [String] = []
        for line in custom.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t == "EXIT STATUS:" { continue }
            let parts = t.split(separator: " ", maxSplits: 1)
            if line.hasPrefix(" "), parts.count == 2, Int(parts[0]) != nil {
                rows.append((String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces)))
            } else { notes.append(t) }
        }
        return (rows, notes)
    }

    package static func label(_ o: OptionSpec) -> String {
        var l = o.short.map { "-\($0), " } ?? ""
        l += "--\(o.name)"
        if case .value(let ph) = o.kind { l += " <\(ph)>" }
        return l
    }

    package static func row(_ label: String, _ help: String) -> String {
        let col = 28
        let pad = label.count + 2 >= col ? "\n" + String(repeating: " ", count: col) : String(repeating: " ", count: col - label.count - 2)
        return "  " + label + pad + wrap(help, indent: col, first: false) + "\n"
    }

    package static func wrap(_ text: String, indent: Int, first: Bool = true, width: Int = 100) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty, line.count + 1 + word.count + indent > width {
                lines.append(line); line = String(word)
            } else { line = line.isEmpty ? String(word) : line + " " + word }
        }
        lines.append(line)
        let pad = String(repeating: " ", count: indent)
        return lines.enumerated().map { i, l in (i == 0 && !first) ? l : pad + l }.joined(separator: "\n")
    }
}
