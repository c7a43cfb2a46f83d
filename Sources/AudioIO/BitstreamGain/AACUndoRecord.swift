/// The undo record of an MP4/M4A/MOV whose AAC gain was changed: aacgain's iTunes freeform item
/// `----:com.apple.iTunes:replaygain_undo`, "left,right" (the steps that undo the change), one pair
/// for each audio track in order, separated by ";" when there are several (aacgain reads the first).
public enum AACUndoRecord {
    /// The item's key as TagLib names MP4 freeform items.
    public static let key = "----:com.apple.iTunes:replaygain_undo"

    /// The steps that undo, one per audio track, from the item's value; nil when it can't be read
    /// or a track's two channels differ.
    public static func steps(_ value: String) -> [Int]? {
        var out: [Int] = []
        for pair in value.split(separator: ";") {
            let p = pair.split(separator: ",").map { String($0.filter { $0 != " " }) }
            guard p.count >= 2, let l = Int(p[0].hasPrefix("+") ? String(p[0].dropFirst()) : p[0]),
                  let r = Int(p[1].hasPrefix("+") ? String(p[1].dropFirst()) : p[1]), l == r else { return nil }
            out.append(l)
        }
        return out.isEmpty ? nil : out
    }

    /// The value for the steps that undo, one per audio track (as aacgain writes one: "%d,%d").
    public static func value(_ steps: [Int]) -> String {
        steps.map { "\($0),\($0)" }.joined(separator: ";")
    }

    /// The value of the file's undo item, nil when it has none.
    public static func read(_ file: FileByteSource) throws -> String? {
        try TagLibFile.read(file, container: .mp4).fields.first { $0.key.lowercased() == key.lowercased() }?.value
    }

    /// Writes (`value`) or removes (nil) the undo item of the MP4 at `path` (an output not yet in
    /// place), TagLib fixing the chunk offsets when the metadata grows before the media data;
    /// a failure names `reported`.
    public static func write(_ value: String?, to path: String, reported: String) throws {
        do {
            try TagLibFile.write(path, container: .mp4, fields: value.map { [(key, $0)] } ?? [], removing: [key])
        } catch var e as TagFileError {
            e.path = reported
            throw e
        }
    }
}
