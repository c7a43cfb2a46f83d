@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Hand-built byte images of the formats the probe reads, small enough to write out in full.
enum ProbeFixture {
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

    static func fourcc(_ s: String) -> [UInt8] { s.unicodeScalars.map { UInt8($0.value & 0xFF) } }

    // MARK: ISO base media

    static func box(_ type: String, _ payload: [UInt8] = []) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + fourcc(type) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }

    static func ftyp(_ major: String, _ compatible: [String] = ["isom"]) -> [UInt8] {
        box("ftyp", fourcc(major) + [0, 0, 0, 0] + compatible.flatMap(fourcc))
    }

    /// Audio sample entry (ISO v0 layout) with optional children.
    static func audioEntry(_ type: String, channels: Int = 2, bits: Int = 16, rate: UInt32 = 44100,
                           children: [UInt8] = []) -> [UInt8] {
        let body = [UInt8](repeating: 0, count: 6) + be16(1) + [UInt8](repeating: 0, count: 8)
            + be16(channels) + be16(bits) + be16(0) + be16(0) + be32(rate << 16)
        return box(type, body + children)
    }

    static func videoEntry(_ type: String, children: [UInt8] = []) -> [UInt8] {
        box(type, [UInt8](repeating: 0, count: 6) + be16(1) + [UInt8](repeating: 0, count: 70) + children)
    }

    /// esds for AAC with the given AudioSpecificConfig.
    static func esds(objectType: UInt8 = 0x40, asc: [UInt8] = [0x12, 0x10]) -> [UInt8] {
        let dsi: [UInt8] = [5, UInt8(asc.count)] + asc
        let dcd: [UInt8] = [4, UInt8(13 + dsi.count), objectType, 0x15] + [UInt8](repeating: 0, count: 11) + dsi
        let es: [UInt8] = [3, UInt8(3 + dcd.count), 0, 1, 0] + dcd
        return fullBox("esds", es)
    }

    static func sinf(original: String, scheme: String) -> [UInt8] {
        box("sinf", box("frma", fourcc(original)) + fullBox("schm", fourcc(scheme) + be32(0x10000)) + box("schi"))
    }

    static func trak(handler: String, entry: [UInt8], timescale: UInt32 = 44100, duration: UInt32 = 441000) -> [UInt8] {
        let stsd = fullBox("stsd", be32(1) + entry)
        let minf = box("minf", box("stbl", stsd))
        let hdlr = fullBox("hdlr", be32(0) + fourcc(handler) + [UInt8](repeating: 0, count: 13))
        let mdhd = fullBox("mdhd", be32(0) + be32(0) + be32(timescale) + be32(duration) + be32(0))
        return box("trak", box("mdia", mdhd + hdlr + minf))
    }

    static func ilstItem(_ type: String, text: String) -> [UInt8] {
        box(type, box("data", be32(1) + be32(0) + ascii(text)))
    }

    static func ilstItem(_ type: String, binary: [UInt8]) -> [UInt8] {
        box(type, box("data", be32(0) + be32(0) + binary))
    }

    /// moov/udta/meta/ilst; `fullMeta` false gives QuickTime's plain `meta`.
    static func udtaTags(_ items: [UInt8], fullMeta: Bool = true) -> [UInt8] {
        let hdlr = fullBox("hdlr", be32(0) + fourcc("mdir") + fourcc("appl") + [UInt8](repeating: 0, count: 9))
        let inner = hdlr + box("ilst", items)
        return box("udta", fullMeta ? fullBox("meta", inner) : box("meta", inner))
    }

    static func mp4(brand: String?, compatible: [String] = ["isom"], moov: [UInt8], mdatFirst: Bool = false) -> [UInt8] {
        let head = brand.map { ftyp($0, compatible) } ?? []
        let mdat = box("mdat", [UInt8](repeating: 0xAB, count: 32))
        return mdatFirst ? head + mdat + box("moov", moov) : head + box("moov", moov) + mdat
    }

    static var aacTrack: [UInt8] { trak(handler: "soun", entry: audioEntry("mp4a", children: esds())) }

    // MARK: ID3

    static func syncsafe(_ n: Int) -> [UInt8] {
        [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)]
    }

    static func id3Frame(version: Int, _ id: String, _ body: [UInt8], flags: [UInt8] = [0, 0]) -> [UInt8] {
        switch version {
        case 2: return ascii(id) + Array(be32(UInt32(body.count)).suffix(3)) + body
        case 3: return ascii(id) + be32(UInt32(body.count)) + flags + body
        default: return ascii(id) + syncsafe(body.count) + flags + body
        }
    }

    static func id3Tag(version: Int, flags: UInt8 = 0, _ frames: [UInt8], padding: Int = 0) -> [UInt8] {
        let body = frames + [UInt8](repeating: 0, count: padding)
        return ascii("ID3") + [UInt8(version), 0, flags] + syncsafe(body.count) + body
    }

    /// Encoding byte + text in that encoding.
    static func id3Text(_ s: String, encoding: UInt8) -> [UInt8] {
        switch encoding {
        case 0: return [0] + s.unicodeScalars.map { UInt8($0.value & 0xFF) }
        case 1: return [1, 0xFF, 0xFE] + s.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0, 0]
        case 2: return [2] + s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        default: return [3] + ascii(s) + [0]
        }
    }

    /// MPEG-1 Layer III, 128 kb/s, 44.1 kHz, stereo: 417-byte frames.
    static func mp3Frames(_ n: Int) -> [UInt8] {
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)
        return Array((0..<n).map { _ in frame }.joined())
    }

    // MARK: Vorbis comments, FLAC, Ogg, RIFF

    static func vorbisComment(vendor: String, _ fields: [String]) -> [UInt8] {
        var b = le32(vendor.utf8.count) + ascii(vendor) + le32(fields.count)
        for f in fields { b += le32(f.utf8.count) + ascii(f) }
        return b
    }

    static func flac(comment: [UInt8]?, rate: Int = 44100, channels: Int = 2, bits: Int = 16, samples: Int = 441000) -> [UInt8] {
        let packed = UInt64(rate) << 44 | UInt64(channels - 1) << 41 | UInt64(bits - 1) << 36 | UInt64(samples)
        let streaminfo = be16(4096) + be16(4096) + [0, 0, 0, 0, 0, 0] + be64(packed) + [UInt8](repeating: 0, count: 16)
        var b = ascii("fLaC") + [comment == nil ? 0x80 : 0x00, 0, 0, 34] + streaminfo
        if let c = comment { b += [0x84, UInt8(c.count >> 16), UInt8(c.count >> 8 & 0xFF), UInt8(c.count & 0xFF)] + c }
        return b
    }

    static func oggPage(sequence: Int, _ packet: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        var lacing = [UInt8](repeating: 255, count: packet.count / 255)
        lacing.append(UInt8(packet.count % 255))
        return ascii("OggS") + [0, flags] + [UInt8](repeating: 0, count: 8) + le32(0x1234) + le32(sequence)
            + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + packet
    }

    static func riffChunk(_ id: String, _ payload: [UInt8]) -> [UInt8] {
        ascii(id) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func wav(channels: Int = 2, rate: Int = 44100, bits: Int = 16, frames: Int = 100, extra: [UInt8] = []) -> [UInt8] {
        let fmt = le16(1) + le16(channels) + le32(rate) + le32(rate * channels * bits / 8) + le16(channels * bits / 8) + le16(bits)
        let body = ascii("WAVE") + riffChunk("fmt ", fmt) + riffChunk("data", [UInt8](repeating: 0, count: frames * channels * bits / 8)) + extra
        return ascii("RIFF") + le32(body.count) + body
    }
}

/// A ByteSource that counts reads (to check the probe stays a header reader).
final class ProbeCountingSource: ByteSource {
    let inner: MemoryByteSource
    private(set) var bytesRead = 0
    private(set) var reads = 0
    init(_ b: [UInt8]) { inner = MemoryByteSource(b) }
    var size: UInt64 { inner.size }
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        reads += 1
        let b = try inner.read(at: offset, count: count)
        bytesRead += b.count
        return b
    }
}
