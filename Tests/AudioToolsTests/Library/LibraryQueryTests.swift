import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibraryQueryTests {
    let abbey = libraryItem("/m/Beatles/Abbey Road/01 Come Together.flac", title: "Come Together",
                            artist: "The Beatles", album: "Abbey Road", genre: "Rock", year: 1969,
                            track: 1, duration: 259.9, sampleRate: 44100, size: 30_000_000)
    let halo = libraryItem("/m/Beyonce/halo.m4a", title: "Halo", artist: "Beyoncé", album: "I Am... Sasha Fierce",
                           genre: nil, year: 2008, track: 3, duration: 261.2, format: "mp4", codec: "alac",
                           sampleRate: 48000, channels: 2, bitDepth: 24, size: 55_000_000)
    let intro = libraryItem("/m/misc/intro.wav", title: "Love Me Do (intro)", artist: nil, album: nil,
                            year: nil, track: nil, duration: 4.2, format: "wav", codec: "pcm_s16le",
                            sampleRate: 22050, channels: 1, size: 185_000)

    func matching(_ text: String) throws -> [String] {
        let query = try LibraryQuery.parse(text)
        return [abbey, halo, intro].filter(query.matches).map { $0.title ?? "" }
    }

    @Test func emptyQueryMatchesEverything() throws {
        #expect(try matching("").count == 3)
        #expect(try matching("   ").count == 3)
        #expect(try LibraryQuery.parse("").isEmpty)
    }

    @Test func bareWordsSearchTitleArtistAlbumGenreIgnoringCaseAndAccents() throws {
        #expect(try matching("beatles") == ["Come Together"])     // artist
        #expect(try matching("ABBEY") == ["Come Together"])       // album
        #expect(try matching("rock") == ["Come Together"])        // genre
        #expect(try matching("halo") == ["Halo"])                 // title
        #expect(try matching("beyonce") == ["Halo"])              // accent in the item
        #expect(try matching("BEYONCÉ") == ["Halo"])              // accent in the query
        // Bare words don't search the path or format.
        #expect(try matching("misc") == [])
        #expect(try matching("flac") == [])
    }

    @Test func allTermsMustMatch() throws {
        #expect(try matching("come beatles") == ["Come Together"])
        #expect(try matching("come halo") == [])
    }

    @Test func quotesGroupWords() throws {
        #expect(try matching("\"love me\"") == ["Love Me Do (intro)"])
        #expect(try matching("love me").count == 1)
        #expect(try matching("\"me love\"") == [])
        #expect(try matching("artist:\"the beatles\"") == ["Come Together"])
        #expect(try matching("artist:\"beatles the\"") == [])
        // A quoted colon is text, not a field.
        #expect(try matching("\"colour:red\"") == [])
        // An empty quoted word asks for nothing.
        #expect(try matching("\"\"").count == 3)
    }

    @Test func fieldSubstrings() throws {
        #expect(try matching("title:together") == ["Come Together"])
        #expect(try matching("title:beatles") == [])
        #expect(try matching("album:sasha") == ["Halo"])
        #expect(try matching("format:mp4") == ["Halo"])
        #expect(try matching("codec:PCM") == ["Love Me Do (intro)"])
        #expect(try matching("path:/m/misc/") == ["Love Me Do (intro)"])
        #expect(try matching("Artist:BEATLES") == ["Come Together"])
    }

    @Test func emptyValueMeansMissing() throws {
        #expect(try matching("genre:") == ["Halo", "Love Me Do (intro)"])
        #expect(try matching("-genre:") == ["Come Together"])
        #expect(try matching("year:") == ["Love Me Do (intro)"])
    }

    @Test func numericEqualityAtWrittenPrecision() throws {
        #expect(try matching("year:1969") == ["Come Together"])
        #expect(try matching("year:1970") == [])
        #expect(try matching("track:3") == ["Halo"])
        #expect(try matching("channels:1") == ["Love Me Do (intro)"])
        #expect(try matching("bit_depth:24") == ["Halo"])
        #expect(try matching("sample_rate:48000") == ["Halo"])
        // 259.9 s rounds to 260; 261.2 does not.
        #expect(try matching("duration:260") == ["Come Together"])
        #expect(try matching("duration:261.2") == ["Halo"])
        #expect(try matching("duration:4:20") == ["Come Together"])
        #expect(try matching("size:55M") == ["Halo"])
    }

    @Test func inclusiveRangesWithOpenEnds() throws {
        #expect(try matching("year:1960..1969") == ["Come Together"])   // upper end inclusive
        #expect(try matching("year:1969..2008") == ["Come Together", "Halo"])
        #expect(try matching("year:1970..") == ["Halo"])                // open top
        #expect(try matching("year:..1969") == ["Come Together"])       // open bottom
        #expect(try matching("year:..") == ["Come Together", "Halo"])   // any year at all
        #expect(try matching("duration:..300").count == 3)
        #expect(try matching("duration:5..300") == ["Come Together", "Halo"])
        #expect(try matching("duration:..4.2") == ["Love Me Do (intro)"])
        #expect(try matching("duration:4:00..4:20") == ["Come Together"])
        #expect(try matching("sample_rate:44100..48000") == ["Come Together", "Halo"])
        #expect(try matching("samplerate:..44099") == ["Love Me Do (intro)"])
        #expect(try matching("size:1M..50MB") == ["Come Together"])
        #expect(try matching("size:..1KiB") == [])
        #expect(try matching("size:..200k") == ["Love Me Do (intro)"])
    }

    @Test func negation() throws {
        #expect(try matching("-beatles") == ["Halo", "Love Me Do (intro)"])
        #expect(try matching("-artist:beyonce") == ["Come Together", "Love Me Do (intro)"])
        // Items with no year are outside every year range, so the negation keeps them.
        #expect(try matching("-year:1960..1979") == ["Halo", "Love Me Do (intro)"])
        #expect(try matching("-\"love me\"") == ["Come Together", "Halo"])
        #expect(try matching("-format:wav -format:mp4") == ["Come Together"])
        // A quoted dash is text.
        #expect(try matching("\"-beatles\"") == [])
    }

    @Test func unknownFieldNamesTheTermAndPosition() throws {
        let error = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("red colour:red") }
        #expect(error?.term == "colour:red")
        #expect(error?.position == 5)
        #expect(error?.message.hasPrefix("unknown field 'colour' in 'colour:red' at character 5 (fields: title, artist,") == true)
        #expect(error?.message.contains("sample_rate") == true)
        #expect(error?.toolError.code == .badInput)
    }

    @Test func badNumbersAndRanges() throws {
        let range = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("year:19x0..") }
        #expect(range?.message == "'year:19x0..' is not a number range at character 1")
        let number = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("a  -year:abc") }
        #expect(number?.message == "'-year:abc' is not a number at character 4")
        #expect(number?.position == 4)
        let reversed = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("year:2000..1990") }
        #expect(reversed?.message.contains("empty range") == true)
        #expect(reversed?.suggestion.contains("year:1990..2000") == true)
        // Signs, exponents, hex and inf are not numbers here.
        for bad in ["year:-5", "year:1e3", "year:0x10", "year:inf", "duration:1:75", "year:1.2.3"] {
            #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse(bad) }
        }
    }

    @Test func otherBadTerms() throws {
        let quote = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("abc artist:\"the beatles") }
        #expect(quote?.position == 12)
        #expect(quote?.message.contains("unclosed double quote") == true)
        let dash = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("rock - pop") }
        #expect(dash?.position == 6)
        let noField = #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse(":red") }
        #expect(noField?.position == 1)
        // Sort-only field is not a query field.
        #expect(throws: LibraryQuery.ParseError.self) { try LibraryQuery.parse("mtime:5") }
    }
}

@Suite struct LibraryQueryUnicodeTests {
    @Test func composedAndDecomposedAccentsMatchEachOther() throws {
        let composed = libraryItem("/m/a.flac", title: "Caf\u{E9} del Mar")
        let decomposed = libraryItem("/m/b.flac", title: "Cafe\u{301} del Mar")
        for text in ["caf\u{E9}", "cafe\u{301}", "CAFE", "café del"] {
            let query = try LibraryQuery.parse(text)
            #expect(query.matches(composed), "\(text)")
            #expect(query.matches(decomposed), "\(text)")
        }
    }

    @Test func otherScriptsFoldToo() throws {
        let greek = libraryItem("/m/g.flac", artist: "\u{39C}\u{399}\u{39A}\u{3A1}\u{39F}\u{3A3}")  // ΜΙΚΡΟΣ
        #expect(try LibraryQuery.parse("\u{3BC}\u{3B9}\u{3BA}\u{3C1}\u{3BF}").matches(greek))     // μικρο
        let german = libraryItem("/m/s.flac", title: "Stra\u{DF}e")                                // Straße
        #expect(try LibraryQuery.parse("strasse").matches(german))
        let polish = libraryItem("/m/p.flac", artist: "\u{141}\u{F3}d\u{17A}")                     // Łódź
        #expect(try LibraryQuery.parse("lodz").matches(polish))
        #expect(try LibraryQuery.parse("mo").matches(libraryItem("/m/x.flac", artist: "M\u{D8}")))
        // Latin next to other scripts folds the same way.
        #expect(try LibraryQuery.parse("lodz").matches(libraryItem("/m/t.flac", title: "\u{141}\u{F3}d\u{17A} \u{6771}\u{4EAC}")))
        #expect(try LibraryQuery.parse("\u{FF71}").matches(libraryItem("/m/k.flac", title: "\u{30A2}\u{30A4}")))
        #expect(try LibraryQuery.parse("\u{142}\u{F3}d\u{17A}").matches(polish))
    }

    @Test func folding() {
        #expect(LibraryText.fold("Beyonc\u{E9} \u{C9}LAN") == "beyonce elan")
        #expect(LibraryText.fold("ABC xyz 09") == "abc xyz 09")
    }
}
