/// MPEG-1/2/2.5 Layer III: every granule's and channel's `global_gain` (8 bits of the side
/// information; one step is 2^(1/4) in amplitude, 1.505 dB, "1.5 dB" in mp3gain's words) moved by the same number of steps.
/// ID3v2 at the start, the Xing/Info/VBRI frame, Lyrics3 and ID3v1 at the end are kept byte for
/// byte; the APEv2 tag at the end gets mp3gain's MP3GAIN_UNDO and MP3GAIN_MINMAX items, so
/// `mp3gain -u` restores the original, and an undo record already there is added to.
public enum MP3GlobalGain {
    /// One step: the decoder scales by 2^(global_gain/4), so 20·log10(2^(1/4)) = 5·log10(2) dB.
    public static let stepDB = 5 * 0.30102999566398119521

    /// What was changed.
    public struct Result: Sendable {
        public var bytes: [UInt8]
        /// Audio frames changed (the Xing/Info frame not counted).
        public var frames: Int
        /// global_gain over the file before and after.
        public var minGain: Int
        public var maxGain: Int
        /// mp3gain's undo record found in the file (left, right steps), and the one written.
        public var previousUndo: (left: Int, right: Int)?
        public var undo: (left: Int, right: Int)
    }

    /// The layout of a file: where the frames are and the tag at the end.
    struct Layout {
        var audioStart: Int
        var audioEnd: Int
        /// The APEv2 tag's bytes (header, if any, to footer), nil without one.
        var ape: Range<Int>?
    }

    /// `bytes` (a whole MP3 file) with every global_gain moved by `steps`; throws before changing
    /// anything when one would leave 0…255 or a frame is not where the previous one says.
    public static func apply(_ bytes: consuming [UInt8], steps: Int) throws(BitstreamGainError) -> Result {
        let layout = try locate(bytes)
        var out = consume bytes
        var frames = 0, minGain = 255, maxGain = 0
        var failure: BitstreamGainError?
        out.withUnsafeMutableBufferPointer { b in
            var at = layout.audioStart
            var first = true
            while at < layout.audioEnd {
                guard let h = FrameHeader(UnsafeBufferPointer(b), at) else {
                    // Zero padding up to the tags is fine; anything else is a frame we can't trust.
                    if !b[at..<layout.audioEnd].allSatisfy({ $0 == 0 }) { failure = .malformed(what: "MPEG audio frame", offset: at) }
                    return
                }
                // A cut-off last frame is changed when its side information is whole.
                if at + h.length > layout.audioEnd, at + h.sideEnd > layout.audioEnd { return }
                let isInfo = first && h.isInfoFrame(UnsafeBufferPointer(b), at)
                first = false
                if !isInfo {
                    let side = at + h.sideStart
                    for k in 0..<h.gainCount {
                        let bit = h.globalGainBit(k)
                        let new = read8(b, side, bit) + steps
                        guard new >= 0, new <= 255 else { failure = .globalGainOutOfRange(frame: frames, value: new); return }
                        write8(b, side, bit, new)
                        minGain = min(minGain, new)
                        maxGain = max(maxGain, new)
                    }
                    if h.protected {
                        var crc = crc16(0xFFFF, b[(at + 2)..<(at + 4)])
                        crc = crc16(crc, b[side..<(at + h.sideEnd)])
                        b[at + 4] = UInt8(crc >> 8)
                        b[at + 5] = UInt8(crc & 0xFF)
                    }
                    frames += 1
                }
                at += h.length
            }
        }
        if let failure { throw failure }
        if frames == 0 { throw .unsupportedFormat("MP3 without Layer III frames") }

        // The tag: other items kept in order, then MP3GAIN_MINMAX and MP3GAIN_UNDO as mp3gain writes them.
        let old = try layout.ape.map { r throws(BitstreamGainError) in try APEv2Tag(Array(out[r]), offset: r.lowerBound) }
        var tag = old ?? APEv2Tag()
        let previous = tag.mp3gainUndo
        let undo = (left: (previous?.left ?? 0) - steps, right: (previous?.right ?? 0) - steps)
        tag.mp3gainMinMax = (minGain, maxGain)
        tag.mp3gainUndo = (undo.left, undo.right, previous?.wrap ?? false)
        let tagAt = layout.ape?.lowerBound ?? layout.audioEnd
        let tagEnd = layout.ape?.upperBound ?? layout.audioEnd
        out.replaceSubrange(tagAt..<tagEnd, with: tag.bytes())
        return Result(bytes: out, frames: frames, minGain: minGain, maxGain: maxGain,
                      previousUndo: previous.map { ($0.left, $0.right) }, undo: undo)
    }

    /// The ID3v2 tag at the start, and ID3v1, Lyrics3 v2 and APEv2 at the end in any order.
    static func locate(_ b: [UInt8]) throws(BitstreamGainError) -> Layout {
        var start = 0
        while start + 10 <= b.count, b[start] == 0x49, b[start + 1] == 0x44, b[start + 2] == 0x33 {
            let size = (Int(b[start + 6] & 0x7F) << 21) | (Int(b[start + 7] & 0x7F) << 14) | (Int(b[start + 8] & 0x7F) << 7) | Int(b[start + 9] & 0x7F)
            start += 10 + size + (b[start + 5] & 0x10 != 0 ? 10 : 0)
        }
        // Padding some taggers leave after ID3v2.
        while start < b.count, b[start] == 0 { start += 1 }
        var end = b.count
        var ape: Range<Int>?
        while true {
            let before = end
            if end - 128 >= start, b[end - 128] == 0x54, b[end - 127] == 0x41, b[end - 126] == 0x47 { end -= 128 }
            if end - 15 >= start, Array(b[(end - 9)..<end]) == Array("LYRICS200".utf8),
               let n = Int(String(decoding: b[(end - 15)..<(end - 9)], as: UTF8.self)), end - 15 - n >= start {
                end -= 15 + n
            }
            if ape == nil, end - 32 >= start, Array(b[(end - 32)..<(end - 24)]) == Array("APETAGEX".utf8) {
                let length = Int(OggPage.readLE(b, end - 20, 4))
                let flags = UInt32(OggPage.readLE(b, end - 12, 4))
                let from = end - length - (flags & 0x8000_0000 != 0 ? 32 : 0)
                guard length >= 32, from >= start else { throw .malformed(what: "APEv2 tag", offset: end - 32) }
                ape = from..<end
                end = from
            }
            if end == before { break }
        }
        return Layout(audioStart: start, audioEnd: end, ape: ape)
    }

    static func read8<B: RandomAccessCollection<UInt8>>(_ b: B, _ base: Int, _ bit: Int) -> Int where B.Index == Int {
        let i = base + bit >> 3
        let v = (Int(b[i]) << 8 | Int(b[i + 1])) >> (8 - bit & 7)
        return v & 0xFF
    }

    static func write8<B: MutableCollection<UInt8>>(_ b: inout B, _ base: Int, _ bit: Int, _ value: Int) where B.Index == Int {
        let i = base + bit >> 3
        let shift = 8 - bit & 7
        var v = Int(b[i]) << 8 | Int(b[i + 1])
        v = (v & ~(0xFF << shift)) | (value << shift)
        b[i] = UInt8((v >> 8) & 0xFF)
        b[i + 1] = UInt8(v & 0xFF)
    }

    static func write8(_ b: UnsafeMutableBufferPointer<UInt8>, _ base: Int, _ bit: Int, _ value: Int) {
        var b = b
        write8(&b, base, bit, value)
    }

    /// The Layer III frame CRC: CRC-16, polynomial 0x8005, initial 0xFFFF, over the header's
    /// last two bytes and the side information (`crc` carries it from one run of bytes to the next).
    static func crc16<C: Collection<UInt8>>(_ start: UInt16, _ bytes: C) -> UInt16 {
        var crc = start
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }

    /// The CRC over the bytes at `indices` of `b`.
    static func crc16(_ b: [UInt8], _ indices: [Int]) -> UInt16 { crc16(0xFFFF, indices.map { b[$0] }) }

    /// A Layer III frame header's facts.
    struct FrameHeader: Equatable {
        var mpeg1: Bool
        var mono: Bool
        var protected: Bool
        var length: Int
        /// Where the side information starts and ends, from the frame's first byte.
        var sideStart: Int { protected ? 6 : 4 }
        var sideEnd: Int { sideStart + (mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)) }

        static let rates1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        static let rates2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        static let sampleRates = [[11025, 12000, 8000], [], [22050, 24000, 16000], [44100, 48000, 32000]]

        init?(_ b: [UInt8], _ at: Int) {
            guard let h = b.withUnsafeBufferPointer({ FrameHeader($0, at) }) else { return nil }
            self = h
        }

        /// Nil unless `b[at...]` starts a Layer III header with a fixed bitrate.
        init?(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) {
            guard at + 4 <= b.count, b[at] == 0xFF, b[at + 1] & 0xE0 == 0xE0 else { return nil }
            let version = Int(b[at + 1] >> 3 & 3), layer = b[at + 1] >> 1 & 3
            let rateIndex = Int(b[at + 2] >> 4), srIndex = Int(b[at + 2] >> 2 & 3)
            guard version != 1, layer == 1, rateIndex != 0, rateIndex != 15, srIndex != 3 else { return nil }
            mpeg1 = version == 3
            mono = b[at + 3] >> 6 == 3
            protected = b[at + 1] & 1 == 0
            let kbps = (mpeg1 ? Self.rates1 : Self.rates2)[rateIndex]
            let sr = Self.sampleRates[version][srIndex]
            length = (mpeg1 ? 144_000 : 72_000) * kbps / sr + Int(b[at + 2] >> 1 & 1)
        }

        /// How many global_gain fields the side information holds (granules × channels).
        var gainCount: Int { (mpeg1 ? 2 : 1) * (mono ? 1 : 2) }

        /// The bit offset of the `k`th global_gain in the side information (granule by granule).
        func globalGainBit(_ k: Int) -> Int {
            let channels = mono ? 1 : 2
            if mpeg1 { return 9 + (mono ? 5 : 3) + 4 * channels + 59 * k + 21 }
            return 8 + (mono ? 1 : 2) + 63 * k + 21
        }

        /// The bit offsets of each global_gain.
        var globalGainBits: [Int] { (0..<gainCount).map(globalGainBit) }

        /// The first frame holding a Xing/Info (after the side information) or VBRI (32 bytes in) header.
        func isInfoFrame(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Bool {
            func tag(_ o: Int, _ s: String) -> Bool { at + o + 4 <= b.count && Array(b[(at + o)..<(at + o + 4)]) == Array(s.utf8) }
            return tag(sideEnd, "Xing") || tag(sideEnd, "Info") || tag(36, "VBRI")
        }
    }
}
