/// The gain tag formats as TagLib's containers, so Tags reads and writes through IO's TagLibFile
/// without IO knowing the tag formats.
extension TagFormat {
    public var tagLibContainer: TagLibFile.Container { TagLibFile.Container(rawValue: rawValue)! }

    public init(_ container: TagLibFile.Container) { self.init(rawValue: container.rawValue)! }
}

extension TagLibFile {
    public static func read(_ path: String, format: TagFormat) throws -> Contents {
        try read(path, container: format.tagLibContainer)
    }

    public static func write(_ path: String, format: TagFormat, fields: [(key: String, value: String)], removing: [String],
                             id3Version: Int? = nil) throws {
        try write(path, container: format.tagLibContainer, fields: fields, removing: removing, id3Version: id3Version)
    }
}
