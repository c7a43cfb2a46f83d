import AudioIO
import Foundation

/// The one program that is all the tools, handed the tools it is: CLI knows no tool by name.
extension ToolMain {
    /// The program name this process was started as (the last part of argv[0]).
    package static var programName: String {
        let argv0 = CommandLine.unsafeArgv[0].map { PathBytes.string(cString: UnsafePointer($0)) } ?? ""
        return argv0.split(separator: "/").last.map(String.init) ?? argv0
    }

    /// `audio-tools`: runs as the tool it is called (through a link named after it), or as the
    /// tool named by its first argument; otherwise says what it is and exits 2 (0 for --help).
    /// `tools` are the tools it is, `entries` each one's run by name, given its arguments.
    public static func multiCall(tools all: [ToolInfo], entries: [String: ([String]) -> Never]) -> Never {
        let names = all.map(\.name)
        let args = commandLineArguments
        if let run = entries[programName] { run(args) }
        if let first = args.first, let run = entries[first] { run(Array(args.dropFirst())) }
        let me = programName
        if args.first == "--generate-man" {
            writeStdout(ManPage.multiCall(name: me, tools: all))
            exit(0)
        }
        if args.first == "--version" {
            writeStdout("\(me) (\(HelpText.version))\n")
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
            writeStdout(text)
            exit(0)
        }
        let said = args.first.map { "'\($0)' is not one of the tools.\n" } ?? "No tool named.\n"
        Diagnostics.write("\(me): error: " + said + text)
        exit(2)
    }
}
