import Foundation

/// XXH64 (Yann Collet's 64-bit non-cryptographic hash), written from its published specification.
package enum XXHash64 {
    /// The second lane's seed of the 96-bit digests (content ids, cache keys, signatures).
    package static let digestSecondSeed: UInt64 = 0x5bd1e995_2c1b3c6d

    /// The 96 bits every id is made of: one XXH64 lane of `message` and the upper half of a
    /// second, differently seeded one.
    package static func digest96(of message: [UInt8]) -> (UInt64, UInt64) {
        var hash = Pair(seedA: 0, seedB: digestSecondSeed)
        message.withUnsafeBytes { hash.update($0) }
        return hash.finish()
    }

    /// `digest96` as 24 lowercase hex digits, the spelling of content ids.
    package static func hex96(of message: [UInt8]) -> String {
        let (a, b) = digest96(of: message)
        func hex(_ v: UInt64, _ digits: Int) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, digits - s.count)) + s
        }
        return hex(a, 16) + hex(b >> 32, 8)
    }

    package static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    package static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    package static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    package static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    package static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) package static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always) package static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* p2, 31) &* p1
    }

    @inline(__always) package static func merge(_ acc: UInt64, _ v: UInt64) -> UInt64 {
        (acc ^ round(0, v)) &* p1 &+ p4
    }

    /// Two XXH64 hashes of one message under two seeds, fed in pieces: the same values as
    /// `hash` over the pieces joined, without joining them, in one pass over the bytes.
    package struct Pair {
        private var a: (UInt64, UInt64, UInt64, UInt64)
        private var b: (UInt64, UInt64, UInt64, UInt64)
        private let seedA: UInt64, seedB: UInt64
        /// Bytes fed so far, and the ones (< 32) not yet consumed as a stripe.
        private var length = 0
        private var pending: [UInt8] = []

        package init(seedA: UInt64, seedB: UInt64) {
            self.seedA = seedA
            self.seedB = seedB
            a = (seedA &+ p1 &+ p2, seedA &+ p2, seedA, seedA &- p1)
            b = (seedB &+ p1 &+ p2, seedB &+ p2, seedB, seedB &- p1)
            pending.reserveCapacity(32)
        }

        /// The 32-byte stripes of `data` (whole ones only) into both states.
        private mutating func stripes(_ data: UnsafeRawBufferPointer, count: Int) {
            var (a1, a2, a3, a4) = a, (b1, b2, b3, b4) = b
            var i = 0
            while i + 32 <= count {
                let w1 = UInt64(littleEndian: data.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let w2 = UInt64(littleEndian: data.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                let w3 = UInt64(littleEndian: data.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
                let w4 = UInt64(littleEndian: data.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
                a1 = round(a1, w1); a2 = round(a2, w2); a3 = round(a3, w3); a4 = round(a4, w4)
                b1 = round(b1, w1); b2 = round(b2, w2); b3 = round(b3, w3); b4 = round(b4, w4)
                i += 32
            }
            a = (a1, a2, a3, a4)
            b = (b1, b2, b3, b4)
        }

        package mutating func update(_ data: UnsafeRawBufferPointer) {
            guard data.count > 0 else { return }
            length += data.count
            var from = 0
            if !pending.isEmpty {
                let take = min(32 - pending.count, data.count)
                pending.append(contentsOf: data[0..<take])
                from = take
                guard pending.count == 32 else { return }
                pending.withUnsafeBytes { stripes($0, count: 32) }
                pending.removeAll(keepingCapacity: true)
            }
            let rest = UnsafeRawBufferPointer(rebasing: data[from...])
            let whole = rest.count / 32 * 32
            stripes(rest, count: whole)
            pending.append(contentsOf: rest[whole...])
        }

        package func finish() -> (UInt64, UInt64) {
            pending.withUnsafeBytes { tail in
                (Self.finish(v: a, seed: seedA, length: length, tail: tail),
                 Self.finish(v: b, seed: seedB, length: length, tail: tail))
            }
        }

        private static func finish(v: (UInt64, UInt64, UInt64, UInt64), seed: UInt64, length: Int,
                                   tail: UnsafeRawBufferPointer) -> UInt64 {
            var h: UInt64
            if length >= 32 {
                h = rotl(v.0, 1) &+ rotl(v.1, 7) &+ rotl(v.2, 12) &+ rotl(v.3, 18)
                h = merge(h, v.0); h = merge(h, v.1); h = merge(h, v.2); h = merge(h, v.3)
            } else {
                h = seed &+ p5
            }
            h = h &+ UInt64(length)
            return avalanche(remainder(h, tail))
        }
    }

    /// The last 0...31 bytes of a message, after the stripes.
    package static func remainder(_ start: UInt64, _ data: UnsafeRawBufferPointer) -> UInt64 {
        var h = start, i = 0
        let length = data.count
        while i + 8 <= length {
            h ^= round(0, UInt64(littleEndian: data.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            h = rotl(h, 27) &* p1 &+ p4
            i += 8
        }
        if i + 4 <= length {
            h ^= UInt64(UInt32(littleEndian: data.loadUnaligned(fromByteOffset: i, as: UInt32.self))) &* p1
            h = rotl(h, 23) &* p2 &+ p3
            i += 4
        }
        while i < length {
            h ^= UInt64(data[i]) &* p5
            h = rotl(h, 11) &* p1
            i += 1
        }
        return h
    }

    package static func avalanche(_ x: UInt64) -> UInt64 {
        var h = x
        h ^= h >> 33; h = h &* p2
        h ^= h >> 29; h = h &* p3
        h ^= h >> 32
        return h
    }

    package static func hash(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    package static func hash(_ data: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        let length = data.count
        var i = 0
        func read64(_ at: Int) -> UInt64 { UInt64(littleEndian: data.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
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
        return avalanche(remainder(h, UnsafeRawBufferPointer(rebasing: data[i...])))
    }
}
