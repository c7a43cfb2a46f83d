import JSONValue

/// Adds what the decoder has to say (Opus output gain, chained Ogg links) to a `loudness`
/// object's notes, after the measurement's own.
package enum DecodeNotes {
    package static func adding(_ notes: [String], to loudness: JSON) -> JSON {
        guard !notes.isEmpty, case .object(var o) = loudness else { return loudness }
        var list: [JSON] = []
        if case .array(let a)? = o["notes"] { list = a }
        list += notes.map { .string($0) }
        o["notes"] = .array(list)
        return .object(o)
    }
}
