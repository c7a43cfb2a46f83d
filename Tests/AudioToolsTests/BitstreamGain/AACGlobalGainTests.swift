import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The AAC codebooks as the standard defines them, and the walk and change of synthesised blocks.
@Suite struct AACGlobalGainTests {
    /// Entries, dimension, signedness and largest value per spectral codebook (Table 4.A.2).
    @Test func eachCodebookIsACompletePrefixCodeOfTheRightShape() {
        let sf = AACCodebook.scaleFactor
        #expect(sf.lengths.count == 121)
        #expect(sf.kraftSum == 1 << sf.maxLength)
        #expect(sf.isPrefixFree)
        // The shortest code is a difference of 0 (index 60), one bit.
        #expect(sf.lengths[60] == 1)
        let shapes: [(entries: Int, dimension: Int, unsigned: Bool, largest: Int)] = [
            (81, 4, false, 1), (81, 4, false, 1), (81, 4, true, 2), (81, 4, true, 2), (81, 2, false, 4), (81, 2, false, 4),
            (64, 2, true, 7), (64, 2, true, 7), (169, 2, true, 12), (169, 2, true, 12), (289, 2, true, 16)]
        for (k, shape) in shapes.enumerated() {
            let book = AACCodebook.spectral[k]
            #expect(book.lengths.count == shape.entries, "codebook \(k + 1)")
            let values = shape.unsigned ? shape.largest + 1 : 2 * shape.largest + 1
            #expect(Int(pow(Double(values), Double(shape.dimension))) == shape.entries, "codebook \(k + 1)")
            #expect(book.dimension == shape.dimension && book.unsigned == shape.unsigned && book.largest == shape.largest)
            #expect(book.kraftSum == 1 << book.maxLength, "codebook \(k + 1): Kraft sum not 1")
            #expect(book.isPrefixFree, "codebook \(k + 1)")
            #expect(book.codes.indices.allSatisfy { book.codes[$0] < 1 << book.lengths[$0] })
        }
        // Book 11: index 16·17 + 16 is (16, 16), both escapes, with two sign bits.
        let e = AACCodebook.spectral[10]
        let entry = e.entry(forPadded: Int(e.codes[288]) << (e.maxLength - e.lengths[288]))
        #expect(entry >> 14 & 7 == 2 && entry >> 17 & 3 == 3)
    }

    /// The two-level lookup finds every codeword, whatever bits follow it: each code's first and
    /// last padded index give its own length and index.
    @Test func theLookupFindsEveryCodewordWhateverFollows() {
        for book in [AACCodebook.scaleFactor] + AACCodebook.spectral {
            for i in book.codes.indices {
                let first = Int(book.codes[i]) << (book.maxLength - book.lengths[i])
                for padded in [first, first + (1 << (book.maxLength - book.lengths[i])) - 1] {
                    let e = book.entry(forPadded: padded)
                    #expect(Int(e & 31) == book.lengths[i] && Int(e >> 5 & 511) == i)
                }
            }
        }
    }

    @Test func bandTablesEndAtTheWindowLength() {
        #expect(AACHuffmanTables.bandOffsetsLong.count == 13 && AACHuffmanTables.bandOffsetsShort.count == 13)
        #expect(AACHuffmanTables.bandOffsetsLong.allSatisfy { $0.first == 0 && $0.last == 1024 && zip($0, $0.dropFirst()).allSatisfy { $0 < $1 } })
        #expect(AACHuffmanTables.bandOffsetsShort.allSatisfy { $0.first == 0 && $0.last == 128 })
        #expect(AACHuffmanTables.bandOffsetsLong[4].count == 50)  // 44.1 kHz: 49 bands
    }

    /// Bits written most significant first.
    struct Bits {
        var bits: [Bool] = []
        mutating func put(_ v: Int, _ n: Int) { for k in (0..<n).reversed() { bits.append(v >> k & 1 == 1) } }
        var bytes: [UInt8] {
            var b = bits
            while b.count % 8 != 0 { b.append(false) }
            return stride(from: 0, to: b.count, by: 8).map { i in b[i..<(i + 8)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) } }
        }
    }

    /// A long-window channel stream at 44.1 kHz: two bands in codebook `cb` (1 or 13), the second
    /// band's scale factor (or noise energy) `difference` above the first, all spectra zero.
    static func channelStream(_ b: inout Bits, gain: Int, cb: Int = 1, difference: Int = 0) {
        b.put(gain, 8)
        b.put(0, 1); b.put(0, 2); b.put(0, 1); b.put(2, 6); b.put(0, 1)  // ics_info: long, max_sfb 2
        b.put(cb, 4); b.put(2, 5)  // one section of two bands
        let sf = AACCodebook.scaleFactor
        if cb == 13 { b.put(256, 9) } else { b.put(Int(sf.codes[60]), sf.lengths[60]) }
        b.put(Int(sf.codes[60 + difference]), sf.lengths[60 + difference])
        b.put(0, 3)  // no pulse, TNS or gain control
        if cb == 1 {
            let book = AACCodebook.spectral[0]
            for _ in 0..<2 { b.put(Int(book.codes[40]), book.lengths[40]) }  // 8 lines of zeros
        }
    }

    /// An ADTS frame (AAC-LC unless `profile`, 44.1 kHz, no CRC) around `payload`.
    static func adts(_ payload: [UInt8], profile: Int = 1, channels: Int = 2) -> [UInt8] {
        let length = 7 + payload.count
        var h = Bits()
        h.put(0xFFF, 12); h.put(0, 1); h.put(0, 2); h.put(1, 1)
        h.put(profile, 2); h.put(4, 4); h.put(0, 1); h.put(channels, 3); h.put(0, 4)
        h.put(length, 13); h.put(0x7FF, 11); h.put(0, 2)
        return h.bytes + payload
    }

    @Test func refusesSeveralBlocksAFrame() {
        var frame = Self.adts(Self.pairBlock(gains: (100, 100)) + Self.pairBlock(gains: (100, 100)))
        frame[6] |= 1  // number_of_raw_data_blocks_in_frame: 2
        #expect(throws: BitstreamGainError.unsupportedFormat("AAC in ADTS with 2 raw data blocks a frame")) { try AACGlobalGain.applyADTS(frame, steps: 1) }
    }

    static func pairBlock(gains: (Int, Int), difference: Int = 0) -> [UInt8] {
        var b = Bits()
        b.put(1, 3); b.put(0, 4); b.put(0, 1)  // CPE, tag 0, no common window
        channelStream(&b, gain: gains.0, difference: difference)
        channelStream(&b, gain: gains.1, difference: difference)
        b.put(7, 3)
        return b.bytes
    }

    @Test func movesBothChannelsOfAPairAndNothingElse() throws {
        let frame = Self.adts(Self.pairBlock(gains: (100, 120)))
        let file = frame + frame
        let r = try AACGlobalGain.applyADTS(file, steps: 3)
        #expect(r.result.blocks == 2 && r.result.channelStreams == 4)
        #expect(r.result.minGain == 103 && r.result.maxGain == 123)
        #expect(r.bytes == Self.adts(Self.pairBlock(gains: (103, 123))) + Self.adts(Self.pairBlock(gains: (103, 123))))
        let back = try AACGlobalGain.applyADTS(r.bytes, steps: -3)
        #expect(back.bytes == file)
    }

    @Test func refusesAGainOrScaleFactorLeavingItsRange() {
        let file = Self.adts(Self.pairBlock(gains: (250, 100)))
        #expect(throws: BitstreamGainError.globalGainOutOfRange(frame: 0, value: 256)) { try AACGlobalGain.applyADTS(file, steps: 6) }
        // global_gain 240 is fine at +12, but the band 15 above it would be 267.
        let sf = Self.adts(Self.pairBlock(gains: (240, 100), difference: 15))
        #expect(throws: BitstreamGainError.scaleFactorOutOfRange(frame: 0, value: 267)) { try AACGlobalGain.applyADTS(sf, steps: 12) }
        #expect(throws: Never.self) { try AACGlobalGain.applyADTS(sf, steps: 0) }
    }

    @Test func noiseEnergiesFollowTheGainWithinTheirRange() throws {
        var b = Bits()
        b.put(0, 3); b.put(0, 4)
        Self.channelStream(&b, gain: 100, cb: 13, difference: 4)
        b.put(7, 3)
        var gains: [AACRawDataBlock.ChannelGain] = []
        let bytes = b.bytes
        _ = try bytes.withUnsafeBufferPointer { p throws(AACRawDataBlock.Failure) in
            try AACRawDataBlock(samplingIndex: 4).walk(p, start: 0, limit: bytes.count * 8, into: &gains)
        }
        // The first noise energy is global_gain − 90 + (256 − 256); the next 4 above.
        #expect(gains == [AACRawDataBlock.ChannelGain(bit: 7, value: 100, scaleFactors: nil, noiseEnergies: 10...14)])
        #expect(gains[0].violation(142) != nil && gains[0].violation(141) == nil)  // 14 + 141 = 155, the top
    }

    @Test func refusesHEAACAndOtherProfiles() {
        // AudioSpecificConfig: object type 5 (SBR), 29 (PS), and LC with the SBR sync extension.
        #expect(throws: BitstreamGainError.self) { try AACGlobalGain.audioSpecificConfig([0x2B, 0x92, 0x08, 0x00]) }
        #expect(throws: BitstreamGainError.self) { try AACGlobalGain.audioSpecificConfig([0xEB, 0x09, 0x88, 0x00]) }
        #expect(throws: BitstreamGainError.self) { try AACGlobalGain.audioSpecificConfig([0x13, 0x10, 0x56, 0xE5, 0x98]) }
        #expect((try? AACGlobalGain.audioSpecificConfig([0x12, 0x10])) == 4)
        #expect((try? AACGlobalGain.audioSpecificConfig([0x11, 0x90])) == 3)
        // ADTS Main profile; and LC whose frames carry SBR in a fill element (implicit HE-AAC).
        let main = Self.adts(Self.pairBlock(gains: (100, 100)), profile: 0)
        #expect(throws: BitstreamGainError.unsupportedFormat("AAC Main (its prediction would not follow global_gain)")) { try AACGlobalGain.applyADTS(main, steps: 1) }
        var b = Bits()
        b.put(0, 3); b.put(0, 4)
        Self.channelStream(&b, gain: 100)
        b.put(6, 3); b.put(2, 4); b.put(13, 4); b.put(0, 12)  // FIL: 2 bytes, EXT_SBR_DATA
        b.put(7, 3)
        #expect {
            try AACGlobalGain.applyADTS(Self.adts(b.bytes, channels: 1), steps: 1)
        } throws: { error in
            guard case BitstreamGainError.unsupportedFormat(let what) = error else { return false }
            return what.hasPrefix("HE-AAC")
        }
    }

    @Test func fillAndDataElementsArePassedThrough() throws {
        var b = Bits()
        b.put(4, 3); b.put(0, 4); b.put(0, 1); b.put(2, 8); b.put(0xABCD, 16)  // DSE of 2 bytes
        b.put(0, 3); b.put(0, 4)
        Self.channelStream(&b, gain: 90)
        b.put(6, 3); b.put(1, 4); b.put(0x00, 8)  // FIL of 1 byte (fill data)
        b.put(7, 3)
        let r = try AACGlobalGain.applyADTS(Self.adts(b.bytes, channels: 1), steps: -2)
        #expect(r.result.channelStreams == 1 && r.result.minGain == 88)
    }
}

@Suite struct AACGainSentencesTests {
    @Test func aScaleFactorOutOfRangeIsLossyAndSaysWhatToDo() {
        let e = BitstreamGainError.scaleFactorOutOfRange(frame: 3, value: 267).toolError(path: "a.aac")
        #expect(e.code.rawValue == "lossy")
        #expect(e.message.contains("“a.aac”") && e.message.contains("267"))
        #expect(e.suggestion.contains("--allow-loss"))
    }
}
