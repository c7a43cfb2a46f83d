import Foundation
import ToolRunner

/// The five tools, for what names them all: the man pages' SEE ALSO, the records page, and the
/// one program that is all of them. ToolMain knows no tool: each executable hands it `names`.
public enum ToolCatalog {
    public static let all: [ToolInfo] = [AudioProbe.info, LibraryFilter.info, LufsMeasure.info, LufsNormalize.info, VoAlign.info]
    public static var names: [String] { all.map { $0.name } }

    /// Each tool's run, given its arguments (after the program name).
    package static let entries: [String: ([String]) -> Never] = [
        AudioProbe.info.name: { ToolMain.run(AudioProbe.self, family: names, arguments: $0) },
        LibraryFilter.info.name: { LibraryFilter.main(family: names, arguments: $0) },
        LufsMeasure.info.name: { ToolMain.run(LufsMeasure.self, family: names, arguments: $0) },
        LufsNormalize.info.name: { ToolMain.run(LufsNormalize.self, family: names, arguments: $0) },
        VoAlign.info.name: { ToolMain.run(VoAlign.self, family: names, arguments: $0) },
    ]

    /// `audio-tools`: all the tools in one program (ToolMain.multiCall).
    public static func multiCall() -> Never { ToolMain.multiCall(tools: all, entries: entries) }
}

extension RecordTool {
    /// An executable's whole main: this tool, run on the process's arguments.
    public static func main() -> Never { ToolMain.run(Self.self, family: ToolCatalog.names) }
}

extension LibraryFilter {
    /// library-filter's whole main, on the process's arguments.
    public static func main() -> Never { main(family: ToolCatalog.names) }
}
