import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Layer III frames built here: their side information's global_gain fields, CRC, the
/// Xing frame and the tags around them.
@Suite struct MP3GlobalGainTests {
    /// MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: 417 bytes (no padding). `crc`: protected.
    static func frame(mpeg1: Bool = true, mono: Bool = false, crc: Bool = false, gains: [Int], fill: UInt8 = 0x55) -> [UInt8] {
        // MPEG-2 at 64 kbit/s, 22.05 kHz: 72000 × 64 / 22050 = 208 bytes.
        let b1: UInt8 = (mpeg1 ? 0xFA : 0xF2) | (crc ? 0 : 1)
        let b2: UInt8 = mpeg1 ? 0x90 : 0x80
        let b3: UInt8 = mono ? 0xC0 : 0x00
        var f: [UInt8] = [0xFF, b1, b2, b3]
        let h = MP3GlobalGain.FrameHeader(f, 0)!
        f += [UInt8](repeating: fill, count: h.length - 4)
        for (i, bit) in h.globalGainBits.enumerated() { MP3GlobalGain.write8(&f, h.sideStart, bit, gains[i]) }
        if crc {
            let c = MP3GlobalGain.crc16(f, [2, 3] + Array(h.sideStart..<h.sideEnd))
            f[4] = UInt8(c >> 8); f[5] = UInt8(c & 0xFF)
        }
        return f
    }

    static func gains(_ b: [UInt8], at: Int) -> [Int] {
        let h = MP3GlobalGain.FrameHeader(b, at)!
        return h.globalGainBits.map { MP3GlobalGain.read8(b, at + h.sideStart, $0) }
    }

    /// The decoder scales by 2^(global_gain/4): a step is 20·log10(2^(1/4)) dB.
    @Test func aStepIsAQuarterPowerOfTwo() {
        #expect(abs(MP3GlobalGain.stepDB - 20 * log10(pow(2, 0.25))) < 1e-12)
    }

    @Test func frameLengthsAndGainPositions() {
        let f = Self.frame(gains: [1, 2, 3, 4])
        #expect(f.count == 417)
        #expect(Self.gains(f, at: 0) == [1, 2, 3, 4])
        #expect(Self.frame(mpeg1: false, mono: true, gains: [9]).count == 208)
        // The bits around a global_gain are untouched by writing it.
        var g = [UInt8](repeating: 0xFF, count: 8)
        MP3GlobalGain.write8(&g, 0, 21, 0)
        #expect(g == [0xFF, 0xFF, 0xF8, 0x07, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func everyGranuleMovesAndTheRestStays() throws {
        let a = Self.frame(gains: [150, 160, 170, 180]), b = Self.frame(mono: true, gains: [140, 141])
        let c = Self.frame(mpeg1: false, gains: [100, 200])
        let file = a + b + c
        let r = try MP3GlobalGain.apply(file, steps: -3)
        #expect(r.frames == 3)
        #expect(Self.gains(r.bytes, at: 0) == [147, 157, 167, 177])
        #expect(Self.gains(r.bytes, at: 417) == [137, 138])
        #expect(Self.gains(r.bytes, at: 834) == [97, 197])
        #expect((r.minGain, r.maxGain) == (97, 197))
        // Only global_gain bits changed: applying the opposite gives the frames back.
        let back = try MP3GlobalGain.apply(Array(r.bytes[0..<file.count]), steps: 3)
        #expect(Array(back.bytes[0..<file.count]) == file)
    }

    @Test func theFrameChecksumIsRecomputed() throws {
        let f = Self.frame(crc: true, gains: [120, 121, 122, 123])
        let r = try MP3GlobalGain.apply(f, steps: 2)
        let h = MP3GlobalGain.FrameHeader(r.bytes, 0)!
        let c = MP3GlobalGain.crc16(r.bytes, [2, 3] + Array(h.sideStart..<h.sideEnd))
        #expect(r.bytes[4] == UInt8(c >> 8) && r.bytes[5] == UInt8(c & 0xFF))
        #expect(Self.gains(r.bytes, at: 0) == [122, 123, 124, 125])
    }

    @Test func id3AndXingAndId3v1AreKept() throws {
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 5] + [1, 2, 3, 4, 5]
        var xing = Self.frame(gains: [0, 0, 0, 0], fill: 0)
        xing.replaceSubrange(36..<40, with: Array("Xing".utf8))
        let audio = Self.frame(gains: [10, 20, 30, 40])
        let v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        let file = id3 + xing + audio + v1
        let r = try MP3GlobalGain.apply(file, steps: 1)
        #expect(r.frames == 1)
        #expect(Array(r.bytes[0..<(id3.count + xing.count)]) == id3 + xing)
        #expect(Self.gains(r.bytes, at: id3.count + xing.count) == [11, 21, 31, 41])
        #expect(Array(r.bytes.suffix(128)) == v1)
        // The APEv2 tag sits between the audio and ID3v1, as mp3gain puts it.
        let apeAt = id3.count + xing.count + audio.count
        #expect(Array(r.bytes[apeAt..<(apeAt + 8)]) == Array("APETAGEX".utf8))
    }

    @Test func undoRecordsAreWrittenLikeMp3gainsAndAddedTo() throws {
        let file = Self.frame(gains: [100, 110, 120, 130])
        let once = try MP3GlobalGain.apply(file, steps: 2)
        #expect(once.previousUndo == nil)
        let tail = String(decoding: once.bytes[file.count...], as: UTF8.self)
        #expect(tail.contains("MP3GAIN_MINMAX\0" + "102,132"))
        #expect(tail.contains("MP3GAIN_UNDO\0" + "-002,-002,N"))
        let twice = try MP3GlobalGain.apply(once.bytes, steps: -5)
        #expect(twice.previousUndo.map { [$0.left, $0.right] } == [-2, -2])
        #expect(twice.undo.left == 3 && twice.undo.right == 3)
        #expect(String(decoding: twice.bytes[file.count...], as: UTF8.self).contains("MP3GAIN_UNDO\0" + "+003,+003,N"))
        #expect(twice.bytes.count == once.bytes.count)  // the tag replaced, not stacked
        #expect(Self.gains(twice.bytes, at: 0) == [97, 107, 117, 127])
    }

    @Test func otherApeItemsAreKept() throws {
        var tag = APEv2Tag()
        tag.others = [[3, 0, 0, 0, 0, 0, 0, 0] + Array("Artist".utf8) + [0] + Array("abc".utf8)]
        tag.mp3gainUndo = (4, 4, true)
        let file = Self.frame(gains: [50, 50, 50, 50]) + tag.bytes()
        let r = try MP3GlobalGain.apply(file, steps: 1)
        let back = try APEv2Tag(Array(r.bytes[417...]), offset: 417)
        #expect(back.others == tag.others)
        #expect(back.mp3gainUndo.map { [$0.left, $0.right] } == [3, 3])
        #expect(back.mp3gainUndo?.wrap == true)
        #expect(back.mp3gainMinMax.map { [$0.min, $0.max] } == [51, 51])
    }

    @Test func refusals() {
        let file = Self.frame(gains: [250, 10, 10, 10]) + Self.frame(gains: [10, 10, 10, 254])
        #expect(throws: BitstreamGainError.globalGainOutOfRange(frame: 1, value: 256)) { try MP3GlobalGain.apply(file, steps: 2) }
        #expect(throws: BitstreamGainError.globalGainOutOfRange(frame: 0, value: -1)) { try MP3GlobalGain.apply(file, steps: -11) }
        let junk = Self.frame(gains: [1, 1, 1, 1]) + [0x12, 0x34, 0x56, 0x78] + Self.frame(gains: [1, 1, 1, 1])
        #expect(throws: BitstreamGainError.malformed(what: "MPEG audio frame", offset: 417)) { try MP3GlobalGain.apply(junk, steps: 1) }
    }

    /// A file of many kinds of frame (MPEG-1 and 2, mono and stereo, with and without CRC), with
    /// ID3v2, a Xing frame, zero padding, an APE tag and ID3v1 around them.
    static func mixedFile() -> [UInt8] {
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 5] + [1, 2, 3, 4, 5]
        var xing = frame(gains: [0, 0, 0, 0], fill: 0)
        xing.replaceSubrange(36..<40, with: Array("Xing".utf8))
        var frames: [UInt8] = []
        for k in 0..<40 {
            let g = 60 + k
            switch k % 4 {
            case 0: frames += frame(gains: [g, g + 1, g + 2, g + 3], fill: UInt8(k))
            case 1: frames += frame(mono: true, crc: true, gains: [g, g + 5], fill: UInt8(k))
            case 2: frames += frame(mpeg1: false, gains: [g, g + 7], fill: UInt8(k))
            default: frames += frame(mpeg1: false, mono: true, crc: true, gains: [g], fill: UInt8(k))
            }
        }
        var tag = APEv2Tag()
        tag.others = [[3, 0, 0, 0, 0, 0, 0, 0] + Array("Artist".utf8) + [0] + Array("abc".utf8)]
        let v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        return id3 + xing + frames + [UInt8](repeating: 0, count: 300) + tag.bytes() + v1
    }

    /// The file is read and written a window at a time, a window ending wherever it may (inside a
    /// frame's header or side information, or in the padding): the output is the same for any window.
    @Test func theOutputIsTheSameWhateverTheWindow() throws {
        let file = Self.mixedFile()
        let whole = try MP3GlobalGain.apply(file, steps: 3, window: file.count)
        #expect(whole.frames == 40)
        #expect((whole.minGain, whole.maxGain) == (63, 108))
        for window in [64, 65, 100, 208, 417, 500, 1000, 4096] {
            let r = try MP3GlobalGain.apply(file, steps: 3, window: window)
            #expect(r.bytes == whole.bytes, "window \(window)")
            #expect(r.frames == whole.frames)
        }
        // Only the gains (and CRCs) moved: the opposite change gives the frames back.
        let back = try MP3GlobalGain.apply(whole.bytes, steps: -3, window: 100)
        let apeAt = file.firstRange(of: Array("APETAGEX".utf8))!.lowerBound
        #expect(Array(back.bytes[0..<apeAt]) == Array(file[0..<apeAt]))
        #expect(Array(whole.bytes[0..<apeAt]) != Array(file[0..<apeAt]))
    }

    /// A refusal is the same error wherever the window boundaries fall, and junk after the
    /// padding is found in a later window than the one the padding starts in.
    @Test func refusalsWhateverTheWindow() {
        let file = Self.frame(gains: [10, 10, 10, 10]) + Self.frame(gains: [250, 10, 10, 10]) + Self.frame(gains: [10, 10, 10, 254])
        let padded = Self.frame(gains: [1, 1, 1, 1]) + [UInt8](repeating: 0, count: 500) + [1] + [UInt8](repeating: 0, count: 10)
        for window in [64, 100, 417, 1 << 20] {
            #expect(throws: BitstreamGainError.globalGainOutOfRange(frame: 2, value: 256)) { try MP3GlobalGain.apply(file, steps: 2, window: window) }
            #expect(throws: BitstreamGainError.malformed(what: "MPEG audio frame", offset: 417)) { try MP3GlobalGain.apply(padded, steps: 1, window: window) }
        }
    }
}
