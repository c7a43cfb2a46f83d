/// The walk over an MP3's frames that MP3GlobalGain changes them with: straight reads of the
/// header and of the global_gain fields through a pointer, with no array, slice or closure a frame.
extension MP3GlobalGain {
    /// The frame walk, a window at a time: each frame's global_gains (and CRC) changed in the
    /// window; or, without `writes`, only checked and counted (a read-only mapping, --dry-run).
    package struct FrameScan {
        package let steps: Int
        package let audioEnd: Int
        package let size: Int
        /// Where the next frame starts; nil once the walk is done.
        package var next: Int?
        package var writes = true
        package var frames = 0, minGain = 255, maxGain = 0
        package var first = true
        /// Where bytes that are not a frame began; from there to the end must be zero padding.
        package var paddingFrom: Int?
        /// The last header's four bytes without the padding bit, and what they said (its length
        /// without the padding byte): a stream's headers differ in little else, so each kind is
        /// parsed once. 0 is no header (a header's first byte is 0xFF).
        package var lastWord: UInt32 = 0
        package var last: FrameKind?
        /// What `run`'s reads ahead summed to: kept, so they are made, and never used.
        package var touched = 0

        package init(steps: Int, audioEnd: Int, size: Int, next: Int?, writes: Bool = true) {
            self.steps = steps
            self.audioEnd = audioEnd
            self.size = size
            self.next = next
            self.writes = writes
        }

        /// Bytes past a frame's start its header, side information and Info tag check need.
        package static let margin = 64

        /// Walks the frames that start in `b` (the file's bytes from `base`) and whose first
        /// `margin` bytes it holds (or all the file has), changing them in `b`. Returns where `b`'s
        /// bytes stop being final: the start of a frame left for the next window, else `b`'s end.
        package mutating func scan(_ b: UnsafeMutableBufferPointer<UInt8>, at base: Int) throws(BitstreamGainError) -> Int {
            guard let p = b.baseAddress else { return base }
            return try walk(p, count: b.count, at: base)
        }

        /// The same over bytes it must not change (`writes` is false): the gains checked and counted.
        package mutating func scan(readOnly b: UnsafeRawBufferPointer, at base: Int) throws(BitstreamGainError) -> Int {
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
            // The header kind met last, in locals too: only a header that differs from it in
            // more than its padding bit is parsed.
            var kindWord = lastWord, kind = last
            defer { lastWord = kindWord; last = kind }
            // Where a frame can start for `run`: its header (and, short of the file's end, its
            // first `margin` bytes) in the window, and in the audio.
            let stop = min(audioEnd, end < size ? end - Self.margin + 1 : end - 3)
            while at < end, at < audioEnd {
                // The run of frames that need nothing but their gains moved; the loop below takes
                // the first frame and whatever stops a run (another kind, a window's end, a
                // frame cut off, a gain out of range, a CRC to write).
                if !first, let k = kind, !(writes && k.header.protected) {
                    at = Self.run(p, base: base, from: at, stop: stop, audioEnd: audioEnd, word: kindWord, k,
                                  steps: steps, writes: writes, frames: &frames, minGain: &minGain, maxGain: &maxGain,
                                  touched: &touched)
                    if at >= end || at >= audioEnd { break }
                }
                if at + Self.margin > end, end < size {
                    next = at
                    return at
                }
                let i = at - base
                let q = p + i
                var word: UInt32 = 0
                if i + 4 <= count {
                    word = (UInt32(q[0]) << 24 | UInt32(q[1]) << 16 | UInt32(q[2]) << 8 | UInt32(q[3])) & ~0x200
                    if word != kindWord, let h = FrameHeader(bytes, i) {
                        kindWord = word
                        kind = FrameKind(h, padding: Int(q[2] >> 1 & 1))
                    }
                }
                guard word == kindWord, word != 0, let k = kind else {
                    paddingFrom = at
                    next = nil
                    if !bytes[i..<(min(end, audioEnd) - base)].allSatisfy({ $0 == 0 }) {
                        throw .malformed(what: "MPEG audio frame", offset: at)
                    }
                    return end
                }
                let length = k.length + Int(q[2] >> 1 & 1)
                // A cut-off last frame is changed when its side information is whole.
                if at + length > audioEnd, at + k.header.sideEnd > audioEnd {
                    next = nil
                    return end
                }
                let isInfo = first && k.header.isInfoFrame(bytes, i)
                first = false
                if !isInfo {
                    // Each granule's and channel's global_gain; the frame's lowest and highest
                    // checked once (the first one out of range, in order, is the refusal).
                    let g = k.gains(q)
                    if g.lo &+ steps < 0 || g.hi &+ steps > 255 {
                        let value = [g.g0, g.g1, g.g2, g.g3][0..<k.gains].map { $0 &+ steps }.first { $0 < 0 || $0 > 255 }!
                        throw .globalGainOutOfRange(frame: frames, value: value)
                    }
                    minGain = min(minGain, g.lo &+ steps)
                    maxGain = max(maxGain, g.hi &+ steps)
                    if writes {
                        k.move(q, g, by: steps)
                        if k.header.protected {
                            // Over the header's last two bytes and the side information.
                            let side = q + k.header.sideStart
                            let crc = crc16(crc16(0xFFFF, UnsafeBufferPointer(start: q + 2, count: 2)),
                                            UnsafeBufferPointer(start: side, count: k.header.sideEnd - k.header.sideStart))
                            q[4] = UInt8(crc >> 8)
                            q[5] = UInt8(crc & 0xFF)
                        }
                    }
                    frames += 1
                }
                at += length
            }
            next = at < audioEnd ? at : nil
            return end
        }

        /// Frames of the kind `k` (whose header bytes, less the padding bit, are `word`) from `from`
        /// while they start before `stop`, end within the audio and keep their gains in range: each
        /// one's gains moved (without `writes`, only counted). Returns where it stopped.
        @inline(never)
        package static func run(_ p: UnsafeMutablePointer<UInt8>, base: Int, from: Int, stop: Int, audioEnd: Int, word: UInt32,
                        _ k: FrameKind, steps: Int, writes: Bool, frames: inout Int, minGain: inout Int, maxGain: inout Int,
                        touched: inout Int) -> Int {
            var at = from, n = frames, lowest = minGain, highest = maxGain
            // Each frame's start is known only once the header before it is read, so the walk
            // waits on one memory access after another (from a mapping, each a miss); a byte a few
            // frames ahead, read in the same step, is fetched meanwhile. Summed into `ahead` so
            // the read stays.
            var ahead = 0
            let length = k.length
            while at < stop {
                let q = p + (at &- base)
                ahead &+= Int(p[min(at &+ Self.lookAhead, stop) &- base])
                let w = (UInt32(q[0]) &<< 24 | UInt32(q[1]) &<< 16 | UInt32(q[2]) &<< 8 | UInt32(q[3])) & ~0x200
                let next = at &+ length &+ Int(q[2] &>> 1 & 1)
                guard w == word, next <= audioEnd else { break }
                let g = k.gains(q)
                guard g.lo &+ steps >= 0, g.hi &+ steps <= 255 else { break }
                lowest = min(lowest, g.lo &+ steps)
                highest = max(highest, g.hi &+ steps)
                if writes { k.move(q, g, by: steps) }
                n &+= 1
                at = next
            }
            frames = n
            minGain = lowest
            maxGain = highest
            touched = touched &+ ahead
            return at
        }

        /// How far ahead of the frame being walked a byte is read: some 25 frames at 192 kbit/s
        /// (a few pages, so a page's first miss is met early too; nearer helped less).
        package static let lookAhead = 16 << 10

        /// The global_gain `shift` (1…8) bits from the right of the two bytes at `q + byte`.
        /// Masking shifts: the shift is in range, and Swift's checked ones add branches to every gain.
        @inline(__always)
        package static func gain(_ q: UnsafeMutablePointer<UInt8>, _ byte: Int, _ shift: Int) -> Int {
            ((Int(q[byte]) &<< 8 | Int(q[byte &+ 1])) &>> shift) & 0xFF
        }

        /// Writes `value` (0…255) there, the bits around it kept.
        @inline(__always)
        package static func setGain(_ q: UnsafeMutablePointer<UInt8>, _ byte: Int, _ shift: Int, _ value: Int) {
            let v = Int(q[byte]) &<< 8 | Int(q[byte &+ 1])
            let w = (v & ~(0xFF &<< shift)) | (value &<< shift)
            q[byte] = UInt8(truncatingIfNeeded: w &>> 8)
            q[byte &+ 1] = UInt8(truncatingIfNeeded: w)
        }
    }

    /// A kind of frame header (all but its padding bit): the length without padding, and where
    /// each global_gain sits, as its two bytes' offset from the frame's start and the shift that
    /// brings it to the low byte.
    package struct FrameKind {
        package var header: FrameHeader
        package var length: Int
        package var gains: Int
        package var byte0 = 0, byte1 = 0, byte2 = 0, byte3 = 0
        package var shift0 = 0, shift1 = 0, shift2 = 0, shift3 = 0

        package init(_ h: FrameHeader, padding: Int) {
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

        /// The frame at `q`'s global_gains (those past `gains` are 0) and their lowest and highest:
        /// one reading for the frame walk's first frame and for its runs.
        @inline(__always)
        package func gains(_ q: UnsafeMutablePointer<UInt8>) -> (g0: Int, g1: Int, g2: Int, g3: Int, lo: Int, hi: Int) {
            let g0 = FrameScan.gain(q, byte0, shift0)
            var g1 = 0, g2 = 0, g3 = 0, lo = g0, hi = g0
            if gains > 1 {
                g1 = FrameScan.gain(q, byte1, shift1)
                lo = min(lo, g1); hi = max(hi, g1)
                if gains > 2 {
                    g2 = FrameScan.gain(q, byte2, shift2)
                    g3 = FrameScan.gain(q, byte3, shift3)
                    lo = min(lo, min(g2, g3)); hi = max(hi, max(g2, g3))
                }
            }
            return (g0, g1, g2, g3, lo, hi)
        }

        /// Those gains, read by `gains`, written back `steps` higher (the range checked by the caller).
        @inline(__always)
        package func move(_ q: UnsafeMutablePointer<UInt8>, _ g: (g0: Int, g1: Int, g2: Int, g3: Int, lo: Int, hi: Int), by steps: Int) {
            FrameScan.setGain(q, byte0, shift0, g.g0 &+ steps)
            if gains > 1 {
                FrameScan.setGain(q, byte1, shift1, g.g1 &+ steps)
                if gains > 2 {
                    FrameScan.setGain(q, byte2, shift2, g.g2 &+ steps)
                    FrameScan.setGain(q, byte3, shift3, g.g3 &+ steps)
                }
            }
        }
    }
}
