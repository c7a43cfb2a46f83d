import Testing
@testable import AudioTools

@Suite struct LibrarySkipKindTests {
    @Test func classifiesNonSongsByName() {
        let expected: [String: LibrarySkipKind?] = [
            "cover.jpg": .artwork, "Front.JPEG": .artwork, "scan.png": .artwork, "a.gif": .artwork,
            "b.bmp": .artwork, "c.webp": .artwork, "d.tiff": .artwork,
            "album.m3u": .playlist, "x.M3U8": .playlist, "y.pls": .playlist, "z.xspf": .playlist, "w.wpl": .playlist,
            "CD1.cue": .cueSheet,
            "info.txt": .document, "rip.log": .document, "release.nfo": .document, "README.md": .document,
            "booklet.pdf": .document,
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
}
