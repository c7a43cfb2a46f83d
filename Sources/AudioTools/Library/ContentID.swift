/// An identifier for a recording's audio rather than its file: the same after renames, moves and
/// tag edits, and the same for a lossless re-encode (WAV ↔ FLAC), because it hashes decoded samples.
///
/// What is hashed: sample rate, channel count, total frames, the length of any leading digital
/// silence (up to 30 s), and the first second after it and the last second of audio, quantised to
/// 16-bit integers. Skipping leading silence keeps two songs of equal length that both start and
/// end in silence from sharing an id. Quantising makes decoder float differences below half a
/// 16-bit step vanish for 16-bit sources (their samples sit on that grid), while any change of more
/// than one step in those windows changes the id. The id is 24 lowercase hex digits (96 bits: one
/// full XXH64 lane and half of a second, differently seeded lane).
///
/// Files that share rate, channels, length and their first and last second but differ in between
/// get the same id; that is the price of not decoding every sample.
public struct ContentID: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Length of `hex`.
    public static let hexLength = 24

    /// Lowercase hex digits, `hexLength` of them.
    public let hex: String

    public var description: String { hex }

    /// Collects the head and tail windows of one stream, then hashes them.
    public struct Builder {
        public let sampleRate: Int
        public let channels: Int
        /// Frames in the whole stream; settable for streams whose length is known only at the end.
        public var totalFrames: Int
        /// Frames in each of the head and tail windows (one second).
        public let windowFrames: Int

        /// The first frames seen by `addHead`, planar, as decoded (quantised only at the end, so
        /// feeding a whole stream costs a copy per block).
        private var head: [[Float]]
        private var headFrames = 0
        /// Frames of exact digital silence skipped before the head window, at most `maxLeadingSilence`.
        private var leadingSilence = 0
        private var maxLeadingSilence: Int { 30 * sampleRate }
        /// Planar ring of the most recent `windowFrames` frames given to `addTail`.
        private var tail: [[Float]]
        private var tailFramesSeen = 0

        public init(sampleRate: Int, channels: Int, totalFrames: Int) {
            precondition(sampleRate > 0 && channels > 0, "content id needs a rate and channels")
            self.sampleRate = sampleRate
            self.channels = channels
            self.totalFrames = totalFrames
            self.windowFrames = sampleRate
            self.head = Array(repeating: [], count: channels)
            self.tail = Array(repeating: [Float](repeating: 0, count: sampleRate), count: channels)
        }

        /// Frame where the tail window starts: seek here and `addTail` to the end, or feed
        /// everything; either gives the same id.
        public var tailStartFrame: Int { max(0, totalFrames - windowFrames) }

        /// Whether the head window is full, so a sequential reader may skip to `tailStartFrame`.
        public var headIsComplete: Bool { headFrames >= min(windowFrames, max(totalFrames - leadingSilence, 0)) }

        /// Feeds blocks from the start of the stream; frames past the head window are ignored.
        public mutating func addHead(block: AudioBlock) {
            var from = 0
            if headFrames == 0 {
                // Leading digital silence is counted, not hashed, so the window starts on sound.
                let limit = min(block.frames, maxLeadingSilence - leadingSilence)
                while from < limit, (0..<min(channels, block.channels.count)).allSatisfy({ block.channels[$0][from] == 0 }) {
                    from += 1
                }
                leadingSilence += from
            }
            let wanted = min(windowFrames - headFrames, block.frames - from)
            guard wanted > 0 else { return }
            for c in 0..<channels {
                if c < block.channels.count {
                    head[c].append(contentsOf: block.channels[c][from..<(from + wanted)])
                } else {
                    // A missing channel (a block narrower than the stream) reads as silence.
                    head[c].append(contentsOf: repeatElement(0, count: wanted))
                }
            }
            headFrames += wanted
        }

        /// Feeds blocks running up to the end of the stream; only the last `windowFrames` are kept.
        public mutating func addTail(block: AudioBlock) {
            let n = block.frames
            guard n > 0 else { return }
            // Only the block's last windowFrames can survive.
            let first = max(0, n - windowFrames)
            let window = windowFrames
            let slot = (tailFramesSeen + first) % window
            let count = n - first
            // The copy wraps around the ring at most once.
            let part1 = min(count, window - slot), part2 = count - part1
            for c in 0..<channels {
                tail[c].withUnsafeMutableBufferPointer { ring in
                    if c < block.channels.count {
                        block.channels[c].withUnsafeBufferPointer { src in
                            let from = src.baseAddress! + first
                            (ring.baseAddress! + slot).update(from: from, count: part1)
                            if part2 > 0 { ring.baseAddress!.update(from: from + part1, count: part2) }
                        }
                    } else {
                        (ring.baseAddress! + slot).update(repeating: 0, count: part1)
                        if part2 > 0 { ring.baseAddress!.update(repeating: 0, count: part2) }
                    }
                }
            }
            tailFramesSeen += n
        }

        /// Feeds the whole stream in order: head and tail both.
        public mutating func add(block: AudioBlock) {
            addHead(block: block)
            addTail(block: block)
        }

        /// Nearest 16-bit step, clamped to full scale; NaN counts as silence.
        @inline(__always)
        static func quantise(_ x: Float) -> Int16 {
            // Half away from zero, in Double where x·32768 ± 0.5 is exact (no libm call).
            let s = Double(x) * 32768
            if s.isNaN { return 0 }
            if s >= 32767 { return 32767 }
            if s <= -32768 { return -32768 }
            return Int16(s + (s < 0 ? -0.5 : 0.5))
        }

        /// `quantise` over `count` samples, written as little-endian 16-bit words `stride` apart.
        /// Branch-free per sample (selects, not jumps): this loop is most of what a probe costs
        /// after decoding.
        static func quantise(_ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<UInt16>, stride: Int) {
            for i in 0..<count {
                let s = Double(src[i]) * 32768
                var r = s + (s < 0 ? -0.5 : 0.5)
                r = r < -32768 ? -32768 : r
                r = r > 32767 ? 32767 : r
                r = s.isNaN ? 0 : r
                dst[i * stride] = UInt16(bitPattern: Int16(truncatingIfNeeded: Int32(r))).littleEndian
            }
        }

        /// The id of everything fed so far.
        public func finish() -> String { id().hex }

        /// As `finish`, typed.
        public func id() -> ContentID {
            let tailFrames = min(tailFramesSeen, windowFrames)
            var message: [UInt8] = Array("audio-tools content id 1".utf8)
            message.reserveCapacity(message.count + 48 + (headFrames + tailFrames) * channels * 2)
            for value in [sampleRate, channels, totalFrames, windowFrames, leadingSilence, headFrames, tailFrames] {
                appendLittleEndian(UInt64(bitPattern: Int64(value)), to: &message)
            }
            // Interleaved 16-bit little-endian: head, then the ring unrolled oldest first. Written
            // through a pointer into storage sized once: this runs for every file a probe reads.
            let prefix = message.count
            let samples = (headFrames + tailFrames) * channels
            message.append(contentsOf: repeatElement(0, count: samples * 2))
            message.withUnsafeMutableBytes { raw in
                let out = (raw.baseAddress! + prefix).assumingMemoryBound(to: UInt16.self)
                let start = tailFramesSeen > windowFrames ? tailFramesSeen % windowFrames : 0
                for c in 0..<channels {
                    head[c].withUnsafeBufferPointer { h in
                        Self.quantise(h.baseAddress!, count: headFrames, into: out + c, stride: channels)
                    }
                    tail[c].withUnsafeBufferPointer { t in
                        // The ring unrolled: from `start` to its end, then from its beginning.
                        let base = out + headFrames * channels + c
                        let first = min(tailFrames, windowFrames - start)
                        Self.quantise(t.baseAddress! + start, count: first, into: base, stride: channels)
                        Self.quantise(t.baseAddress!, count: tailFrames - first, into: base + first * channels, stride: channels)
                    }
                }
            }
            return ContentID.digest(of: message)
        }
    }

    /// The 96-bit id of a message: one XXH64 lane and half of a second, differently seeded one.
    /// Every id (from decoded audio, or from a file's bytes) is made here.
    public static func digest(of message: [UInt8]) -> ContentID {
        let a = XXHash64.hash(message, seed: 0)
        let b = XXHash64.hash(message, seed: 0x5bd1e995_2c1b3c6d)
        return ContentID(hex: hexDigits(a, digits: 16) + hexDigits(b >> 32, digits: 8))
    }

    /// The id of a whole source: reads the head window, seeks to the tail window when the length
    /// is known and the source can seek, otherwise reads through. Leaves the source at its end.
    public static func of(_ source: AudioSource, blockFrames: Int = 16384) throws -> ContentID {
        let format = source.format
        var builder = Builder(sampleRate: format.sampleRate, channels: format.channelCount,
                              totalFrames: format.frameCount ?? 0)
        var block = AudioBlock(channelCount: format.channelCount, capacity: blockFrames)
        if let total = format.frameCount {
            var position = 0
            while !builder.headIsComplete {
                let n = try source.read(into: &block, maxFrames: blockFrames)
                if n == 0 { break }
                builder.add(block: block)
                position += n
            }
            // The tail ring keeps whatever was fed last, so skipping the middle is only an
            // optimisation: the id is the same as reading straight through.
            if position < builder.tailStartFrame, (try? source.seek(toFrame: builder.tailStartFrame)) != nil {
                position = builder.tailStartFrame
            }
            while true {
                let n = try source.read(into: &block, maxFrames: blockFrames)
                if n == 0 { break }
                builder.addTail(block: block)
                position += n
            }
            builder.totalFrames = total
            return builder.id()
        }
        var frames = 0
        while true {
            let n = try source.read(into: &block, maxFrames: blockFrames)
            if n == 0 { break }
            builder.add(block: block)
            frames += n
        }
        builder.totalFrames = frames
        return builder.id()
    }
}

private func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    var v = value.littleEndian
    withUnsafeBytes(of: &v) { bytes.append(contentsOf: $0) }
}

private func hexDigits(_ value: UInt64, digits: Int) -> String {
    let s = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - s.count)) + s
}

extension ContentID {
    /// XXH64 (Yann Collet's 64-bit non-cryptographic hash), written from its published specification.
    enum XXHash64 {
        static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
        static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        static let p3: UInt64 = 0x1656_67B1_9E37_79F9
        static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
        static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

        @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

        @inline(__always) static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
            rotl(acc &+ input &* p2, 31) &* p1
        }

        @inline(__always) static func merge(_ acc: UInt64, _ v: UInt64) -> UInt64 {
            (acc ^ round(0, v)) &* p1 &+ p4
        }

        static func hash(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
            bytes.withUnsafeBytes { hash($0, seed: seed) }
        }

        static func hash(_ data: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
            let length = data.count
            var i = 0
            func read64(_ at: Int) -> UInt64 { UInt64(littleEndian: data.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            func read32(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: data.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
            var h: UInt64
            if length >= 32 {
                var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
                while i + 32 <= length {
                    v1 = round(v1, read64(i)); v2 = round(v2, read64(i + 8))
                    v3 = round(v3, read64(i + 16)); v4 = round(v4, read64(i + 24))
                    i += 32
                }
                h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
                h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
            } else {
                h = seed &+ p5
            }
            h = h &+ UInt64(length)
            while i + 8 <= length {
                h ^= round(0, read64(i))
                h = rotl(h, 27) &* p1 &+ p4
                i += 8
            }
            if i + 4 <= length {
                h ^= read32(i) &* p1
                h = rotl(h, 23) &* p2 &+ p3
                i += 4
            }
            while i < length {
                h ^= UInt64(data[i]) &* p5
                h = rotl(h, 11) &* p1
                i += 1
            }
            h ^= h >> 33; h = h &* p2
            h ^= h >> 29; h = h &* p3
            h ^= h >> 32
            return h
        }
    }
}
