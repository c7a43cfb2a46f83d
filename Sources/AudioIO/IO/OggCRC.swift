/// The Ogg page checksum (RFC 3533): CRC-32, polynomial 0x04C11DB7, initial value 0, no
/// reflection, no final XOR. In IO because both the bitstream gain and the Ogg renumbering use it.
public enum OggCRC {
    package static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    /// The CRC of `bytes[range]`, reading the four bytes at `zeroing` (the stored checksum) as 0.
    public static func checksum(_ bytes: [UInt8], _ range: Range<Int>, zeroing: Int?) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, range, zeroing: zeroing) }
    }

    /// The same over raw bytes.
    public static func checksum(_ b: UnsafeRawBufferPointer, _ range: Range<Int>, zeroing: Int?) -> UInt32 {
        var crc: UInt32 = 0
        table.withUnsafeBufferPointer { t in
            func run(_ r: Range<Int>) {
                for i in r { crc = (crc << 8) ^ t[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ b[i])] }
            }
            guard let z = zeroing, range.contains(z) else { return run(range) }
            run(range.lowerBound..<z)
            for _ in 0..<min(4, range.upperBound - z) { crc = (crc << 8) ^ t[Int(UInt8(truncatingIfNeeded: crc >> 24))] }
            run(min(z + 4, range.upperBound)..<range.upperBound)
        }
        return crc
    }
}
