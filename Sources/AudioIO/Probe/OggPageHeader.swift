/// The header of one Ogg page (RFC 3533): 27 fixed bytes and the lacing table. Read here once for
/// every reader of Ogg pages: the probe's Vorbis-comment reader, the decoder's link scan and the
/// bitstream gain's page walk.
public struct OggPageHeader: Equatable, Sendable {
    /// Header type flags: 0x01 continued packet, 0x02 first page of a stream, 0x04 last page.
    public var flags: UInt8
    public var granule: UInt64
    public var serial: UInt32
    public var sequence: UInt32
    /// The stored CRC-32.
    public var checksum: UInt32
    /// The lacing values; the body is their sum.
    public var segments: [UInt8]
    public var headerLength: Int { 27 + segments.count }
    public var bodyLength: Int { segments.reduce(0) { $0 + Int($1) } }

    /// The header starting at `at` in `b`, or nil when there is no "OggS" there or the bytes stop
    /// before the end of its lacing table.
    public init?(_ b: [UInt8], at: Int = 0) {
        guard at >= 0, at + 27 <= b.count, b[at] == 0x4F, b[at + 1] == 0x67, b[at + 2] == 0x67, b[at + 3] == 0x53 else { return nil }
        let n = Int(b[at + 26])
        guard at + 27 + n <= b.count else { return nil }
        func le(_ o: Int, _ count: Int) -> UInt64 { (0..<count).reduce(0) { $0 | UInt64(b[at + o + $1]) << (8 * $1) } }
        flags = b[at + 5]
        granule = le(6, 8)
        serial = UInt32(le(14, 4))
        sequence = UInt32(le(18, 4))
        checksum = UInt32(le(22, 4))
        segments = Array(b[(at + 27)..<(at + 27 + n)])
    }
}
