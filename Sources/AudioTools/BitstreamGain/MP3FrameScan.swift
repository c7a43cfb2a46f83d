/// The walk over an MP3's frames that MP3GlobalGain changes them with: straight reads of the
/// header and of the global_gain fields through a pointer, with no array, slice or closure a frame.
extension MP3GlobalGain {
    /// The frame walk, a window at a time: each frame's global_gains (and CRC) changed in the
    /// window; or, without `writes`, only checked and counted (a read-only mapping, --dry-run).
    struct FrameScan {
        let steps: Int
        let audioEnd: Int
        let size: Int
        /// Where the next frame starts; nil once the walk is done.
        var next: Int?
        var writes = true
        var frames = 0, minGain = 255, maxGain = 0
        var first = true
        /// Where bytes that are not a frame began; from there to the end must be zero padding.
        var paddingFrom: Int?
        /// The last header's four bytes without the padding bit, and what they said (its length
        /// without the padding byte): a stream's headers differ in little else, so each kind is
        /// parsed once. 0 is no header (a header's first byte is 0xFF).
        var lastWord: UInt32 = 0
        var last: FrameKind?

        init(steps: Int, audioEnd: Int, size: Int, next: Int?, writes: Bool = true) {
            self.steps = steps
            self.audioEnd = audioEnd
            self.size = size
            self.next = next
            self.writes = writes
        }

        /// Bytes past a frame's start its header, side information and Info tag check need.
        static let margin = 64

        /// Walks the frames that start in `b` (the file's bytes from `base`) and whose first
        /// `margin` bytes it holds (or all the file has), changing them in `b`. Returns where `b`'s
        /// bytes stop being final: the start of a frame left for the next window, else `b`'s end.
        mutating func scan(_ b: UnsafeMutableBufferPointer<UInt8>, at base: Int) throws(BitstreamGainError) -> Int {
            guard let p = b.baseAddress else { return base }
            return try walk(p, count: b.count, at: base)
        }

        /// The same over bytes it must not change (`writes` is false): the gains checked and counted.
        mutating func scan(readOnly b: UnsafeRawBufferPointer, at base: Int) throws(BitstreamGainError) -> Int {
            precondition(!writes, "a read-only scan changes nothing")
            guard let p = b.baseAddress else { return base }
            return try walk(UnsafeMutablePointer(mutating: p.assumingMemoryBound(to: UInt8.self)), count: b.count, at: base)
        }

        private mutating func walk(_ p: UnsafeMutablePointer<UInt8>, count: Int, at base: Int) throws(BitstreamGainError) -> Int {
            let end = base + count
            let bytes = UnsafeBufferPointer(start: p, count: count)
            if let from = paddingFrom {
                // Zero padding up to the tags is fine; anything else is a frame we can't trust.
                if base < audioEnd, !bytes[0..<(min(end, audioEnd) - base)].allSatisfy({ $0 == 0 }) {
                    throw .malformed(what: "MPEG audio frame", offset: from)
                }
                return end
            }
            guard var at = next else { return end }
            // The counts in locals for the loop (a store through `p` could otherwise be taken to
            // change them), put back however it ends.
            var frames = self.frames, minGain = self.minGain, maxGain = self.maxGain
            defer { self.frames = frames; self.minGain = minGain; self.maxGain = maxGain }
            let steps = self.steps, writes = self.writes
            /// One global_gain, `shift` bits from the right of the two bytes at `q`, moved.
            @inline(__always) func gain(_ q: UnsafeMutablePointer<UInt8>, _ shift: Int) throws(BitstreamGainError) {
                let v = Int(q[0]) << 8 | Int(q[1])
                let new = (v >> shift) & 0xFF + steps
                guard new >= 0, new <= 255 else { throw .globalGainOutOfRange(frame: frames, value: new) }
                if writes {
                    let w = (v & ~(0xFF << shift)) | (new << shift)
                    q[0] = UInt8(truncatingIfNeeded: w >> 8)
                    q[1] = UInt8(truncatingIfNeeded: w)
                }
                minGain = min(minGain, new)
                maxGain = max(maxGain, new)
            }
            while at < end, at < audioEnd {
                if at + Self.margin > end, end < size {
                    next = at
                    return at
                }
                let i = at - base
                guard i + 4 <= count, let k = kind(p + i, p, i, count) else {
                    paddingFrom = at
                    next = nil
                    if !bytes[i..<(min(end, audioEnd) - base)].allSatisfy({ $0 == 0 }) {
                        throw .malformed(what: "MPEG audio frame", offset: at)
                    }
                    return end
                }
                let length = k.length + Int(p[i + 2] >> 1 & 1)
                // A cut-off last frame is changed when its side information is whole.
                if at + length > audioEnd, at + k.header.sideEnd > audioEnd {
                    next = nil
                    return end
                }
                let isInfo = first && k.header.isInfoFrame(bytes, i)
                first = false
                if !isInfo {
                    // Each granule's and channel's global_gain, in order.
                    let f = p + i
                    try gain(f + k.byte0, k.shift0)
                    if k.gains > 1 {
                        try gain(f + k.byte1, k.shift1)
                        if k.gains > 2 {
                            try gain(f + k.byte2, k.shift2)
                            try gain(f + k.byte3, k.shift3)
                        }
                    }
                    if writes, k.header.protected {
                        // Over the header's last two bytes and the side information.
                        let side = f + k.header.sideStart
                        let crc = crc16(crc16(0xFFFF, UnsafeBufferPointer(start: f + 2, count: 2)),
                                        UnsafeBufferPointer(start: side, count: k.header.sideEnd - k.header.sideStart))
                        f[4] = UInt8(crc >> 8)
                        f[5] = UInt8(crc & 0xFF)
                    }
                    frames += 1
                }
                at += length
            }
            next = at < audioEnd ? at : nil
            return end
        }

        /// What the header at `q` (`p[i...]`, which holds at least four bytes) says, as
        /// FrameHeader reads it; from the last header's facts when only the padding bit differs.
        @inline(__always)
        private mutating func kind(_ q: UnsafeMutablePointer<UInt8>, _ p: UnsafeMutablePointer<UInt8>, _ i: Int, _ count: Int) -> FrameKind? {
            let word = (UInt32(q[0]) << 24 | UInt32(q[1]) << 16 | UInt32(q[2]) << 8 | UInt32(q[3])) & ~0x200
            if word != lastWord {
                guard let h = FrameHeader(UnsafeBufferPointer(start: p, count: count), i) else { return nil }
                lastWord = word
                last = FrameKind(h, padding: Int(q[2] >> 1 & 1))
            }
            return last
        }
    }

    /// A kind of frame header (all but its padding bit): the length without padding, and where
    /// each global_gain sits, as its two bytes' offset from the frame's start and the shift that
    /// brings it to the low byte.
    struct FrameKind {
        var header: FrameHeader
        var length: Int
        var gains: Int
        var byte0 = 0, byte1 = 0, byte2 = 0, byte3 = 0
        var shift0 = 0, shift1 = 0, shift2 = 0, shift3 = 0

        init(_ h: FrameHeader, padding: Int) {
            header = h
            length = h.length - padding
            gains = h.gainCount
            func at(_ k: Int) -> (Int, Int) {
                guard k < h.gainCount else { return (0, 0) }
                let bit = h.globalGainBit(k)
                return (h.sideStart + bit >> 3, 8 - bit & 7)
            }
            (byte0, shift0) = at(0)
            (byte1, shift1) = at(1)
            (byte2, shift2) = at(2)
            (byte3, shift3) = at(3)
        }
    }
}
