/// Files in a music folder that are plainly not songs, recognised by name alone so they are never
/// probed. Audio and unknown names are not classified: those get probed.
public enum LibrarySkipKind: String, CaseIterable, Sendable {
    /// Cover art and other pictures.
    case artwork
    /// Playlists (m3u, m3u8, pls, xspf, wpl).
    case playlist
    /// CD cue sheets.
    case cueSheet = "cue-sheet"
    /// Text, logs, release notes, checksums, PDFs, web pages and data (HTML, SVG, XML, JSON, CSV).
    case document
    /// Subtitles and captions (srt, vtt, ass, ssa).
    case subtitles
    /// Files the operating system or a player leaves behind (Thumbs.db, .DS_Store, AlbumArt_….jpg).
    case system

    package static let extensions: [String: LibrarySkipKind] = {
        var map: [String: LibrarySkipKind] = [:]
        for ext in ["jpg", "jpeg", "png", "gif", "bmp", "webp", "tif", "tiff", "heic", "avif"] { map[ext] = .artwork }
        for ext in ["m3u", "m3u8", "pls", "xspf", "wpl", "asx"] { map[ext] = .playlist }
        map["cue"] = .cueSheet
        for ext in ["txt", "log", "nfo", "md", "pdf", "rtf", "sfv", "md5", "ffp", "accurip", "url"] { map[ext] = .document }
        // What a deliverables folder holds beside its audio: a loudness report (HTML and SVG), a
        // JUnit file, records, tables and checksums, style sheets and scripts.
        for ext in ["html", "htm", "xhtml", "css", "js", "svg", "xml", "json", "jsonl", "ndjson", "csv", "tsv",
                    "sha1", "sha256", "sha512"] { map[ext] = .document }
        for ext in ["srt", "vtt", "ass", "ssa"] { map[ext] = .subtitles }
        for ext in ["db", "ini", "lnk", "tmp", "part", "crdownload"] { map[ext] = .system }
        return map
    }()

    /// Names players and systems create, compared case-insensitively.
    package static let systemNames: Set<String> = [
        "thumbs.db", "ehthumbs.db", "desktop.ini", ".ds_store", ".localized", ".directory",
        "folder.jpg", "albumartsmall.jpg", ".nomedia", "icon\r",
    ]

    /// The kind of non-song `fileName` (a base name, not a path) plainly is, or nil when it may be
    /// audio. iCloud placeholders are classified by the name they stand for.
    public static func classify(fileName: String) -> LibrarySkipKind? {
        let name = iCloudRealName(fileName: fileName) ?? fileName
        // Most names are plain ASCII: lowercased and searched as bytes, without Unicode case
        // mapping or grapheme breaking (the same answers, at a fraction of the cost).
        let ascii = !name.utf8.contains { $0 >= 0x80 }
        let lower = ascii ? asciiLowercased(name) : name.lowercased()
        if systemNames.contains(lower) { return .system }
        // macOS keeps resource forks beside files on foreign disks as "._name".
        if lower.hasPrefix("._") { return .system }
        // Windows Media Player's AlbumArt_{GUID}_Large.jpg and friends.
        if lower.hasPrefix("albumart"), lower.hasSuffix(".jpg") { return .system }
        let ext: Substring
        if ascii {
            let u = lower.utf8
            guard let dot = u.lastIndex(of: UInt8(ascii: ".")), dot != u.startIndex else { return nil }
            ext = lower[u.index(after: dot)...]
        } else {
            guard let dot = lower.lastIndex(of: "."), dot != lower.startIndex else { return nil }
            ext = lower[lower.index(after: dot)...]
        }
        return extensions[String(ext)]
    }

    /// The kind of non-song a walked file plainly is by its first bytes (a web page, JSON or other
    /// text, a picture, a PDF), for a name that doesn't claim audio; nil when the name does, the
    /// bytes are audio, unknown or an archive (which may hold audio), or can't be read (the tool
    /// that opens it says why).
    public static func classify(bytesOf path: String, fileName: String) -> LibrarySkipKind? {
        // An iCloud placeholder claims what its real name claims (its bytes are a stub).
        if ProbeVerdicts.hasAudioExtension(iCloudRealName(fileName: fileName) ?? fileName) { return nil }
        guard let source = try? FileByteSource(path: path), source.size > 0,
              let sniff = try? sniffContainer(source) else { return nil }
        switch sniff.kind {
        case .png, .jpeg, .gif, .bmp, .webp, .tiff: return .artwork
        case .text(.playlist): return .playlist
        case .text(.cueSheet): return .cueSheet
        case .text, .xml, .html, .pdf: return .document
        default: return nil
        }
    }

    /// `s` (ASCII) with A–Z lowercased.
    private static func asciiLowercased(_ s: String) -> String {
        var s = s
        return s.withUTF8 { b in
            String(unsafeUninitializedCapacity: b.count) { out in
                for i in 0..<b.count { out[i] = b[i] >= 0x41 && b[i] <= 0x5A ? b[i] | 0x20 : b[i] }
                return b.count
            }
        }
    }

    /// For an iCloud Drive placeholder of a file not downloaded yet (`.Song.flac.icloud`), the name
    /// of the real file (`Song.flac`); nil for any other name.
    public static func iCloudRealName(fileName: String) -> String? {
        guard fileName.hasPrefix("."), fileName.hasSuffix(".icloud") else { return nil }
        let real = fileName.dropFirst().dropLast(".icloud".count)
        return real.isEmpty ? nil : String(real)
    }

    /// How a summary names files of this kind: "cover art", "playlists".
    package func noun(count: Int) -> String {
        switch self {
        case .artwork: return "cover art"
        case .playlist: return count == 1 ? "playlist" : "playlists"
        case .cueSheet: return count == 1 ? "cue sheet" : "cue sheets"
        case .document: return count == 1 ? "document" : "documents"
        case .subtitles: return count == 1 ? "subtitle file" : "subtitle files"
        case .system: return count == 1 ? "system file" : "system files"
        }
    }
}
