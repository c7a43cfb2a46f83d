import Foundation

/// A sum of Doubles kept exactly (a fixed-point integer over the whole Double range), so its value
/// is the correctly rounded sum whatever the order of the terms, and terms can be taken out again.
/// The gating sums use it, so that a running measurement (a sorted structure updated per block)
/// gives the same bits as summing all the blocks at the end.
package struct ExactSum {
    /// Bit 0 of limb 0 is 2^−1074 (the smallest subnormal); 34 limbs reach past 2^1024 with room
    /// for carries. Two's complement in the top limb.
    private static let limbCount = 34
    private static let lowestExponent = -1074
    private var limbs = [UInt64](repeating: 0, count: ExactSum.limbCount)
    /// Infinities and NaNs, summed as Doubles (they have no place in the integer).
    private var special = 0.0

    package init() {}

    package mutating func add(_ x: Double) { accumulate(x, negative: x < 0) }
    package mutating func subtract(_ x: Double) { accumulate(-x, negative: x > 0) }

    /// Adds `x` (whose sign is `negative`).
    private mutating func accumulate(_ x: Double, negative: Bool) {
        guard x.isFinite else { special += x; return }
        guard x != 0 else { return }
        let m = x.significandBitPattern | (x.isNormal ? 1 << 52 : 0)
        let e = x.isNormal ? Int(x.exponentBitPattern) - 1 : 0  // bit offset of m's bit 0 from 2^−1074
        let limb = e / 64, shift = UInt64(e % 64)
        let low = m << shift, high = shift == 0 ? 0 : m >> (64 - shift)
        if negative { sub(low, high, at: limb) } else { addBits(low, high, at: limb) }
    }

    private mutating func addBits(_ low: UInt64, _ high: UInt64, at i: Int) {
        var (r, c) = limbs[i].addingReportingOverflow(low)
        limbs[i] = r
        (r, c) = Self.add3(limbs[i + 1], high, c)
        limbs[i + 1] = r
        var j = i + 2
        while c && j < limbs.count { (limbs[j], c) = limbs[j].addingReportingOverflow(1); j += 1 }
    }

    private mutating func sub(_ low: UInt64, _ high: UInt64, at i: Int) {
        var (r, b) = limbs[i].subtractingReportingOverflow(low)
        limbs[i] = r
        let (r1, b1) = limbs[i + 1].subtractingReportingOverflow(high)
        let (r2, b2) = r1.subtractingReportingOverflow(b ? 1 : 0)
        limbs[i + 1] = r2
        b = b1 || b2
        var j = i + 2
        while b && j < limbs.count { (limbs[j], b) = limbs[j].subtractingReportingOverflow(1); j += 1 }
    }

    private static func add3(_ a: UInt64, _ b: UInt64, _ carry: Bool) -> (UInt64, Bool) {
        let (s, c1) = a.addingReportingOverflow(b)
        let (t, c2) = s.addingReportingOverflow(carry ? 1 : 0)
        return (t, c1 || c2)
    }

    /// The sum, rounded once to the nearest Double (ties to even).
    package var value: Double {
        if special != 0 || special.isNaN { return special }
        if limbs.last! >> 63 == 1 {  // negative: the magnitude of its two's complement
            var n = self
            for i in n.limbs.indices { n.limbs[i] = ~n.limbs[i] }
            n.addBits(1, 0, at: 0)
            return -n.magnitude
        }
        return magnitude
    }

    /// The (non-negative) integer times 2^−1074, rounded to nearest even.
    private var magnitude: Double {
        guard let top = limbs.lastIndex(where: { $0 != 0 }) else { return 0 }
        let p = top * 64 + (63 - limbs[top].leadingZeroBitCount)  // highest set bit
        if p < 53 { return Double(sign: .plus, exponent: Self.lowestExponent, significand: Double(bits(from: 0, count: p + 1))) }
        var m = bits(from: p - 52, count: 53)
        let round = bit(p - 53)
        let sticky = p - 53 > 0 && anyBit(below: p - 53)
        if round && (sticky || m & 1 == 1) { m += 1 }
        return Double(sign: .plus, exponent: p - 52 + Self.lowestExponent, significand: Double(m))
    }

    private func bit(_ i: Int) -> Bool { limbs[i / 64] >> UInt64(i % 64) & 1 == 1 }

    /// `count` (≤ 64) bits from bit `from` up.
    private func bits(from: Int, count: Int) -> UInt64 {
        let i = from / 64, s = UInt64(from % 64)
        var v = limbs[i] >> s
        if s > 0 && i + 1 < limbs.count { v |= limbs[i + 1] << (64 - s) }
        return count == 64 ? v : v & ((1 << UInt64(count)) - 1)
    }

    /// Whether any bit under bit `i` is set.
    private func anyBit(below i: Int) -> Bool {
        let l = i / 64
        if limbs[l] & ((1 << UInt64(i % 64)) - 1) != 0 { return true }
        return limbs[..<l].contains { $0 != 0 }
    }
}
