import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct PathBytesTests {
    @Test func validUTF8IsItself() {
        for name in ["plain.wav", "Café.flac", "日本語.m4a", "🎵.ogg", ""] {
            #expect(PathBytes.string(Array(name.utf8)) == name)
            #expect(PathBytes.bytes(name) == Array(name.utf8))
            #expect(!PathBytes.isEscaped(name))
        }
    }

    @Test func undecodableBytesBecomeU_EF00PlusTheByte() {
        let latin1: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(".mp3".utf8)
        let s = PathBytes.string(latin1)
        #expect(s == "Caf\u{EFE9}.mp3")
        #expect(PathBytes.bytes(s) == latin1)
        #expect(PathBytes.display(s) == "Caf\u{FFFD}.mp3")
        // Every line of output must be valid UTF-8: the escape characters are ordinary scalars.
        #expect(String(validating: Array(s.utf8), as: UTF8.self) == s)
    }

    @Test func everyByteSequenceRoundTrips() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let n = Int(rng.next() % 12)
            let b = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }.map { $0 == 0 ? 1 : $0 }
            #expect(PathBytes.bytes(PathBytes.string(b)) == b, "\(b)")
        }
        // Overlongs, surrogates, values past U+10FFFF and cut-off sequences are escaped byte by byte.
        for b: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF]] {
            let s = PathBytes.string(b)
            #expect(s.unicodeScalars.map(\.value) == b.map { 0xEF00 + UInt32($0) })
            #expect(PathBytes.bytes(s) == b)
        }
    }

    @Test func aNameThatReallyHoldsAnEscapeCharacterKeepsItsBytes() {
        let real = "x\u{EFE9}y"  // a valid UTF-8 name with a private-use character in the escape range
        let s = PathBytes.string(Array(real.utf8))
        #expect(s != real)
        #expect(PathBytes.bytes(s) == Array(real.utf8))
    }

    @Test func pathParts() {
        #expect(PathBytes.directoryName("a/b/c.wav") == "a/b")
        #expect(PathBytes.directoryName("c.wav") == ".")
        #expect(PathBytes.directoryName("/c.wav") == "/")
        #expect(PathBytes.baseName("a/b/c.wav") == "c.wav")
    }
}
