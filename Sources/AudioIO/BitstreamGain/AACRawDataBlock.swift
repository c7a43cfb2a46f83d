/// A walk through AAC-LC raw_data_blocks (ISO/IEC 14496-3, 4.4.2): every element read far enough
/// to find the next, each channel stream's `global_gain` located and the scale factors it carries
/// followed, so a gain of whole steps can be checked and applied. Nothing is dequantised: spectral
/// data is skipped codeword by codeword.
package struct AACRawDataBlock {
    /// One channel stream's global_gain: where (bit offset from the buffer's start) and what, with
    /// the range of the scale factors and noise energies coded relative to it.
    package struct ChannelGain: Equatable {
        package var bit: Int
        package var value: Int
        /// Scale factors of the coded bands (0…255 in the standard), nil with none.
        package var scaleFactors: ClosedRange<Int>?
        /// Noise-substitution energies (kept within −100…155 by decoders), nil with none.
        package var noiseEnergies: ClosedRange<Int>?

        /// What breaks first when every one of them moves by `steps`: nil when nothing does.
        package func violation(_ steps: Int) -> (globalGain: Bool, value: Int)? {
            if value + steps < 0 || value + steps > 255 { return (true, value + steps) }
            if let s = scaleFactors {
                if s.lowerBound + steps < 0 { return (false, s.lowerBound + steps) }
                if s.upperBound + steps > 255 { return (false, s.upperBound + steps) }
            }
            if let n = noiseEnergies {
                if n.lowerBound + steps < -100 { return (false, n.lowerBound + steps) }
                if n.upperBound + steps > 155 { return (false, n.upperBound + steps) }
            }
            return nil
        }
    }

    /// Why a block can't be walked: a structure that isn't valid, or one this doesn't change.
    package enum Failure: Error, Equatable {
        case malformed(String, bit: Int)
        /// SBR or another element or tool whose levels would not follow global_gain.
        case unsupported(String)
    }

    /// The sampling-frequency index (0…12) the band tables are chosen by.
    package let samplingIndex: Int

    /// Element ids (Table 4.85).
    package static let sce = 0, cpe = 1, cce = 2, lfe = 3, dse = 4, pce = 5, fil = 6, end = 7

    /// Walks one raw_data_block starting at bit `start` of `b` and ending before bit `limit`,
    /// appending every channel stream's gain to `gains`; returns the bit after ID_END.
    package func walk(_ b: UnsafeBufferPointer<UInt8>, start: Int, limit: Int, into gains: inout [ChannelGain]) throws(Failure) -> Int {
        var r = AACBitReader(b, bit: start, limit: limit)
        while true {
            let id = try r.read(3)
            switch id {
            case Self.sce, Self.lfe:
                _ = try r.read(4)
                gains.append(try channelStream(&r, info: nil))
            case Self.cpe:
                _ = try r.read(4)
                if try r.read(1) == 1 {
                    let info = try icsInfo(&r)
                    let ms = try r.read(2)
                    if ms == 3 { throw .malformed("ms_mask_present", bit: r.bit) }
                    if ms == 1 { try r.skip(info.groups.count * info.maxSFB) }
                    gains.append(try channelStream(&r, info: info))
                    gains.append(try channelStream(&r, info: info))
                } else {
                    gains.append(try channelStream(&r, info: nil))
                    gains.append(try channelStream(&r, info: nil))
                }
            case Self.cce:
                throw .unsupported("AAC with a coupling channel element (CCE), whose mix into the other channels this does not follow")
            case Self.dse:
                _ = try r.read(4)
                let align = try r.read(1) == 1
                var count = try r.read(8)
                if count == 255 { count += try r.read(8) }
                if align { r.alignToByte() }
                try r.skip(8 * count)
            case Self.pce:
                try programConfig(&r)
            case Self.fil:
                var count = try r.read(4)
                if count == 15 { count += try r.read(8) - 1 }
                if count > 0 {
                    let type = try r.peek(4)
                    // EXT_SBR_DATA and EXT_SBR_DATA_CRC: SBR's envelope energies are absolute.
                    if type == 13 || type == 14 { throw .unsupported("HE-AAC (SBR data in its frames; SBR's band energies are absolute and would not follow global_gain)") }
                    try r.skip(8 * count)
                }
            default:
                return r.bit
            }
        }
    }

    /// ics_info's facts the rest of the channel stream depends on.
    package struct ICSInfo {
        package var short: Bool
        package var maxSFB: Int
        /// Window-group lengths (one group of 1 for a long window).
        package var groups: [Int]
    }

    package func icsInfo(_ r: inout AACBitReader) throws(Failure) -> ICSInfo {
        _ = try r.read(1)  // ics_reserved_bit
        let sequence = try r.read(2)
        _ = try r.read(1)  // window_shape
        if sequence == 2 {  // EIGHT_SHORT_SEQUENCE
            let maxSFB = try r.read(4)
            let grouping = try r.read(7)
            var groups = [1]
            for k in (0..<7).reversed() {
                if grouping >> k & 1 == 1 { groups[groups.count - 1] += 1 } else { groups.append(1) }
            }
            guard maxSFB <= AACHuffmanTables.bandOffsetsShort[samplingIndex].count - 1 else { throw .malformed("max_sfb", bit: r.bit) }
            return ICSInfo(short: true, maxSFB: maxSFB, groups: groups)
        }
        let maxSFB = try r.read(6)
        if try r.read(1) == 1 { throw .unsupported("AAC with prediction (AAC Main or LTP)") }
        guard maxSFB <= AACHuffmanTables.bandOffsetsLong[samplingIndex].count - 1 else { throw .malformed("max_sfb", bit: r.bit) }
        return ICSInfo(short: false, maxSFB: maxSFB, groups: [1])
    }

    /// individual_channel_stream: the gain and its scale factors, everything else skipped.
    package func channelStream(_ r: inout AACBitReader, info shared: ICSInfo?) throws(Failure) -> ChannelGain {
        let gainBit = r.bit
        let globalGain = try r.read(8)
        let info: ICSInfo
        if let shared { info = shared } else { info = try icsInfo(&r) }
        let offsets = info.short ? AACHuffmanTables.bandOffsetsShort[samplingIndex] : AACHuffmanTables.bandOffsetsLong[samplingIndex]

        // section_data: (codebook, first band, end band) per group.
        var sections: [[(cb: Int, start: Int, end: Int)]] = []
        var bandBooks: [[Int]] = []
        let lengthBits = info.short ? 3 : 5, escape = (1 << lengthBits) - 1
        for _ in info.groups {
            var list: [(cb: Int, start: Int, end: Int)] = []
            var books = [Int](repeating: 0, count: info.maxSFB)
            var k = 0
            while k < info.maxSFB {
                let cb = try r.read(4)
                if cb == 12 { throw .malformed("section codebook", bit: r.bit) }
                var length = 0
                while true {
                    let add = try r.read(lengthBits)
                    length += add
                    if add != escape { break }
                }
                guard k + length <= info.maxSFB else { throw .malformed("section length", bit: r.bit) }
                for s in k..<(k + length) { books[s] = cb }
                list.append((cb, k, k + length))
                k += length
            }
            sections.append(list)
            bandBooks.append(books)
        }

        // scale_factor_data: regular ones from global_gain, noise energies from global_gain − 90
        // (the first as 9 bits), intensity positions from 0 (relative to the other channel, so
        // untouched by a gain).
        var sf = globalGain, noise = globalGain - 90, firstNoise = true
        var sfRange: ClosedRange<Int>?, noiseRange: ClosedRange<Int>?
        for books in bandBooks {
            for cb in books where cb != 0 {
                switch cb {
                case 14, 15:
                    _ = try r.scaleFactorDifference()
                case 13:
                    if firstNoise { noise += try r.read(9) - 256; firstNoise = false } else { noise += try r.scaleFactorDifference() }
                    noiseRange = noiseRange.map { min($0.lowerBound, noise)...max($0.upperBound, noise) } ?? noise...noise
                default:
                    sf += try r.scaleFactorDifference()
                    sfRange = sfRange.map { min($0.lowerBound, sf)...max($0.upperBound, sf) } ?? sf...sf
                }
            }
        }

        if try r.read(1) == 1 {  // pulse_data
            if info.short { throw .malformed("pulse data in a short window", bit: r.bit) }
            let pulses = try r.read(2) + 1
            try r.skip(6 + pulses * 9)
        }
        if try r.read(1) == 1 {  // tns_data
            for _ in 0..<(info.short ? 8 : 1) {
                let filters = try r.read(info.short ? 1 : 2)
                if filters == 0 { continue }
                let resolution = try r.read(1)
                for _ in 0..<filters {
                    try r.skip(info.short ? 4 : 6)
                    let order = try r.read(info.short ? 3 : 5)
                    if order > 0 {
                        _ = try r.read(1)
                        let compress = try r.read(1)
                        try r.skip(order * (3 + resolution - compress))
                    }
                }
            }
        }
        if try r.read(1) == 1 { throw .unsupported("AAC SSR (gain control)") }

        // spectral_data: each codeword, its sign bits and escapes skipped.
        for (g, list) in sections.enumerated() {
            for section in list where section.cb >= 1 && section.cb <= 11 {
                let book = AACCodebook.spectral[section.cb - 1]
                let lines = (offsets[section.end] - offsets[section.start]) * info.groups[g]
                var n = 0
                while n < lines {
                    try r.skipCodeword(book)
                    n += book.dimension
                }
            }
        }
        return ChannelGain(bit: gainBit, value: globalGain, scaleFactors: sfRange, noiseEnergies: noiseRange)
    }

    /// program_config_element (4.4.1.1), skipped.
    package func programConfig(_ r: inout AACBitReader) throws(Failure) {
        try r.skip(4 + 2 + 4)
        let front = try r.read(4), side = try r.read(4), back = try r.read(4)
        let lfe = try r.read(2), assoc = try r.read(3), cc = try r.read(4)
        if try r.read(1) == 1 { try r.skip(4) }
        if try r.read(1) == 1 { try r.skip(4) }
        if try r.read(1) == 1 { try r.skip(3) }
        try r.skip(5 * (front + side + back) + 4 * (lfe + assoc) + 5 * cc)
        r.alignToByte()
        try r.skip(8 * r.read(8))
    }
}

/// Reads bits most significant first from a buffer, never past `limit`.
package struct AACBitReader {
    package let b: UnsafeBufferPointer<UInt8>
    package var bit: Int
    package let limit: Int

    package init(_ b: UnsafeBufferPointer<UInt8>, bit: Int, limit: Int) {
        self.b = b
        self.bit = bit
        self.limit = min(limit, b.count * 8)
    }

    /// The next `n` (≤ 25) bits without moving; zeros past the end.
    @inline(__always) package func peek(_ n: Int) throws(AACRawDataBlock.Failure) -> Int {
        if bit + n > limit { throw .malformed("the end of the block", bit: bit) }
        return peekPadded(n)
    }

    @inline(__always) package func peekPadded(_ n: Int) -> Int {
        let i = bit >> 3
        var v: UInt32
        if i + 4 <= b.count {
            v = UInt32(bigEndian: UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt32.self))
        } else {
            v = 0
            for k in 0..<4 { v = v << 8 | (i + k < b.count ? UInt32(b[i + k]) : 0) }
        }
        return Int(v >> UInt32(32 - n - bit & 7)) & ((1 << n) - 1)
    }

    @inline(__always) package mutating func read(_ n: Int) throws(AACRawDataBlock.Failure) -> Int {
        let v = try peek(n)
        bit += n
        return v
    }

    package mutating func skip(_ n: Int) throws(AACRawDataBlock.Failure) {
        if bit + n > limit { throw .malformed("the end of the block", bit: bit) }
        bit += n
    }

    package mutating func alignToByte() { bit = (bit + 7) & ~7 }

    /// A scale-factor codeword's difference (index − 60).
    package mutating func scaleFactorDifference() throws(AACRawDataBlock.Failure) -> Int {
        let book = AACCodebook.scaleFactor
        let e = book.entry(forPadded: peekPadded(book.maxLength))
        let length = Int(e & 31)
        try skip(length)
        return Int(e >> 5 & 511) - 60
    }

    /// One spectral codeword with its sign bits and escape sequences.
    package mutating func skipCodeword(_ book: AACCodebook) throws(AACRawDataBlock.Failure) {
        let e = book.entry(forPadded: peekPadded(book.maxLength))
        try skip(Int(e & 31) + Int(e >> 14 & 7))
        var escapes = Int(e >> 17 & 3)
        while escapes != 0 {
            // escape_prefix: N ones and a zero, then an (N + 4)-bit escape_word.
            var ones = 0
            while try read(1) == 1 {
                ones += 1
                if ones > 8 { throw .malformed("spectral escape", bit: bit) }
            }
            try skip(ones + 4)
            escapes &= escapes - 1
        }
    }
}
