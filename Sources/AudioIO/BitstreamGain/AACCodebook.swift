/// One AAC Huffman codebook made ready for skipping codewords: the codes of AACHuffmanTables in a
/// table indexed by the next `maxLength` bits, each entry giving the code's length and index, and
/// for a spectral book the sign bits and escapes that follow it.
package struct AACCodebook: Sendable {
    /// Entries' lengths and codewords, by index, as the standard lists them.
    package let lengths: [Int]
    package let codes: [UInt32]
    /// Values per codeword (4 for books 1–4, 2 for 5–11; 1 for scale factors).
    package let dimension: Int
    /// Whether the values are unsigned (sign bits follow for each non-zero value).
    package let unsigned: Bool
    /// The largest absolute value (16 in book 11 means an escape follows).
    package let largest: Int
    package let maxLength: Int
    /// Bits the first table is indexed by: a full table by `maxLength` bits (2^19 entries for the
    /// scale factors) would miss the cache on most codewords, so codes longer than this go on to a
    /// second table.
    package let primaryBits: Int
    /// By the next `primaryBits` bits: length | index << 5 | sign bits << 14 | escapes << 17; or,
    /// with bit 31 set, where this prefix's part of `secondary` starts.
    package let primary: [UInt32]
    /// Entries of the prefixes with longer codes, by the next `maxLength - primaryBits` bits after.
    package let secondary: [UInt32]

    package init(_ text: String, dimension: Int, unsigned: Bool, largest: Int) {
        var lengths: [Int] = [], codes: [UInt32] = []
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = token.split(separator: ":")
            lengths.append(Int(parts[0])!)
            codes.append(UInt32(parts[1], radix: 16)!)
        }
        self.lengths = lengths
        self.codes = codes
        self.dimension = dimension
        self.unsigned = unsigned
        self.largest = largest
        let maxLength = lengths.max()!
        self.maxLength = maxLength
        var lookup = [UInt32](repeating: 0, count: 1 << maxLength)
        let modulus = unsigned ? largest + 1 : 2 * largest + 1
        for (index, length) in lengths.enumerated() {
            var signs = 0, escapes = 0
            if dimension > 1 {
                var rest = index
                for k in 0..<dimension {
                    let digit = rest % modulus
                    rest /= modulus
                    if unsigned, digit != 0 { signs += 1 }
                    // Bit 0: the first value is 16 (an escape follows); bit 1: the second.
                    if unsigned, largest == 16, digit == 16 { escapes |= 1 << (dimension - 1 - k) }
                }
            }
            let entry = UInt32(length) | UInt32(index) << 5 | UInt32(signs) << 14 | UInt32(escapes) << 17
            let first = Int(codes[index]) << (maxLength - length)
            for i in first..<(first + (1 << (maxLength - length))) { lookup[i] = entry }
        }
        // The two tables from the full one: a prefix whose range holds one entry is kept whole.
        let p = min(maxLength, 10), rest = maxLength - p
        var primary = [UInt32](repeating: 0, count: 1 << p), secondary: [UInt32] = []
        for prefix in 0..<(1 << p) {
            let range = (prefix << rest)..<((prefix + 1) << rest)
            if Int(lookup[range.lowerBound] & 31) <= p {
                primary[prefix] = lookup[range.lowerBound]
            } else {
                primary[prefix] = 0x8000_0000 | UInt32(secondary.count)
                secondary += lookup[range]
            }
        }
        self.primaryBits = p
        self.primary = primary
        self.secondary = secondary
    }

    /// The entry of the codeword that starts `bits` (the next `maxLength` bits, zero-padded).
    @inline(__always) package func entry(forPadded bits: Int) -> UInt32 {
        let rest = maxLength - primaryBits
        let e = primary[bits >> rest]
        if e & 0x8000_0000 == 0 { return e }
        return secondary[Int(e & 0x7FFF_FFFF) + (bits & ((1 << rest) - 1))]
    }

    /// The sum of 2^-length over the entries, in units of 2^-maxLength (1 << maxLength for a
    /// complete prefix code).
    package var kraftSum: Int { lengths.reduce(0) { $0 + 1 << (maxLength - $1) } }

    /// Whether no codeword is a prefix of another.
    package var isPrefixFree: Bool {
        // Each code owns a range of the lookup; overlapping ranges mean one is a prefix of another.
        let ranges = lengths.indices.map { (Int(codes[$0]) << (maxLength - lengths[$0]), 1 << (maxLength - lengths[$0])) }.sorted { $0.0 < $1.0 }
        for (a, b) in zip(ranges, ranges.dropFirst()) where a.0 + a.1 > b.0 { return false }
        return true
    }

    package static let scaleFactor = AACCodebook(AACHuffmanTables.scaleFactor, dimension: 1, unsigned: false, largest: 60)
    /// Spectral codebooks 1–11 (index = number − 1): dimension, signedness and largest value as
    /// ISO/IEC 14496-3 Table 4.A.2 gives them.
    package static let spectral: [AACCodebook] = {
        let shape: [(Int, Bool, Int)] = [(4, false, 1), (4, false, 1), (4, true, 2), (4, true, 2), (2, false, 4), (2, false, 4),
                                         (2, true, 7), (2, true, 7), (2, true, 12), (2, true, 12), (2, true, 16)]
        return shape.indices.map { AACCodebook(AACHuffmanTables.spectral[$0], dimension: shape[$0].0, unsigned: shape[$0].1, largest: shape[$0].2) }
    }()
}
