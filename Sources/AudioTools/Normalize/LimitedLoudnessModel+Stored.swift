import Foundation

/// A model's columns as bytes, to keep between runs: what lufs-measure --keep-analysis leaves in
/// the cache so lufs-normalize needs no analysis pass of its own. The columns are the model; the
/// limiter settings are the normaliser's, given when the bytes are read back, so one analysis
/// serves every target and ceiling.
///
/// Layout: "LLM1", the sample rate (UInt32), the energy and peak counts (UInt64 each), then the
/// energies and the peaks as Float bit patterns, all little-endian.
extension LimitedLoudnessModel {
    static let storedMagic: [UInt8] = Array("LLM1".utf8)
    static let storedHeaderBytes = 4 + 4 + 8 + 8

    /// The columns of this model, made from the source itself (no gain, limiter on): nil otherwise,
    /// since another model's columns don't replay the source's loudness at every gain.
    public func storedColumns() -> [UInt8]? {
        guard analysedGainDB == 0, limit, peakColumn.count >= energyColumn.count else { return nil }
        var bytes = Self.storedMagic
        bytes.reserveCapacity(Self.storedHeaderBytes + 4 * (energyColumn.count + peakColumn.count))
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        put(UInt32(sampleRate))
        put(UInt64(energyColumn.count))
        put(UInt64(peakColumn.count))
        for column in [energyColumn, peakColumn] {
            let n = column.count, start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: 4 * n))
            guard n > 0 else { continue }
            bytes.withUnsafeMutableBytes { raw in
                let floats = (raw.baseAddress! + start).bindMemory(to: Float.self, capacity: n)
                column.read(from: 0, count: n, into: floats)
                for i in 0..<n { floats[i] = Float(bitPattern: floats[i].bitPattern.littleEndian) }
            }
        }
        return bytes
    }

    /// The model that `storedColumns` kept, for a limiter with `settings`; nil when the bytes are
    /// not such columns or are of another sample rate.
    public static func fromStored(_ bytes: [UInt8], sampleRate: Int, settings: TruePeakLimiter.Settings) -> LimitedLoudnessModel? {
        guard bytes.count >= storedHeaderBytes, Array(bytes[0..<4]) == storedMagic else { return nil }
        func get<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            var v: T = 0
            withUnsafeMutableBytes(of: &v) { $0.copyBytes(from: bytes[at..<(at + MemoryLayout<T>.size)]) }
            return T(littleEndian: v)
        }
        let rate = get(4, UInt32.self), energies = get(8, UInt64.self), peaks = get(16, UInt64.self)
        guard Int(rate) == sampleRate, energies <= peaks, peaks <= UInt64(Int.max / 8),
              bytes.count == storedHeaderBytes + 4 * Int(energies + peaks) else { return nil }
        let energyColumn = FloatSpill(), peakColumn = FloatSpill()
        bytes.withUnsafeBytes { raw in
            var at = storedHeaderBytes
            var chunk = [Float](repeating: 0, count: 1 << 16)
            for (column, count) in [(energyColumn, Int(energies)), (peakColumn, Int(peaks))] {
                var done = 0
                while done < count {
                    let n = min(chunk.count, count - done)
                    chunk.withUnsafeMutableBufferPointer { c in
                        for i in 0..<n {
                            c[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4 * i, as: UInt32.self)))
                        }
                        column.append(contentsOf: UnsafeBufferPointer(rebasing: c[0..<n]))
                    }
                    at += 4 * n
                    done += n
                }
            }
        }
        return LimitedLoudnessModel(energyColumn: energyColumn, peakColumn: peakColumn, hop: (sampleRate + 5) / 10,
                                    sampleRate: sampleRate, limit: true, settings: settings)
    }
}
