import AudioIO

/// What a person reads when a file's bytes rule it out (ProbeVerdicts) or its ends can't be read
/// (ProbeEnds):
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
/// | unrecognised (unknown) | “data.bin” isn't in any audio format this tool recognises. | Pick a WAV, RF64, W64, AIFF, CAF, FLAC, MP3, Ogg Vorbis or Opus, M4A/MP4, MKV/WebM, WMA, AC-3/E-AC-3, DTS, MPEG-TS, WavPack or TTA file, or convert this one to WAV. |
/// | malformed | “song.m4a” is damaged: a box claims more bytes than the file holds. | Pick an undamaged copy, or export it again from the app that made it. |
/// | truncated | “song.m4a” is cut off: the file ends partway through its “mdat” box. | Pick a complete copy — the download or copy may not have finished. |
extension ProbeRefusal: ToolErrorConvertible, CustomStringConvertible {
    /// Names `self.path`, the file refused, not the record's path.
    public func toolError(path _: String) -> ToolError {
        let q = ToolError.quoted(path)
        let complete = "Pick a complete copy — the download or copy may not have finished."
        switch reason {
        case .cloudOnly(let name):
            return ToolError(.cloudOnly, "\(ToolError.quoted(name)) is a cloud-only placeholder: the audio isn't on this computer.",
                             suggestion: "Download it first (in Finder, choose Download Now) and pick it again.")
        case .empty(let audioName):
            return ToolError(.empty, "\(q) is empty: it holds no data at all.",
                             suggestion: audioName ? ProbeVerdicts.emptyAudioSuggestion
                                 : "Pick the original recording or export it again — this copy has nothing in it.")
        case .protected(let scheme):
            return Self.protected(scheme, q)
        case .notAudio(let kind):
            return ToolError(.unrecognised, "\(q) is \(ProbeVerdicts.nonAudioDescription(kind) ?? kind.name), not audio.",
                             suggestion: ProbeVerdicts.nonAudioSuggestion(kind))
        case .midi:
            return ToolError(.noAudio, "\(q) is a MIDI file: it holds notes, not recorded sound.",
                             suggestion: "Export it to audio from your music app and pick the exported file.")
        case .unknownFormat:
            return ToolError(.unrecognised, "\(q) isn't in any audio format this tool recognises.",
                             suggestion: DecodeError.whatWorks)
        case .damaged(let why):
            return ToolError(.malformed, "\(q) is damaged: \(why).",
                             suggestion: "Pick an undamaged copy, or export it again from the app that made it.")
        case .cutOff(let why):
            return ToolError(.truncated, "\(q) is cut off: \(why).", suggestion: complete)
        case .noAudio(let video):
            return ToolError(.noAudio, "\(q) doesn't contain any audio.",
                             suggestion: video ? "Pick a music or voice file — a video file won't work here."
                                               : "Pick a music or voice file.")
        case .endUnreachable(let promised):
            return ToolError(.truncated,
                "\(q) is cut off: its header promises \(promised) frames, but the end of the audio can't be reached.",
                suggestion: complete)
        case .zeroFrames:
            return ToolError(.noAudio, "\(q) holds no audio: its header says it is 0 frames long.",
                             suggestion: "Pick a music or voice file that has sound in it.")
        case .headerOnly:
            return ToolError(.truncated, "\(q) has a header but no audio after it.", suggestion: complete)
        case .framesMissing(let promised, let present):
            return ToolError(.truncated, "\(q) is cut off: its header promises \(promised) frames but only \(present) are there.",
                             suggestion: complete)
        }
    }

    package static func protected(_ scheme: String, _ q: String) -> ToolError {
        switch scheme {
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
            return ToolError(.protected, "\(q) is encrypted with “\(scheme)” copy protection and can't be exported.",
                             suggestion: "Pick an unprotected copy — files downloaded from streaming services won't work.")
        }
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: path).description }
}

extension ProbeVerdicts {
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

    public static func nonAudioSuggestion(_ k: ContainerKind) -> String {
        switch k {
        case .text(.playlist): return "Pick one of the audio files it lists instead."
        case .text(.cueSheet): return "Pick the audio file it describes, usually the .flac or .wav beside it."
        case .zip(.plain), .gzip: return "Unpack it first and pick an audio file from inside."
        default: return "Pick a music or voice file — images, documents and playlists won't work here."
        }
    }

    /// The suggestion for a zero-byte file with an audio name, which may be a placeholder.
    public static let emptyAudioSuggestion = "If it sits in a synced folder (iCloud Drive, Dropbox, OneDrive), it may be a placeholder not downloaded yet: download it there; otherwise pick the original recording or export it again."
}
