import Foundation

/// The five tools, for what names them all: the man pages' SEE ALSO, the records page, and the
/// one program that is all of them. ToolMain knows no tool: each executable hands it `names`.
public enum ToolCatalog {
    public static let all: [ToolInfo] = [AudioProbe.info, LibraryFilter.info, LufsMeasure.info, LufsNormalize.info, VoAlign.info]
    public static var names: [String] { all.map(\.name) }

    /// Each tool's run, given its arguments (after the program name).
    static let entries: [String: ([String]) -> Never] = [
        AudioProbe.info.name: { ToolMain.run(AudioProbe.self, family: names, arguments: $0) },
        LibraryFilter.info.name: { LibraryFilter.main(family: names, arguments: $0) },
        LufsMeasure.info.name: { ToolMain.run(LufsMeasure.self, family: names, arguments: $0) },
        LufsNormalize.info.name: { ToolMain.run(LufsNormalize.self, family: names, arguments: $0) },
        VoAlign.info.name: { ToolMain.run(VoAlign.self, family: names, arguments: $0) },
    ]

    /// The program name this process was started as (the last part of argv[0]).
    static var programName: String {
        let argv0 = CommandLine.unsafeArgv[0].map { PathBytes.string(cString: UnsafePointer($0)) } ?? ""
        return argv0.split(separator: "/").last.map(String.init) ?? argv0
    }

    /// `audio-tools`: runs as the tool it is called (through a link named after it), or as the
    /// tool named by its first argument; otherwise says what it is and exits 2 (0 for --help).
    public static func multiCall() -> Never {
        let args = ToolMain.commandLineArguments
        if let run = entries[programName] { run(args) }
        if let first = args.first, let run = entries[first] { run(Array(args.dropFirst())) }
        let me = programName
        if args.first == "--generate-man" {
            ToolMain.writeStdout(ManPage.multiCall(name: me, tools: all))
            exit(0)
        }
        if args.first == "--version" {
            ToolMain.writeStdout("\(me) (\(HelpText.version))\n")
            exit(0)
        }
        let width = names.map(\.count).max() ?? 0
        var text = "\(me): the audio-tools programs in one; run it as one of them.\n\n"
        text += "USAGE: \(me) TOOL [OPTIONS] [PATH ...]\n       TOOL [OPTIONS] [PATH ...]   (through a link named TOOL, as installed)\n\nTOOLS:\n"
        for info in all {
            text += "  " + info.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + info.abstract + "\n"
        }
        text += "\nSee '\(me) TOOL --help' for one tool's options.\n"
        if args.first == "--help" || args.first == "-h" {
            ToolMain.writeStdout(text)
            exit(0)
        }
        let said = args.first.map { "'\($0)' is not one of the tools.\n" } ?? "No tool named.\n"
        Diagnostics.write("\(me): error: " + said + text)
        exit(2)
    }
}
