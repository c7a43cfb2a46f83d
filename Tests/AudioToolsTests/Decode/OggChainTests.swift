import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The Ogg page walk that finds chained links and cut-off files, the channel orders Vorbis,
/// Opus and FLAC fix, and the raw-stream sniffing that routes files to ffmpeg.
@Suite struct OggChainTests {
    /// One Ogg page: `flags` (2 BOS, 4 EOS), `serial`, and a body of `body` bytes.
    static func page(flags: UInt8, serial: UInt32, body: Int) -> [UInt8] {
        var p = Array("OggS".utf8) + [0, flags] + [UInt8](repeating: 0, count: 8)
        p += withUnsafeBytes(of: serial.littleEndian, Array.init)
        p += [UInt8](repeating: 0, count: 8)  // sequence number and CRC (not checked by the walk)
        var lacing: [UInt8] = []
        var left = body
        while left >= 255 { lacing.append(255); left -= 255 }
        lacing.append(UInt8(left))
        p += [UInt8(lacing.count)] + lacing + [UInt8](repeating: 0x55, count: body)
        return p
    }

    @Test func aPlainStreamIsOneCompleteLink() throws {
        let bytes = Self.page(flags: 2, serial: 7, body: 30) + Self.page(flags: 0, serial: 7, body: 600) + Self.page(flags: 4, serial: 7, body: 10)
        let c = try OggChain.scan(MemoryByteSource(bytes))
        #expect(c.links == [OggChain.Link(serial: 7, start: 0, end: UInt64(bytes.count))])
        #expect(c.cutOff == nil)
    }

    @Test func catJoinedStreamsAreTwoLinks() throws {
        let a = Self.page(flags: 2, serial: 1, body: 30) + Self.page(flags: 4, serial: 1, body: 300)
        let b = Self.page(flags: 2, serial: 2, body: 30) + Self.page(flags: 4, serial: 2, body: 100)
        let c = try OggChain.scan(MemoryByteSource(a + b))
        #expect(c.links.map(\.serial) == [1, 2])
        #expect(c.links[0].end == UInt64(a.count) && c.links[1].start == UInt64(a.count) && c.links[1].end == UInt64(a.count + b.count))
        #expect(c.cutOff == nil)
    }

    @Test func aFileEndingInsideAPageOrWithoutItsLastPageIsCutOff() throws {
        let whole = Self.page(flags: 2, serial: 1, body: 30) + Self.page(flags: 0, serial: 1, body: 400) + Self.page(flags: 4, serial: 1, body: 50)
        let inside = try OggChain.scan(MemoryByteSource(Array(whole.prefix(200))))
        #expect(inside.cutOff?.contains("partway through an Ogg page") == true)
        let atPage = try OggChain.scan(MemoryByteSource(Array(whole.prefix(whole.count - (27 + 1 + 50)))))
        #expect(atPage.cutOff?.contains("end-of-stream") == true)
    }

    @Test func fixedOrdersFollowTheSpecs() {
        #expect(FixedChannelOrder.vorbis(6) == ["FL", "FC", "FR", "BL", "BR", "LFE"])
        #expect(FixedChannelOrder.vorbis(8) == ["FL", "FC", "FR", "SL", "SR", "BL", "BR", "LFE"])
        #expect(FixedChannelOrder.flac(6) == ["FL", "FR", "FC", "LFE", "BL", "BR"])
        #expect(FixedChannelOrder.vorbis(2) == nil && FixedChannelOrder.flac(9) == nil)
        // Vorbis 5.1 weighs its fourth and fifth channels as the surround pair and the last as LFE.
        let r = ChannelLayout.resolve(speakerNames: FixedChannelOrder.vorbis(6), channelCount: 6)
        #expect(r.fromFile && !r.guessed)
        #expect(r.layout.weights == [1, 1, 1, 1.41, 1.41, 0])
    }

    @Test func rawStreamsAreKnownByTheirSyncWords() throws {
        // An AC-3 frame header: 48 kHz (fscod 0), bsid 8, acmod 7 (3/2) with the LFE on: 5.1.
        var ac3: [UInt8] = [0x0B, 0x77, 0, 0, 0x00, 8 << 3, 0b1110_0000 | 0b0000_0000, 0]
        // acmod 7 carries cmixlev (2 bits) and surmixlev (2 bits), then lfeon.
        ac3[6] = 0b111_00_00_1
        ac3 += [UInt8](repeating: 0, count: 100) + [0x0B, 0x77] + [UInt8](repeating: 0, count: 100)
        #expect(ProbeRawStreams.sniff(ac3) == .ac3)
        let f = try probeContainer(MemoryByteSource(ac3))
        #expect(f.codec == "ac3" && f.audio?.sampleRate == 48000 && f.audio?.channels == 6)
        #expect(ProbeRawStreams.sniff(Array("wvpk".utf8) + [0, 0, 0, 0]) == .wavpack)
        #expect(ProbeRawStreams.sniff(Array("TTA1".utf8) + [1, 0]) == .tta)
        #expect(ProbeRawStreams.sniff([0x7F, 0xFE, 0x80, 0x01, 0, 0]) == .dts)
        var ts = [UInt8](repeating: 0xFF, count: 188 * 3)
        for i in 0..<3 { ts[i * 188] = 0x47 }
        #expect(ProbeRawStreams.sniff(ts) == .mpegts)
        #expect(ProbeRawStreams.sniff([0x0B, 0x77, 0, 0, 0, 0, 0, 0]) == nil)  // one sync word alone isn't a stream
        #expect(Decoder.decoderKind(for: .dts) == (FFmpegSource.isAvailable ? .ffmpeg : nil))
    }
}
