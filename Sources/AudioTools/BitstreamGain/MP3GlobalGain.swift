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

    /// The change as a patched copy of the file (a few bytes of each frame's side information,
    /// the tag at the end replaced), with the same facts as `Result`.
    public struct Plan: Sendable {
        public var copy: PatchedCopy
        public var frames: Int
        public var minGain: Int
        public var maxGain: Int
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
    public static func apply(_ bytes: [UInt8], steps: Int) throws(BitstreamGainError) -> Result {
        let p: Plan
        do {
            p = try plan(size: bytes.count, steps: steps) { offset, into in
                for i in 0..<into.count { into[i] = bytes[offset + i] }
            }
        } catch let e as BitstreamGainError {
            throw e
        } catch {
            preconditionFailure("reading an array does not fail")
        }
        return Result(bytes: p.copy.applied(to: bytes), frames: p.frames, minGain: p.minGain, maxGain: p.maxGain,
                      previousUndo: p.previousUndo, undo: p.undo)
    }

    /// Bytes read and scanned at a time.
    static let window = 256 << 10

    /// The change for a file of `size` bytes that `read(offset, buffer)` fills buffers from
    /// (exactly, or throwing): every global_gain moved by `steps`, mp3gain's items written in the
    /// APEv2 tag. Reads the file once, a window at a time; throws a BitstreamGainError (or the
    /// reader's error) before anything is written.
    public static func plan(size: Int, steps: Int,
                            read: (Int, UnsafeMutableBufferPointer<UInt8>) throws -> Void) throws -> Plan {
        func bytes(_ r: Range<Int>) throws -> [UInt8] {
            var b = [UInt8](repeating: 0, count: r.count)
            try b.withUnsafeMutableBufferPointer { try read(r.lowerBound, $0) }
            return b
        }
        let layout = try locate(size: size, bytes)
        var scan = FrameScan(steps: steps, audioEnd: layout.audioEnd)
        // Each window reaches a little past the frames it scans, so a frame starting in it is whole
        // in it (header, side information, Info tag), as in a read of the whole file.
        let span = min(Self.window, max(0, layout.audioEnd - layout.audioStart))
        var window = [UInt8](repeating: 0, count: span + FrameScan.margin)
        var at = layout.audioStart
        while at < layout.audioEnd {
            let end = min(at + span, layout.audioEnd)
            let n = min(size, end + FrameScan.margin) - at
            let from = at
            let next = try window.withUnsafeMutableBufferPointer { w throws -> Int? in
                let part = UnsafeMutableBufferPointer(rebasing: w[0..<n])
                try read(from, part)
                return try scan.scan(UnsafeBufferPointer(part), at: from, end: end)
            }
            guard let next else { break }
            at = next
        }
        if scan.frames == 0 { throw BitstreamGainError.unsupportedFormat("MP3 without Layer III frames") }

        // The tag: other items kept in order, then MP3GAIN_MINMAX and MP3GAIN_UNDO as mp3gain writes them.
        let old = try layout.ape.map { r throws in try APEv2Tag(try bytes(r), offset: r.lowerBound) }
        var tag = old ?? APEv2Tag()
        let previous = tag.mp3gainUndo
        let undo = (left: (previous?.left ?? 0) - steps, right: (previous?.right ?? 0) - steps)
        tag.mp3gainMinMax = (scan.minGain, scan.maxGain)
        tag.mp3gainUndo = (undo.left, undo.right, previous?.wrap ?? false)
        let tagAt = layout.ape?.lowerBound ?? layout.audioEnd
        let tagEnd = layout.ape?.upperBound ?? layout.audioEnd
        var copy = scan.copy
        copy.copy(0..<tagAt)
        copy.insert(tag.bytes())
        copy.copy(tagEnd..<size)
        return Plan(copy: copy, frames: scan.frames, minGain: scan.minGain, maxGain: scan.maxGain,
                    previousUndo: previous.map { ($0.left, $0.right) }, undo: undo)
    }

    /// The frame walk, a window at a time: each frame's new global_gains (and CRC) as a patch.
    struct FrameScan {
        let steps: Int
        let audioEnd: Int
        var copy = PatchedCopy()
        var frames = 0, minGain = 255, maxGain = 0
        var first = true
        /// Where bytes that are not a frame began; from there to the end must be zero padding.
        var paddingFrom: Int?
        /// The bytes a frame's patch covers, reused for every frame.
        var scratch = [UInt8](repeating: 0, count: 64)

        /// Bytes past a frame's start its header, side information and Info tag check need.
        static let margin = 64

        /// Scans the frames starting in `b[0..<(end - base)]` (`b` holds the file's bytes from
        /// `base`, a few past `end` when the file has them). Returns where the next window should
        /// start, nil when the walk is done.
        mutating func scan(_ b: UnsafeBufferPointer<UInt8>, at base: Int, end: Int) throws(BitstreamGainError) -> Int? {
            if let p = paddingFrom {
                // Zero padding up to the tags is fine; anything else is a frame we can't trust.
                if !b[0..<(end - base)].allSatisfy({ $0 == 0 }) { throw .malformed(what: "MPEG audio frame", offset: p) }
                return end < audioEnd ? end : nil
            }
            var at = base
            while at < end {
                guard let h = FrameHeader(b, at - base) else {
                    paddingFrom = at
                    if !b[(at - base)..<(end - base)].allSatisfy({ $0 == 0 }) { throw .malformed(what: "MPEG audio frame", offset: at) }
                    return end < audioEnd ? end : nil
                }
                // A cut-off last frame is changed when its side information is whole.
                if at + h.length > audioEnd, at + h.sideEnd > audioEnd { return nil }
                let isInfo = first && h.isInfoFrame(b, at - base)
                first = false
                if !isInfo { try change(b, at - base, base, h) }
                at += h.length
            }
            return at < audioEnd ? at : nil
        }

        /// The frame at `b[i...]` (file offset `base + i`): its gains moved, as one patch from
        /// its first changed byte (the CRC when it has one) to its last.
        mutating func change(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ base: Int, _ h: FrameHeader) throws(BitstreamGainError) {
            // scratch[0...] holds the frame's bytes from its third (the CRC covers the header's last two).
            let count = h.sideEnd - 2
            for k in 0..<count { scratch[k] = b[i + 2 + k] }
            let side = h.sideStart - 2
            for k in 0..<h.gainCount {
                let bit = h.globalGainBit(k)
                let new = read8(scratch, side, bit) + steps
                guard new >= 0, new <= 255 else { throw .globalGainOutOfRange(frame: frames, value: new) }
                write8(&scratch, side, bit, new)
                minGain = min(minGain, new)
                maxGain = max(maxGain, new)
            }
            let lastByte = side + (h.globalGainBit(h.gainCount - 1) >> 3) + 1
            var from = side + (h.globalGainBit(0) >> 3)
            if h.protected {
                var crc = crc16(0xFFFF, scratch[0..<2])
                crc = crc16(crc, scratch[side..<count])
                scratch[2] = UInt8(crc >> 8)
                scratch[3] = UInt8(crc & 0xFF)
                from = 2
            }
            copy.patch(at: base + i + 2 + from, scratch[from...lastByte])
            frames += 1
        }
    }

    /// The same layout of a file held in memory (an ADTS stream is walked whole).
    static func locate(_ b: [UInt8]) throws(BitstreamGainError) -> Layout {
        do { return try locate(size: b.count) { Array(b[$0]) } }
        catch let e as BitstreamGainError { throw e }
        catch { throw .malformed(what: "tag layout", offset: 0) }
    }

    /// The ID3v2 tag at the start, and ID3v1, Lyrics3 v2 and APEv2 at the end in any order, in a
    /// file of `size` bytes read through `read`.
    static func locate(size: Int, _ read: (Range<Int>) throws -> [UInt8]) throws -> Layout {
        var start = 0
        while start + 10 <= size {
            let b = try read(start..<(start + 10))
            guard b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 else { break }
            let tagSize = (Int(b[6] & 0x7F) << 21) | (Int(b[7] & 0x7F) << 14) | (Int(b[8] & 0x7F) << 7) | Int(b[9] & 0x7F)
            start += 10 + tagSize + (b[5] & 0x10 != 0 ? 10 : 0)
        }
        // Padding some taggers leave after ID3v2.
        padding: while start < size {
            let b = try read(start..<min(size, start + 4096))
            for byte in b {
                if byte != 0 { break padding }
                start += 1
            }
        }
        var end = size
        var ape: Range<Int>?
        while true {
            let before = end
            if end - 128 >= start, try read((end - 128)..<(end - 125)) == Array("TAG".utf8) { end -= 128 }
            if end - 15 >= start {
                let b = try read((end - 15)..<end)
                if Array(b[6...]) == Array("LYRICS200".utf8), let n = Int(String(decoding: b[0..<6], as: UTF8.self)), end - 15 - n >= start {
                    end -= 15 + n
                }
            }
            if ape == nil, end - 32 >= start {
                let b = try read((end - 32)..<end)
                if Array(b[0..<8]) == Array("APETAGEX".utf8) {
                    let length = Int(OggPage.readLE(b, 12, 4))
                    let flags = UInt32(OggPage.readLE(b, 20, 4))
                    let from = end - length - (flags & 0x8000_0000 != 0 ? 32 : 0)
                    guard length >= 32, from >= start else { throw BitstreamGainError.malformed(what: "APEv2 tag", offset: end - 32) }
                    ape = from..<end
                    end = from
                }
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
