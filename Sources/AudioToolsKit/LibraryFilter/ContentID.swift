import AudioIO
import AudioSignal
import Foundation

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
    ///
    /// Both windows are quantised as they arrive, into one buffer reused from file to file (a
    /// probe builds one id per file, and fresh memory costs a page fault per 4 KiB), and hashed
    /// straight from there: no message is assembled.
    public struct Builder {
        public let sampleRate: Int
        public let channels: Int
        /// Frames in the whole stream; settable for streams whose length is known only at the end.
        public var totalFrames: Int
        /// Frames in each of the head and tail windows (one second).
        public let windowFrames: Int

        /// The head window (the first `windowFrames` frames after leading silence) and a ring of
        /// the most recent `windowFrames` frames given to `addTail`, both interleaved 16-bit words
        /// as they are hashed.
        private var storage: Storage
        private var headFrames = 0
        /// Frames of exact digital silence skipped before the head window, at most `maxLeadingSilence`.
        private var leadingSilence = 0
        private var maxLeadingSilence: Int { 30 * sampleRate }
        private var tailFramesSeen = 0

        public init(sampleRate: Int, channels: Int, totalFrames: Int) {
            precondition(sampleRate > 0 && channels > 0, "content id needs a rate and channels")
            self.sampleRate = sampleRate
            self.channels = channels
            self.totalFrames = totalFrames
            self.windowFrames = sampleRate
            self.storage = Storage(samples: sampleRate * channels)
        }

        /// Frame where the tail window starts: seek here and `addTail` to the end, or feed
        /// everything; either gives the same id.
        public var tailStartFrame: Int { max(0, totalFrames - windowFrames) }

        /// Whether the head window is full, so a sequential reader may skip to `tailStartFrame`.
        public var headIsComplete: Bool { headFrames >= min(windowFrames, max(totalFrames - leadingSilence, 0)) }

        /// Frames still wanted for the head window, when no more leading silence comes: a reader
        /// that reads no more than this before checking `headIsComplete` decodes nothing extra.
        public var headFramesWanted: Int { max(0, min(windowFrames, max(totalFrames - leadingSilence, 0)) - headFrames) }

        private mutating func makeStorageUnique() {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        }

        /// Feeds blocks from the start of the stream; frames past the head window are ignored.
        public mutating func addHead(block: AudioBlock) {
            let ch = channels, heard = min(channels, block.channels.count)
            addHead(frames: block.frames, silent: { f in (0..<heard).allSatisfy { block.channels[$0][f] == 0 } },
                    put: { from, count, dst in Self.quantise(block, channels: ch, from: from, count: count, into: dst) })
        }

        /// Feeds blocks running up to the end of the stream; only the last `windowFrames` are kept.
        public mutating func addTail(block: AudioBlock) {
            let ch = channels
            addTail(frames: block.frames, put: { from, count, dst in Self.quantise(block, channels: ch, from: from, count: count, into: dst) })
        }

        /// Feeds the whole stream in order: head and tail both.
        public mutating func add(block: AudioBlock) {
            addHead(block: block)
            addTail(block: block)
        }

        /// `addHead` for `frames` frames laid out as decoders give them: interleaved, `channels`
        /// samples a frame (the layout hashed, so no deinterleaving happens).
        public mutating func addHead(interleaved p: UnsafePointer<Float>, frames: Int) {
            let ch = channels
            addHead(frames: frames, silent: { f in (0..<ch).allSatisfy { p[f * ch + $0] == 0 } },
                    put: { from, count, dst in Self.quantise(p + from * ch, count: count * ch, into: dst, stride: 1) })
        }

        /// `addTail` for interleaved frames.
        public mutating func addTail(interleaved p: UnsafePointer<Float>, frames: Int) {
            let ch = channels
            addTail(frames: frames, put: { from, count, dst in Self.quantise(p + from * ch, count: count * ch, into: dst, stride: 1) })
        }

        /// `addHead` for interleaved 16-bit samples, the words a 16-bit file holds: the same id
        /// as its float samples (word / 32768) give, without the conversion either way.
        public mutating func addHead(interleaved p: UnsafePointer<Int16>, frames: Int) {
            let ch = channels
            addHead(frames: frames, silent: { f in (0..<ch).allSatisfy { p[f * ch + $0] == 0 } },
                    put: { from, count, dst in Self.copyWords(p + from * ch, count: count * ch, into: dst) })
        }

        /// `addTail` for interleaved 16-bit samples.
        public mutating func addTail(interleaved p: UnsafePointer<Int16>, frames: Int) {
            let ch = channels
            addTail(frames: frames, put: { from, count, dst in Self.copyWords(p + from * ch, count: count * ch, into: dst) })
        }

        /// The head window's rule, whatever the layout: leading digital silence (frames for
        /// which `silent` holds) is counted, not hashed, so the window starts on sound; `put`
        /// writes frames `from..<from + count` as interleaved words at its pointer.
        private mutating func addHead(frames: Int, silent: (Int) -> Bool,
                                      put: (_ from: Int, _ count: Int, _ dst: UnsafeMutablePointer<UInt16>) -> Void) {
            var from = 0
            if headFrames == 0 {
                let limit = min(frames, maxLeadingSilence - leadingSilence)
                while from < limit, silent(from) { from += 1 }
                leadingSilence += from
            }
            let wanted = min(windowFrames - headFrames, frames - from)
            guard wanted > 0 else { return }
            makeStorageUnique()
            put(from, wanted, storage.head + headFrames * channels)
            headFrames += wanted
        }

        /// The tail window's rule: a ring that keeps the last `windowFrames` frames fed.
        private mutating func addTail(frames n: Int, put: (_ from: Int, _ count: Int, _ dst: UnsafeMutablePointer<UInt16>) -> Void) {
            guard n > 0 else { return }
            makeStorageUnique()
            // Only the block's last windowFrames can survive.
            let first = max(0, n - windowFrames)
            let window = windowFrames
            let slot = (tailFramesSeen + first) % window
            let count = n - first
            // The copy wraps around the ring at most once.
            let part1 = min(count, window - slot), part2 = count - part1
            put(first, part1, storage.tail + slot * channels)
            if part2 > 0 { put(first + part1, part2, storage.tail) }
            tailFramesSeen += n
        }

        /// 16-bit samples as the little-endian words hashed.
        package static func copyWords(_ src: UnsafePointer<Int16>, count: Int, into dst: UnsafeMutablePointer<UInt16>) {
            #if _endian(little)
            UnsafeMutableRawPointer(dst).copyMemory(from: src, byteCount: count * 2)
            #else
            for i in 0..<count { dst[i] = UInt16(bitPattern: src[i]).littleEndian }
            #endif
        }

        /// Nearest 16-bit step, clamped to full scale; NaN counts as silence. The rule the id is
        /// defined by: the strided quantiser below gives exactly these values.
        @inline(__always)
        package static func quantise(_ x: Float) -> Int16 {
            // Half away from zero, in Double where x·32768 ± 0.5 is exact (no libm call).
            let s = Double(x) * 32768
            if s.isNaN { return 0 }
            if s >= 32767 { return 32767 }
            if s <= -32768 { return -32768 }
            return Int16(s + (s < 0 ? -0.5 : 0.5))
        }

        /// `quantise` over eight samples at once, in Float, exactly: x·32768 is exact in Float (a
        /// power of two); clamping before rounding gives what rounding before clamping does;
        /// adding 1.5·2^23 rounds |s| ≤ 32768 to the nearest integer (ties to even) and leaves
        /// that integer in the low bits of the sum; and s − n is exact, so a tie is seen exactly
        /// and moved away from zero. Masks are used as integers (−1 where true) so that the
        /// compiler keeps every step in vector registers.
        @inline(__always)
        package static func quantise8(_ x: SIMD8<Float>) -> SIMD8<Int32> {
            @inline(__always) func bits(_ v: SIMD8<Float>) -> SIMD8<Int32> { unsafeBitCast(v, to: SIMD8<Int32>.self) }
            @inline(__always) func bits(_ m: SIMDMask<SIMD8<Int32>>) -> SIMD8<Int32> { unsafeBitCast(m, to: SIMD8<Int32>.self) }
            var s = x * 32768
            s = s.replacing(with: 0, where: s .!= s)
            s = s.replacing(with: 32767, where: s .> 32767)
            s = s.replacing(with: -32768, where: s .< -32768)
            let magic = SIMD8<Float>(repeating: 12_582_912)
            let m = s + magic
            let d = s - (m - magic)
            let up = bits(d .== 0.5) & bits(s .> 0)
            let down = bits(d .== -0.5) & bits(s .< 0)
            return (bits(m) &- 0x4B40_0000) &+ down &- up
        }

        /// `quantise` over `count` samples, written as little-endian 16-bit words `stride` apart.
        /// Eight at a time: this loop is most of what a probe costs after decoding.
        package static func quantise(_ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<UInt16>, stride: Int) {
            var i = 0
            let raw = UnsafeRawPointer(src)
            #if _endian(little)
            if stride == 1 {
                while i + 8 <= count {
                    let r = quantise8(raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self))
                    UnsafeMutableRawPointer(dst + i).storeBytes(of: SIMD8<UInt16>(truncatingIfNeeded: r), as: SIMD8<UInt16>.self)
                    i += 8
                }
            }
            #endif
            // Strided (interleaving channels), or what the contiguous loop left.
            while i + 8 <= count {
                let r = quantise8(raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self))
                let out = dst + i * stride
                for k in 0..<8 { out[k * stride] = UInt16(truncatingIfNeeded: r[k]).littleEndian }
                i += 8
            }
            while i < count {
                dst[i * stride] = UInt16(bitPattern: quantise(src[i])).littleEndian
                i += 1
            }
        }

        /// `quantise` over two channels at once, interleaved as they are hashed (left, right).
        package static func quantise(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<UInt16>) {
            var i = 0
            #if _endian(little)
            let l = UnsafeRawPointer(left), r = UnsafeRawPointer(right)
            while i + 8 <= count {
                let a = quantise8(l.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self))
                let b = quantise8(r.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self))
                // One 32-bit word per frame: the left sample in its low half, the right in its high.
                UnsafeMutableRawPointer(dst + 2 * i).storeBytes(of: (a & 0xFFFF) | (b &<< 16), as: SIMD8<Int32>.self)
                i += 8
            }
            #endif
            if i < count {
                quantise(left + i, count: count - i, into: dst + 2 * i, stride: 2)
                quantise(right + i, count: count - i, into: dst + 2 * i + 1, stride: 2)
            }
        }

        /// Quantises frames `from..<from + count` of `block` into interleaved words at `dst`; a
        /// channel the block lacks reads as silence.
        private static func quantise(_ block: AudioBlock, channels: Int, from: Int, count: Int, into dst: UnsafeMutablePointer<UInt16>) {
            guard count > 0 else { return }
            if channels == 2, block.channels.count >= 2 {
                block.channels[0].withUnsafeBufferPointer { l in
                    block.channels[1].withUnsafeBufferPointer { r in
                        Self.quantise(left: l.baseAddress! + from, right: r.baseAddress! + from, count: count, into: dst)
                    }
                }
                return
            }
            for c in 0..<channels {
                if c < block.channels.count {
                    block.channels[c].withUnsafeBufferPointer { src in
                        Self.quantise(src.baseAddress! + from, count: count, into: dst + c, stride: channels)
                    }
                } else {
                    for i in 0..<count { dst[c + i * channels] = 0 }
                }
            }
        }

        /// The id of everything fed so far.
        public func finish() -> String { id().hex }

        /// As `finish`, typed.
        public func id() -> ContentID {
            let tailFrames = min(tailFramesSeen, windowFrames)
            var prefix: [UInt8] = Array("audio-tools content id 1".utf8)
            for value in [sampleRate, channels, totalFrames, windowFrames, leadingSilence, headFrames, tailFrames] {
                appendLittleEndian(UInt64(bitPattern: Int64(value)), to: &prefix)
            }
            // The message: the prefix, the head interleaved, then the ring unrolled oldest first.
            var hash = XXHash64.Pair(seedA: 0, seedB: XXHash64.digestSecondSeed)
            prefix.withUnsafeBytes { hash.update($0) }
            hash.update(UnsafeRawBufferPointer(start: storage.head, count: headFrames * channels * 2))
            let start = tailFramesSeen > windowFrames ? tailFramesSeen % windowFrames : 0
            let first = min(tailFrames, windowFrames - start)
            hash.update(UnsafeRawBufferPointer(start: storage.tail + start * channels, count: first * channels * 2))
            hash.update(UnsafeRawBufferPointer(start: storage.tail, count: (tailFrames - first) * channels * 2))
            let (a, b) = hash.finish()
            return ContentID(a, b)
        }

        /// The builder's two windows, in one allocation that goes back to a small pool when the
        /// builder is done, for the next file's builder.
        package final class Storage {
            package let samples: Int
            package let head: UnsafeMutablePointer<UInt16>
            package var tail: UnsafeMutablePointer<UInt16> { head + samples }

            package init(samples: Int) {
                self.samples = samples
                head = ScratchPool.take(count: 2 * samples)
            }

            package func copy() -> Storage {
                let s = Storage(samples: samples)
                s.head.update(from: head, count: 2 * samples)
                return s
            }

            deinit { ScratchPool.give(head, count: 2 * samples) }
        }
    }

    /// Buffers of 16-bit words kept between one id and the next, so a run over many files
    /// reuses the same few pages instead of faulting fresh ones in for every file.
    package enum ScratchPool {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var free: [(UnsafeMutablePointer<UInt16>, Int)] = []
        /// Larger buffers (many channels at high rates) are freed, not kept.
        private static let maxKeptCount = 1 << 22
        private static let maxKept = 8

        package static func take(count: Int) -> UnsafeMutablePointer<UInt16> {
            lock.lock()
            let i = free.firstIndex(where: { $0.1 == count })
            let reused = i.map { free.remove(at: $0).0 }
            lock.unlock()
            return reused ?? UnsafeMutablePointer<UInt16>.allocate(capacity: max(count, 1))
        }

        package static func give(_ p: UnsafeMutablePointer<UInt16>, count: Int) {
            var kept = false
            if count <= maxKeptCount {
                lock.lock()
                if free.count < maxKept { free.append((p, count)); kept = true }
                lock.unlock()
            }
            if !kept { p.deallocate() }
        }
    }

    /// The 96-bit id of a message: one XXH64 lane and half of a second, differently seeded one.
    /// Every id (from decoded audio, or from a file's bytes) is made here.
    public static func digest(of message: [UInt8]) -> ContentID {
        let (a, b) = XXHash64.digest96(of: message)
        return ContentID(a, b)
    }

    private init(_ a: UInt64, _ b: UInt64) {
        hex = hexDigits(a, digits: 16) + hexDigits(b >> 32, digits: 8)
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
