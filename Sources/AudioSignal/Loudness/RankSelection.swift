import Foundation

/// The value of a given rank among the Doubles of a sequence that pass a test, found without
/// sorting them or holding them: Doubles order as keys made of their bits, so the rank is narrowed
/// a digit of the key at a time, one pass over the sequence each, until few enough values share
/// the digits found to be sorted. The same value as sorting the passing values and indexing, in
/// memory that doesn't grow with the sequence (the loudness range of a two-hour stream).
package enum RankSelection {
    /// Bits of the key found per pass.
    package static let digitBits = 11
    /// Values sharing the digits found that are sorted rather than narrowed further.
    package static let sortedAtMost = 1024

    /// The value of rank `rank` (0: the smallest) among the values of `values` that pass `keep`,
    /// as `values.filter(keep).sorted()[rank]` gives it. `values` is read several times; `keep`
    /// must pass no NaN, and `rank` must be under the count passing.
    package static func value<S: Sequence>(rank: Int, among values: S, where keep: (Double) -> Bool) -> Double where S.Element == Double {
        precondition(rank >= 0)
        var prefix: UInt64 = 0, known = 0, rank = rank
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        while known < 64 {
            let width = min(digitBits, 64 - known)
            for d in 0..<(1 << width) { counts[d] = 0 }
            var sharing = 0
            for z in values where keep(z) {
                let k = key(z)
                guard known == 0 || k >> (64 - known) == prefix else { continue }
                counts[Int((k << known) >> (64 - width))] += 1
                sharing += 1
            }
            precondition(rank < sharing, "RankSelection: rank \(rank) of \(sharing) values")
            if sharing <= sortedAtMost {
                // Few enough: the values with these digits, sorted.
                var few: [Double] = []
                few.reserveCapacity(sharing)
                for z in values where keep(z) && key(z) >> (64 - known) == prefix { few.append(z) }
                few.sort()
                return few[rank]
            }
            var d = 0
            while rank >= counts[d] { rank -= counts[d]; d += 1 }
            prefix = prefix << width | UInt64(d)
            known += width
        }
        return value(ofKey: prefix)
    }

    /// A key ordered as the Doubles are (negatives below positives, −0 just below +0).
    @inline(__always) package static func key(_ z: Double) -> UInt64 {
        let b = z.bitPattern
        return b >> 63 == 1 ? ~b : b | 1 << 63
    }

    package static func value(ofKey k: UInt64) -> Double {
        Double(bitPattern: k >> 63 == 1 ? k & ~(1 << 63) : ~k)
    }
}
