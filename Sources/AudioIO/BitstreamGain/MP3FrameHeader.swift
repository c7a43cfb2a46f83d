/// A Layer III frame header, and the bit-level reads and writes of its side information's
/// global_gain fields and CRC (MP3GlobalGain's parser).
extension MP3GlobalGain {
    package static func read8<B: RandomAccessCollection<UInt8>>(_ b: B, _ base: Int, _ bit: Int) -> Int where B.Index == Int {
        let i = base + bit >> 3
        let v = (Int(b[i]) << 8 | Int(b[i + 1])) >> (8 - bit & 7)
        return v & 0xFF
    }

    package static func write8<B: MutableCollection<UInt8>>(_ b: inout B, _ base: Int, _ bit: Int, _ value: Int) where B.Index == Int {
        let i = base + bit >> 3
        let shift = 8 - bit & 7
        var v = Int(b[i]) << 8 | Int(b[i + 1])
        v = (v & ~(0xFF << shift)) | (value << shift)
        b[i] = UInt8((v >> 8) & 0xFF)
        b[i + 1] = UInt8(v & 0xFF)
    }

    package static func write8(_ b: UnsafeMutableBufferPointer<UInt8>, _ base: Int, _ bit: Int, _ value: Int) {
        var b = b
        write8(&b, base, bit, value)
    }

    /// The Layer III frame CRC: CRC-16, polynomial 0x8005, initial 0xFFFF, over the header's
    /// last two bytes and the side information (`crc` carries it from one run of bytes to the next).
    package static func crc16<C: Collection<UInt8>>(_ start: UInt16, _ bytes: C) -> UInt16 {
        var crc = start
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }

    /// The CRC over the bytes at `indices` of `b`.
    package static func crc16(_ b: [UInt8], _ indices: [Int]) -> UInt16 { crc16(0xFFFF, indices.map { b[$0] }) }

    /// A Layer III frame header's facts.
    package struct FrameHeader: Equatable {
        package var mpeg1: Bool
        package var mono: Bool
        package var protected: Bool
        package var length: Int
        /// Where the side information starts and ends, from the frame's first byte.
        package var sideStart: Int { protected ? 6 : 4 }
        package var sideEnd: Int { sideStart + (mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)) }

        /// Nil unless `b[at...]` starts a Layer III header with a fixed bitrate.
        package init?(_ b: [UInt8], _ at: Int) {
            guard let h = b.withUnsafeBufferPointer({ FrameHeader($0, at) }) else { return nil }
            self = h
        }

        /// Nil unless `b[at...]` starts a Layer III header with a fixed bitrate. Called once a
        /// frame: the tables are switches, which compile to lookups with no array to reach.
        package init?(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) {
            guard at + 4 <= b.count, b[at] == 0xFF, b[at + 1] & 0xE0 == 0xE0 else { return nil }
            let version = Int(b[at + 1] >> 3 & 3), layer = b[at + 1] >> 1 & 3
            let rateIndex = Int(b[at + 2] >> 4), srIndex = Int(b[at + 2] >> 2 & 3)
            guard version != 1, layer == 1, rateIndex != 0, rateIndex != 15, srIndex != 3 else { return nil }
            mpeg1 = version == 3
            mono = b[at + 3] >> 6 == 3
            protected = b[at + 1] & 1 == 0
            let kbps = mpeg1 ? Self.rate1(rateIndex) : Self.rate2(rateIndex)
            // MPEG-1's rates; MPEG-2 has half of them, MPEG-2.5 a quarter.
            let sr = (srIndex == 0 ? 44100 : srIndex == 1 ? 48000 : 32000) >> (version == 3 ? 0 : version == 2 ? 1 : 2)
            length = (mpeg1 ? 144_000 : 72_000) * kbps / sr + Int(b[at + 2] >> 1 & 1)
        }

        /// kbit/s by bitrate index (1…14), MPEG-1 Layer III and MPEG-2/2.5 Layer III.
        package static func rate1(_ i: Int) -> Int {
            switch i {
            case 1: 32
            case 2: 40
            case 3: 48
            case 4: 56
            case 5: 64
            case 6: 80
            case 7: 96
            case 8: 112
            case 9: 128
            case 10: 160
            case 11: 192
            case 12: 224
            case 13: 256
            default: 320
            }
        }

        package static func rate2(_ i: Int) -> Int { i <= 8 ? 8 * i : 64 + 16 * (i - 8) }

        /// How many global_gain fields the side information holds (granules × channels).
        package var gainCount: Int { (mpeg1 ? 2 : 1) * (mono ? 1 : 2) }

        /// The bit offset of the `k`th global_gain in the side information (granule by granule).
        package func globalGainBit(_ k: Int) -> Int {
            let channels = mono ? 1 : 2
            if mpeg1 { return 9 + (mono ? 5 : 3) + 4 * channels + 59 * k + 21 }
            return 8 + (mono ? 1 : 2) + 63 * k + 21
        }

        /// The bit offsets of each global_gain.
        package var globalGainBits: [Int] { (0..<gainCount).map(globalGainBit) }

        /// The first frame holding a Xing/Info (after the side information) or VBRI (32 bytes in) header.
        package func isInfoFrame(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Bool {
            func tag(_ o: Int, _ s: String) -> Bool { at + o + 4 <= b.count && Array(b[(at + o)..<(at + o + 4)]) == Array(s.utf8) }
            return tag(sideEnd, "Xing") || tag(sideEnd, "Info") || tag(36, "VBRI")
        }
    }
}
