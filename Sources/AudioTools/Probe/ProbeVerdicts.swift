/// Turns what the bytes say into the refusal a person sees, or nil when a decoder should try.
///
/// | code | message | suggestion |
/// |---|---|---|
/// | cloud-only | “song.m4a” is a cloud-only placeholder: the audio isn't on this computer. | Download it first (in Finder, choose Download Now) and pick it again. |
/// | empty | “take.wav” is empty: it holds no data at all. | (audio name) If it sits in a synced folder (iCloud Drive, Dropbox, OneDrive), it may be a placeholder not downloaded yet: download it there; otherwise pick the original recording or export it again. |
/// | protected (FairPlay) | “song.m4p” is protected by the store it came from and can't be exported. | Pick music you own or imported — tracks downloaded from a streaming subscription won't work. |
/// | protected (Audible) | “book.aax” is an Audible audiobook protected by Audible and can't be exported. | Pick an audiobook you have as a DRM-free file, such as an MP3 you bought or made. |
/// | protected (WMA DRM) | “song.wma” is protected with Windows Media DRM and can't be exported. | Pick music you own or imported — tracks bought or rented with DRM won't work. |
/// | protected (CENC…) | “film.mp4” is encrypted with “cenc” copy protection and can't be exported. | Pick an unprotected copy — files downloaded from streaming services won't work. |
/// | no-audio | “holiday.mov” doesn't contain any audio. | Pick a music or voice file — a video file won't work here. |
/// | no-audio (MIDI) | “song.mid” is a MIDI file: it holds notes, not recorded sound. | Export it to audio from your music app and pick the exported file. |
/// | unrecognised (known non-audio) | “cover.mp3” is a PNG image, not audio. | Pick a music or voice file — images, documents and playlists won't work here. |
/// | unrecognised (playlist) | “mix.m3u” is a playlist, not audio. | Pick one of the audio files it lists instead. |
/// | unrecognised (cue sheet) | “album.cue” is a cue sheet, not audio. | Pick the audio file it describes, usually the .flac or .wav beside it. |
/// | unrecognised (unknown) | “data.bin” isn't in any audio format this tool recognises. | Pick a WAV, AIFF, FLAC, MP3, M4A, Ogg or Opus file. |
/// | malformed | “song.m4a” is damaged: a box claims more bytes than the file holds. | Pick an undamaged copy, or export it again from the app that made it. |
/// | truncated | “song.m4a” is cut off: the file ends partway through its “mdat” box. | Pick a complete copy — the download or copy may not have finished. |
public enum ProbeVerdicts {
    /// Extensions that name audio (or audio-bearing) files: a zero-byte one may be a cloud placeholder.
    public static let audioExtensions: Set<String> = [
        "wav", "wave", "aif", "aiff", "aifc", "flac", "mp3", "m4a", "m4b", "m4p", "mp4", "aac", "ogg", "oga",
        "opus", "caf", "wma", "alac", "mka", "webm", "aax", "aa", "mov", "m4v", "rf64", "w64", "mp2",
    ]

    /// The refusal for a file whose bytes produced `facts`, or nil when it looks usable.
    public static func refusal(for facts: ContainerFacts, path: String) -> ToolError? {
        if let cloud = cloudOnly(path: path, size: facts.fileSize) { return cloud }
        let q = ToolError.quoted(path)
        if facts.kind == .empty || facts.fileSize == 0 {
            return ToolError(.empty, "\(q) is empty: it holds no data at all.",
                             suggestion: hasAudioExtension(path) ? emptyAudioSuggestion
                                 : "Pick the original recording or export it again — this copy has nothing in it.")
        }
        if let p = facts.protection, facts.hasAudio != false { return protected(p, q) }
        if let what = nonAudioDescription(facts.kind) {
            return ToolError(.unrecognised, "\(q) is \(what), not audio.", suggestion: nonAudioSuggestion(facts.kind))
        }
        if facts.kind == .midi {
            return ToolError(.noAudio, "\(q) is a MIDI file: it holds notes, not recorded sound.",
                             suggestion: "Export it to audio from your music app and pick the exported file.")
        }
        if facts.kind == .unknown {
            return ToolError(.unrecognised, "\(q) isn't in any audio format this tool recognises.",
                             suggestion: "Pick a WAV, AIFF, FLAC, MP3, M4A, Ogg or Opus file.")
        }
        if let problem = facts.problem {
            switch problem {
            case .malformed(let why):
                return ToolError(.malformed, "\(q) is damaged: \(why).",
                                 suggestion: "Pick an undamaged copy, or export it again from the app that made it.")
            case .truncated(let why):
                return ToolError(.truncated, "\(q) is cut off: \(why).",
                                 suggestion: "Pick a complete copy — the download or copy may not have finished.")
            }
        }
        if facts.hasAudio == false {
            let video = facts.hasVideo == true
            return ToolError(.noAudio, "\(q) doesn't contain any audio.",
                             suggestion: video ? "Pick a music or voice file — a video file won't work here."
                                               : "Pick a music or voice file.")
        }
        return nil
    }

    static func protected(_ p: Protection, _ q: String) -> ToolError {
        switch p.scheme {
        case "itun", "unknown":
            return ToolError(.protected, "\(q) is protected by the store it came from and can't be exported.",
                             suggestion: "Pick music you own or imported — tracks downloaded from a streaming subscription won't work.")
        case "wmdrm":
            return ToolError(.protected, "\(q) is protected with Windows Media DRM and can't be exported.",
                             suggestion: "Pick music you own or imported — tracks bought or rented with DRM won't work.")
        case "audible", "adrm":
            return ToolError(.protected, "\(q) is an Audible audiobook protected by Audible and can't be exported.",
                             suggestion: "Pick an audiobook you have as a DRM-free file, such as an MP3 you bought or made.")
        default:
            return ToolError(.protected, "\(q) is encrypted with “\(p.scheme)” copy protection and can't be exported.",
                             suggestion: "Pick an unprotected copy — files downloaded from streaming services won't work.")
        }
    }

    /// What a known non-audio kind is, as a phrase ("a PNG image"); nil for audio and unknown kinds.
    public static func nonAudioDescription(_ k: ContainerKind) -> String? {
        switch k {
        case .png: return "a PNG image"
        case .jpeg: return "a JPEG image"
        case .gif: return "a GIF image"
        case .bmp: return "a BMP image"
        case .webp: return "a WebP image"
        case .tiff: return "a TIFF image"
        case .pdf: return "a PDF document"
        case .zip(let z):
            switch z {
            case .officeDocument: return "an Office document"
            case .openDocument: return "an OpenDocument file"
            case .epub: return "an e-book"
            case .plain: return "a ZIP archive"
            }
        case .gzip: return "a gzip archive"
        case .text(.playlist): return "a playlist"
        case .text(.cueSheet): return "a cue sheet"
        case .text(.plain): return "a text file"
        case .xml: return "an XML document"
        case .html: return "a web page"
        default: return nil
        }
    }

    static func nonAudioSuggestion(_ k: ContainerKind) -> String {
        switch k {
        case .text(.playlist): return "Pick one of the audio files it lists instead."
        case .text(.cueSheet): return "Pick the audio file it describes, usually the .flac or .wav beside it."
        case .zip(.plain), .gzip: return "Unpack it first and pick an audio file from inside."
        default: return "Pick a music or voice file — images, documents and playlists won't work here."
        }
    }

    /// Whether the file system marks the file as dataless (its contents evicted to the cloud):
    /// macOS's SF_DATALESS flag; never on other systems, which have no such flag.
    static func isDataless(_ path: String) -> Bool {
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

    /// The suggestion for a zero-byte file with an audio name, which may be a placeholder.
    public static let emptyAudioSuggestion = "If it sits in a synced folder (iCloud Drive, Dropbox, OneDrive), it may be a placeholder not downloaded yet: download it there; otherwise pick the original recording or export it again."

    static func hasAudioExtension(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return false }
        return audioExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// `cloud-only` only on evidence of a placeholder: an iCloud Drive stub name
    /// (`.Name.icloud`), or on macOS the file system's dataless flag. A zero-byte file is `empty`
    /// (its suggestion says it may be a placeholder); `size` is not evidence and is unused.
    public static func cloudOnly(path: String, size: UInt64?) -> ToolError? {
        var shown: String?
        if let real = iCloudPlaceholderName(path) {
            shown = real
        } else if isDataless(path) {
            shown = path.split(separator: "/").last.map(String.init) ?? path
        }
        guard let name = shown else { return nil }
        return ToolError(.cloudOnly, "\(ToolError.quoted(name)) is a cloud-only placeholder: the audio isn't on this computer.",
                         suggestion: "Download it first (in Finder, choose Download Now) and pick it again.")
    }
}
