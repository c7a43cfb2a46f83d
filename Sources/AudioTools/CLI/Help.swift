import Foundation

/// Help and usage text in the style of swift-argument-parser.
public enum HelpText {
    public static let version = "audio-tools 0.1.0"

    /// The options every tool has, appended after the tool's own.
    public static let common: [OptionSpec] = [
        .value("jobs", "N", short: "j", help: "Files processed at once (default: the number of cores). Output order and bytes never depend on it."),
        .flag("progress", help: "Show progress on stderr (default: on when stderr is a terminal)."),
        .flag("no-progress", help: "Never show progress."),
        .flag("version", help: "Print the version and exit."),
        .flag("help", short: "h", help: "Show this help and exit."),
    ]

    public static func usageLine(_ info: ToolInfo) -> String {
        "USAGE: \(info.name) [<options>] [<path> ...]"
    }

    public static func render(_ info: ToolInfo) -> String {
        var s = "OVERVIEW: \(info.abstract)\n\n"
        if !info.discussion.isEmpty { s += wrap(info.discussion, indent: 0) + "\n\n" }
        s += usageLine(info) + "\n\n"
        s += "ARGUMENTS:\n"
        s += row("<path>", "Audio files, or directories (walked recursively, sorted; hidden entries and files plainly not audio by name, such as cover.jpg or notes.txt, skipped and counted on stderr; each folder walked once, even through symbolic links). '-' or none: read standard input, one JSON record or bare path per line.")
        s += "\nOPTIONS:\n"
        for o in info.options + common { s += row(label(o), o.help) }
        if !info.examples.isEmpty {
            s += "\nEXAMPLES:\n"
            for e in info.examples { s += "  " + e + "\n" }
        }
        if let custom = info.exitStatusText {
            s += "\n" + custom
            return s
        }
        s += "\nEXIT STATUS:\n"
        s += "  0  every record succeeded\(info.exitNotes.isEmpty ? "" : " (and \(info.exitNotes) passed)")\n"
        s += "  1  at least one record failed\(info.exitNotes.isEmpty ? "" : ", or \(info.exitNotes) failed"); also when stdout is closed early\n"
        s += "  2  usage error (bad option or value); nothing is written to stdout\n"
        s += "\nOutput is one JSON object per input, keys sorted, with `\(info.key)` added (or `error`).\n"
        return s
    }

    static func label(_ o: OptionSpec) -> String {
        var l = o.short.map { "-\($0), " } ?? ""
        l += "--\(o.name)"
        if case .value(let ph) = o.kind { l += " <\(ph)>" }
        return l
    }

    static func row(_ label: String, _ help: String) -> String {
        let col = 28
        let pad = label.count + 2 >= col ? "\n" + String(repeating: " ", count: col) : String(repeating: " ", count: col - label.count - 2)
        return "  " + label + pad + wrap(help, indent: col, first: false) + "\n"
    }

    static func wrap(_ text: String, indent: Int, first: Bool = true, width: Int = 100) -> String {
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
