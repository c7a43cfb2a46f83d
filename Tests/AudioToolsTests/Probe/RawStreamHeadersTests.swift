import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The headers read without decoding for what only ffmpeg decodes: a DTS core frame header,
/// WavPack block headers, and a transport stream's PAT, PMT and first audio PES packet.
@Suite struct RawStreamHeadersTests {
    /// Packs `fields` (value, bit count) most significant bit first.
    static func bits(_ fields: [(Int, Int)]) -> [UInt8] {
        var out: [UInt8] = [], acc = 0, n = 0
        for (v, count) in fields {
            for i in stride(from: count - 1, through: 0, by: -1) {
                acc = acc << 1 | (v >> i) & 1; n += 1
                if n == 8 { out.append(UInt8(acc)); acc = 0; n = 0 }
            }
        }
        if n > 0 { out.append(UInt8(acc << (8 - n))) }
        return out
    }

    /// A DTS core header: sync, then FTYPE … LFF with the given AMODE, SFREQ, extension and LFE.
    static func dtsHeader(amode: Int, sfreq: Int, ext: (id: Int, on: Int) = (0, 0), lff: Int) -> [UInt8] {
        [0x7F, 0xFE, 0x80, 0x01] + bits([(1, 1), (31, 5), (0, 1), (15, 7), (1000, 14), (amode, 6), (sfreq, 4), (15, 5),
                                          (0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (ext.id, 3), (ext.on, 1), (1, 1), (lff, 2)])
            + [UInt8](repeating: 0, count: 8)
    }

    @Test func dtsCoreHeaderStatesRateAndChannels() {
        let stereo = ProbeRawStreamHeaders.dts(Self.dtsHeader(amode: 2, sfreq: 8, lff: 0))
        #expect(stereo?.sampleRate == 44100 && stereo?.channels == 2)
        // 3/2 (AMODE 9) with the LFE: 5.1 at 48 kHz.
        let surround = ProbeRawStreamHeaders.dts(Self.dtsHeader(amode: 9, sfreq: 13, lff: 1))
        #expect(surround?.sampleRate == 48000 && surround?.channels == 6)
        // An XCh extension adds the back centre (6.1); a rate index the table lacks stays unknown.
        let xch = ProbeRawStreamHeaders.dts(Self.dtsHeader(amode: 9, sfreq: 4, ext: (0, 1), lff: 1))
        #expect(xch?.channels == 7 && xch?.sampleRate == nil)
        #expect(ProbeRawStreamHeaders.dts([0x7F, 0xFE, 0x80, 0x01, 0]) == nil)
    }

    /// A WavPack block: 32-byte header with `flags` and `total` samples, then `body` bytes.
    static func wavpackBlock(flags: UInt32, total: UInt32, body: [UInt8] = [0, 0, 0, 0]) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
        return Array("wvpk".utf8) + le32(UInt32(24 + body.count)) + [0x10, 0x04, 0, 0] + le32(total) + le32(0)
            + le32(4410) + le32(flags) + le32(0) + body
    }

    @Test func wavpackBlockHeadersStateRateChannelsAndLength() throws {
        // Stereo 16-bit at 44.1 kHz (rate index 9), one block a frame (initial and final).
        let stereo = Self.wavpackBlock(flags: 1 | 9 << 23 | 0x800 | 0x1000, total: 88200)
        let a = try #require(try ProbeRawStreamHeaders.wavpack(ProbeReader(MemoryByteSource(stereo))))
        #expect(a.sampleRate == 44100 && a.channels == 2 && a.duration == 2)
        // 5.1 as three stereo blocks: the frame's blocks are counted; the length unknown (all ones).
        let surround = Self.wavpackBlock(flags: 1 | 10 << 23 | 0x800, total: 0xFFFF_FFFF)
            + Self.wavpackBlock(flags: 1 | 10 << 23, total: 0xFFFF_FFFF)
            + Self.wavpackBlock(flags: 1 | 10 << 23 | 0x1000, total: 0xFFFF_FFFF)
        let b = try #require(try ProbeRawStreamHeaders.wavpack(ProbeReader(MemoryByteSource(surround))))
        #expect(b.sampleRate == 48000 && b.channels == 6 && b.duration == nil)
        // Mono (flag 4) at a rate outside the table: the sample-rate metadata (id 0x27) says 37800.
        let rate: [UInt8] = [0x27 | 0x40, 2, 0xA8, 0x93, 0x00, 0]
        let mono = Self.wavpackBlock(flags: 1 | 4 | 15 << 23 | 0x800 | 0x1000, total: 37800, body: rate)
        let c = try #require(try ProbeRawStreamHeaders.wavpack(ProbeReader(MemoryByteSource(mono))))
        #expect(c.sampleRate == 37800 && c.channels == 1 && c.duration == 1)
    }

    /// One 188-byte TS packet of `pid` whose payload starts a unit (a section or a PES packet).
    static func tsPacket(pid: Int, payload: [UInt8]) -> [UInt8] {
        let p = [0x47, UInt8(0x40 | pid >> 8), UInt8(pid & 0xFF), 0x10] + payload
        return p + [UInt8](repeating: 0xFF, count: 188 - p.count)
    }

    /// A section: table id, the length (counting a dummy CRC), `body`.
    static func section(_ table: UInt8, _ body: [UInt8]) -> [UInt8] {
        let length = body.count + 4
        return [0, table, UInt8(0xB0 | length >> 8), UInt8(length & 0xFF)] + body + [0, 0, 0, 0]
    }

    /// PAT (program 1 at PID 0x1000), PMT (a video stream, then audio of `type` with
    /// `descriptors` at PID 0x101), then the audio's first PES packet carrying `frame`.
    static func transportStream(type: UInt8, descriptors: [UInt8] = [], frame: [UInt8]) -> [UInt8] {
        let pat = section(0x00, [0, 1, 0xC1, 0, 0] + [0, 1, 0xF0, 0x00])
        let video: [UInt8] = [0x1B, 0xE1, 0x00, 0xF0, 0x00]
        let audio: [UInt8] = [type, 0xE1, 0x01, 0xF0, UInt8(descriptors.count)] + descriptors
        let pmt = section(0x02, [0, 1, 0xC1, 0, 0, 0xE1, 0x00, 0xF0, 0x00] + video + audio)
        let pes: [UInt8] = [0, 0, 1, 0xC0, 0, 0, 0x80, 0x80, 5, 0x21, 0, 1, 0, 1] + frame
        return tsPacket(pid: 0, payload: pat) + tsPacket(pid: 0x1000, payload: pmt)
            + tsPacket(pid: 0x100, payload: [0, 0, 1, 0xE0]) + tsPacket(pid: 0x101, payload: pes)
    }

    @Test func transportStreamsNameTheirAudioCodecFromTheProgramMap() throws {
        // ADTS AAC-LC, 48 kHz (index 3), 2 channels.
        let adts: [UInt8] = [0xFF, 0xF1, 0x4C, 0x80, 0x2E, 0x7F, 0xFC]
        let aac = try #require(try ProbeRawStreamHeaders.mpegts(ProbeReader(MemoryByteSource(Self.transportStream(type: 0x0F, frame: adts)))))
        #expect(aac.codec == "aac" && aac.audio?.sampleRate == 48000 && aac.audio?.channels == 2)
        // MPEG-1 Layer II, 192 kb/s, 44.1 kHz, stereo: stream type 3, named by the frame's layer.
        let mp2Frame: [UInt8] = [0xFF, 0xFD, 0xA0, 0x00]
        let mp2 = try #require(try ProbeRawStreamHeaders.mpegts(ProbeReader(MemoryByteSource(Self.transportStream(type: 0x03, frame: mp2Frame)))))
        #expect(mp2.codec == "mp2" && mp2.audio?.sampleRate == 44100 && mp2.audio?.channels == 2)
        // DVB private data announcing AC-3 by its descriptor (0x6A).
        let ac3Frame: [UInt8] = [0x0B, 0x77, 0, 0, 0x00, 8 << 3, 0b111_00_00_1, 0]
        let ac3 = try #require(try ProbeRawStreamHeaders.mpegts(ProbeReader(MemoryByteSource(
            Self.transportStream(type: 0x06, descriptors: [0x6A, 1, 0], frame: ac3Frame)))))
        #expect(ac3.codec == "ac3" && ac3.audio?.sampleRate == 48000 && ac3.audio?.channels == 6)
        // Private data with a registration descriptor, and the ATSC and Blu-ray stream types.
        #expect(ProbeRawStreamHeaders.codecName(streamType: 0x06, descriptors: [0x05, 4] + Array("EAC3".utf8)) == "eac3")
        #expect(ProbeRawStreamHeaders.codecName(streamType: 0x81, descriptors: []) == "ac3")
        #expect(ProbeRawStreamHeaders.codecName(streamType: 0x86, descriptors: []) == "dts")
        #expect(ProbeRawStreamHeaders.codecName(streamType: 0x1B, descriptors: []) == nil)
        // A program with video only: no audio codec to name.
        let videoOnly = Self.transportStream(type: 0x24, frame: [])
        #expect(try ProbeRawStreamHeaders.mpegts(ProbeReader(MemoryByteSource(videoOnly))) == nil)
    }
}
