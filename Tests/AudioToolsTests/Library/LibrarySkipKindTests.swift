import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibrarySkipKindTests {
    @Test func classifiesNonSongsByName() {
        let expected: [String: LibrarySkipKind?] = [
            "cover.jpg": .artwork, "Front.JPEG": .artwork, "scan.png": .artwork, "a.gif": .artwork,
            "b.bmp": .artwork, "c.webp": .artwork, "d.tiff": .artwork,
            "album.m3u": .playlist, "x.M3U8": .playlist, "y.pls": .playlist, "z.xspf": .playlist, "w.wpl": .playlist,
            "CD1.cue": .cueSheet,
            "info.txt": .document, "rip.log": .document, "release.nfo": .document, "README.md": .document,
            "booklet.pdf": .document,
            "index.html": .document, "page.HTM": .document, "speech.wav.svg": .document, "loudness.xml": .document,
            "m.json": .document, "m.jsonl": .document, "table.csv": .document, "SHA256SUMS.sha256": .document,
            "x.sha1": .document, "style.css": .document, "app.js": .document,
            "captions.srt": .subtitles, "captions.VTT": .subtitles, "karaoke.ass": .subtitles,
            "Thumbs.db": .system, "desktop.ini": .system, ".DS_Store": .system, "folder.jpg": .system,
            "Folder.JPG": .system, "AlbumArt_{0A1B}_Large.jpg": .system, "AlbumArtSmall.jpg": .system,
            "._01 Song.flac": .system,
            "01 Song.flac": nil, "02.mp3": nil, "track.wav": nil, "x.m4a": nil, "strange.xyz": nil,
            "no-extension": nil, ".hidden": nil, "cover": nil,
        ]
        for (name, kind) in expected {
            #expect(LibrarySkipKind.classify(fileName: name) == kind, "\(name)")
        }
    }

    @Test func iCloudPlaceholders() {
        #expect(LibrarySkipKind.iCloudRealName(fileName: ".Song.flac.icloud") == "Song.flac")
        #expect(LibrarySkipKind.iCloudRealName(fileName: ".01 Come Together.m4a.icloud") == "01 Come Together.m4a")
        #expect(LibrarySkipKind.iCloudRealName(fileName: "Song.flac.icloud") == nil)
        #expect(LibrarySkipKind.iCloudRealName(fileName: ".Song.flac") == nil)
        #expect(LibrarySkipKind.iCloudRealName(fileName: "..icloud") == nil)
        // A placeholder is classified by the file it stands for.
        #expect(LibrarySkipKind.classify(fileName: ".cover.jpg.icloud") == .artwork)
        #expect(LibrarySkipKind.classify(fileName: ".Song.flac.icloud") == nil)
    }

    /// Plain ASCII names are classified on their bytes; names with other letters by the general
    /// rule, with Unicode case folding. Both give the same kinds.
    @Test func asciiAndOtherNamesFollowTheSameRules() {
        let expected: [String: LibrarySkipKind?] = [
            "Café cover.JPG": .artwork, "Ärger.TXT": .document, "Übersicht.Cue": .cueSheet,
            "Lied №1.flac": nil, "Ünïcode": nil, "ALBUMART_{X}_Small.JPG": .system, "albumart.png": .artwork,
            "THUMBS.DB": .system, "Icon\r": .system, "a.b.c.M3U": .playlist, "trailing.": nil,
            "x.TOOLONGEXTENSIONNAME": nil, "song.FLAC": nil, "weird.Part": .system,
        ]
        for (name, kind) in expected {
            #expect(LibrarySkipKind.classify(fileName: name) == kind, "\(name)")
        }
    }

    /// A name that claims nothing is judged by its first bytes: text, markup, pictures and PDFs
    /// are not songs; audio bytes, unknown bytes, archives and any audio name are left to the tool.
    @Test func namesThatSayNothingAreJudgedByTheirBytes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skip-bytes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let wav: [UInt8] = Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [UInt8](repeating: 0, count: 28)
        let cases: [(String, [UInt8], LibrarySkipKind?)] = [
            ("README", Array("Read me first.\n".utf8), .document),
            ("records", Array("{\"loudness\":{}}\n".utf8), .document),
            ("report", Array("<!doctype html><html></html>\n".utf8), .document),
            ("results", Array("<?xml version=\"1.0\"?><testsuites/>\n".utf8), .document),
            ("picture", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .artwork),
            ("list", Array("#EXTM3U\na.flac\n".utf8), .playlist),
            ("take", wav, nil),                                       // audio bytes
            ("noise", (0..<256).map { UInt8($0) }, nil),              // bytes of nothing known
            ("stems", Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0, count: 40), nil),  // may hold audio
            ("empty", [], nil),
            ("notes.wav", Array("not audio\n".utf8), nil),            // claims audio: the tool refuses it
            ("page.mp3", Array("<html></html>\n".utf8), nil),
            (".Song.m4a.icloud", Array("bplist00".utf8), nil),          // a placeholder: cloud-only, not text
        ]
        for (name, bytes, kind) in cases {
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
            #expect(LibrarySkipKind.classify(bytesOf: dir + "/" + name, fileName: name) == kind, "\(name)")
        }
        #expect(LibrarySkipKind.classify(bytesOf: dir + "/gone", fileName: "gone") == nil)
    }
}
