/// Judges what the bytes say: the refusal (a ProbeRefusal, whose sentences are in
/// Tools/Errors/ProbeSentences.swift), or nil when a decoder should try.
public enum ProbeVerdicts {
    /// Extensions that name audio (or audio-bearing) files: a zero-byte one may be a cloud placeholder.
    public static let audioExtensions: Set<String> = [
        "wav", "wave", "aif", "aiff", "aifc", "flac", "mp3", "m4a", "m4b", "m4p", "mp4", "aac", "ogg", "oga",
        "opus", "caf", "wma", "alac", "mka", "webm", "aax", "aa", "mov", "m4v", "rf64", "w64", "mp2",
    ]

    /// The refusal for a file whose bytes produced `facts`, or nil when it looks usable.
    public static func refusal(for facts: ContainerFacts, path: String) -> ProbeRefusal? {
        if let cloud = cloudOnly(path: path, size: facts.fileSize) { return cloud }
        if facts.kind == .empty || facts.fileSize == 0 {
            return ProbeRefusal(path, .empty(audioName: hasAudioExtension(path)))
        }
        if let p = facts.protection, facts.hasAudio != false { return ProbeRefusal(path, .protected(scheme: p.scheme)) }
        if isKnownNonAudio(facts.kind) { return ProbeRefusal(path, .notAudio(facts.kind)) }
        if facts.kind == .midi { return ProbeRefusal(path, .midi) }
        if facts.kind == .unknown { return ProbeRefusal(path, .unknownFormat) }
        if let problem = facts.problem {
            switch problem {
            case .malformed(let why): return ProbeRefusal(path, .damaged(why))
            case .truncated(let why): return ProbeRefusal(path, .cutOff(why))
            }
        }
        if facts.hasAudio == false { return ProbeRefusal(path, .noAudio(video: facts.hasVideo == true)) }
        return nil
    }

    /// Kinds known not to be audio: images, documents, archives, text and markup.
    public static func isKnownNonAudio(_ k: ContainerKind) -> Bool {
        switch k {
        case .png, .jpeg, .gif, .bmp, .webp, .tiff, .pdf, .zip, .gzip, .text, .xml, .html: return true
        default: return false
        }
    }

    /// Whether the file system marks the file as dataless (its contents evicted to the cloud):
    /// macOS's SF_DATALESS flag; never on other systems, which have no such flag.
    package static func isDataless(_ path: String) -> Bool {
        #if canImport(Darwin)
        var st = stat()
        return stat(path, &st) == 0 && (st.st_flags & 0x4000_0000) != 0
        #else
        return false
        #endif
    }

    /// The real name behind an iCloud placeholder (".song.m4a.icloud" → "song.m4a"), else nil.
    public static func iCloudPlaceholderName(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasPrefix("."), name.hasSuffix(".icloud"), name.count > ".x.icloud".count - 1 else { return nil }
        let real = name.dropFirst().dropLast(".icloud".count)
        return real.isEmpty ? nil : String(real)
    }

    package static func hasAudioExtension(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return false }
        return audioExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// `cloud-only` only on evidence of a placeholder: an iCloud Drive stub name
    /// (`.Name.icloud`), or on macOS the file system's dataless flag. A zero-byte file is `empty`
    /// (its suggestion says it may be a placeholder); `size` is not evidence and is unused.
    public static func cloudOnly(path: String, size: UInt64?) -> ProbeRefusal? {
        var shown: String?
        if let real = iCloudPlaceholderName(path) {
            shown = real
        } else if isDataless(path) {
            shown = path.split(separator: "/").last.map(String.init) ?? path
        }
        guard let name = shown else { return nil }
        return ProbeRefusal(path, .cloudOnly(name: name))
    }
}
