/// The five tools, for what names them all: the man pages' SEE ALSO and the records page.
public enum ToolCatalog {
    public static let all: [ToolInfo] = [AudioProbe.info, LibraryFilter.info, LufsMeasure.info, LufsNormalize.info, VoAlign.info]
    public static var names: [String] { all.map(\.name) }
}
