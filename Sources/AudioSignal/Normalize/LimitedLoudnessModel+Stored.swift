import Foundation

/// A model's columns as bytes, to keep between runs: what lufs-measure --keep-analysis leaves in
/// the cache so lufs-normalize needs no analysis pass of its own. The columns are the model; the
/// limiter settings are the normaliser's, given when the bytes are read back, so one analysis
/// serves every target and ceiling. Written and read a piece at a time (a long file's columns
/// are never held whole).
///
/// Layout: "LLM1", the sample rate (UInt32), the energy and peak counts (UInt64 each), then the
/// energies and the peaks as Float bit patterns, all little-endian.
extension LimitedLoudnessModel {
    package static let storedMagic: [UInt8] = Array("LLM1".utf8)
    package static let storedHeaderBytes = 4 + 4 + 8 + 8
    /// Values moved at a time.
    package static let storedChunk = 1 << 16

    /// The length of the columns as bytes, for a model made from the source itself (no gain,
    /// limiter on): nil otherwise, since another model's columns don't replay the source's
    /// loudness at every gain.
    public var storedByteCount: Int? {
        guard analysedGainDB == 0, limit, peakColumn.count >= energyColumn.count else { return nil }
        return Self.storedHeaderBytes + 4 * (energyColumn.count + peakColumn.count)
    }

    /// Hands `write` the columns as bytes, in order, a piece at a time (bytes and their offset).
    public func writeStored(_ write: (UnsafeRawBufferPointer, Int) throws -> Void) rethrows {
        var header = Self.storedMagic
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        put(UInt32(sampleRate))
        put(UInt64(energyColumn.count))
        put(UInt64(peakColumn.count))
        try header.withUnsafeBytes { try write($0, 0) }
        var at = Self.storedHeaderBytes
        var chunk = [Float](repeating: 0, count: Self.storedChunk)
        for column in [energyColumn, peakColumn] {
            var done = 0
            while done < column.count {
                let n = min(chunk.count, column.count - done)
                try chunk.withUnsafeMutableBufferPointer { c in
                    column.read(from: done, count: n, into: c.baseAddress!)
                    for i in 0..<n { c[i] = Float(bitPattern: c[i].bitPattern.littleEndian) }
                    try write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(c)[0..<(4 * n)]), at)
                }
                at += 4 * n
                done += n
            }
        }
    }

    /// The model that `writeStored` kept (`count` bytes, which `read(buffer, n, offset)` gives a
    /// piece at a time), for a limiter with `settings`; nil when they are not such columns or are
    /// of another sample rate.
    public static func fromStored(count: Int, sampleRate: Int, settings: TruePeakLimiter.Settings,
                                  read: (UnsafeMutableRawPointer, Int, Int) throws -> Void) rethrows -> LimitedLoudnessModel? {
        guard count >= storedHeaderBytes else { return nil }
        var header = [UInt8](repeating: 0, count: storedHeaderBytes)
        try header.withUnsafeMutableBytes { try read($0.baseAddress!, storedHeaderBytes, 0) }
        func get<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            var v: T = 0
            withUnsafeMutableBytes(of: &v) { $0.copyBytes(from: header[at..<(at + MemoryLayout<T>.size)]) }
            return T(littleEndian: v)
        }
        let rate = get(4, UInt32.self), energies = get(8, UInt64.self), peaks = get(16, UInt64.self)
        guard Array(header[0..<4]) == storedMagic, Int(rate) == sampleRate, energies <= peaks, peaks <= UInt64(Int.max / 8),
              count == storedHeaderBytes + 4 * Int(energies + peaks) else { return nil }
        let energyColumn = FloatSpill(), peakColumn = FloatSpill()
        var at = storedHeaderBytes
        var chunk = [Float](repeating: 0, count: storedChunk)
        for (column, total) in [(energyColumn, Int(energies)), (peakColumn, Int(peaks))] {
            var done = 0
            while done < total {
                let n = min(chunk.count, total - done)
                try chunk.withUnsafeMutableBufferPointer { c in
                    try read(c.baseAddress!, 4 * n, at)
                    for i in 0..<n { c[i] = Float(bitPattern: UInt32(littleEndian: c[i].bitPattern)) }
                    column.append(contentsOf: UnsafeBufferPointer(rebasing: c[0..<n]))
                }
                at += 4 * n
                done += n
            }
        }
        return LimitedLoudnessModel(energyColumn: energyColumn, peakColumn: peakColumn, hop: (sampleRate + 5) / 10,
                                    sampleRate: sampleRate, limit: true, settings: settings)
    }
}
