/// An MPEG-1/2/2.5 Layer I/II/III frame header, validated field by field (reserved values,
/// free-format bitrate and bad sample-rate index are all rejected).
package struct ProbeMPEGHeader: Equatable {
    /// 1 (MPEG-1), 2 (MPEG-2) or 25 (MPEG-2.5).
    package var version: Int
    package var layer: Int
    package var bitrateKbps: Int
    package var sampleRate: Int
    package var channels: Int
    package var frameLength: Int

    private static let bitrates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // V1 L1
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],     // V1 L2
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],      // V1 L3
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],     // V2 L1
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],          // V2 L2/L3
    ]

}

extension ProbeMPEGHeader {
    package init?(_ b: [UInt8], at i: Int) {
        guard i >= 0, i <= b.count - 4 else { return nil }
        let h = UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
        guard h & 0xFFE0_0000 == 0xFFE0_0000 else { return nil }
        let versionBits = (h >> 19) & 3
        let layerBits = (h >> 17) & 3
        let bitrateIndex = Int((h >> 12) & 0xF)
        let rateIndex = Int((h >> 10) & 3)
        let padding = Int((h >> 9) & 1)
        let mode = (h >> 6) & 3
        guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3,
              h & 3 != 2  // emphasis 2 is reserved
        else { return nil }
        version = versionBits == 3 ? 1 : versionBits == 2 ? 2 : 25
        layer = 4 - Int(layerBits)
        let table = version == 1 ? layer - 1 : (layer == 1 ? 3 : 4)
        bitrateKbps = ProbeMPEGHeader.bitrates[table][bitrateIndex]
        let baseRates = [44100, 48000, 32000]
        sampleRate = baseRates[rateIndex] / (version == 1 ? 1 : version == 2 ? 2 : 4)
        channels = mode == 3 ? 1 : 2
        let bps = bitrateKbps * 1000
        switch layer {
        case 1: frameLength = (12 * bps / sampleRate + padding) * 4
        case 2: frameLength = 144 * bps / sampleRate + padding
        default: frameLength = (version == 1 ? 144 : 72) * bps / sampleRate + padding
        }
        guard frameLength >= 21 else { return nil }
    }

    /// PCM samples each frame decodes to.
    package var samplesPerFrame: Int { layer == 1 ? 384 : (layer == 3 && version != 1) ? 576 : 1152 }

    /// Frame count from a Xing/Info or VBRI header inside the first frame `f` (bytes from its sync).
    package func vbrFrameCount(_ f: [UInt8]) -> UInt32? {
        let side = version == 1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
        let x = 4 + side
        if ProbeBytes.matches(f, x, "Xing") || ProbeBytes.matches(f, x, "Info"),
           let flags = ProbeBytes.be32(f, x + 4), flags & 1 != 0 {
            return ProbeBytes.be32(f, x + 8)
        }
        if ProbeBytes.matches(f, 36, "VBRI") { return ProbeBytes.be32(f, 36 + 14) }
        return nil
    }

    /// The frames of audio a Xing/Info header with a LAME extension states, gapless: the frame
    /// count × samples per frame, less the encoder's delay and padding (12 bits each, 21 bytes
    /// into the extension). Nil without both.
    package func gaplessLength(_ f: [UInt8]) -> Int? {
        let side = version == 1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
        let x = 4 + side
        guard ProbeBytes.matches(f, x, "Xing") || ProbeBytes.matches(f, x, "Info"),
              let flags = ProbeBytes.be32(f, x + 4), flags & 1 != 0, let frames = ProbeBytes.be32(f, x + 8) else { return nil }
        var lame = x + 12
        if flags & 2 != 0 { lame += 4 }
        if flags & 4 != 0 { lame += 100 }
        if flags & 8 != 0 { lame += 4 }
        guard ProbeBytes.matches(f, lame, "LAME") || ProbeBytes.matches(f, lame, "Lavc") || ProbeBytes.matches(f, lame, "Lavf"),
              lame + 24 <= f.count else { return nil }
        let d = lame + 21
        let delay = Int(f[d]) << 4 | Int(f[d + 1]) >> 4
        let padding = Int(f[d + 1] & 0x0F) << 8 | Int(f[d + 2])
        let total = Int(frames) * samplesPerFrame - delay - padding
        return total > 0 ? total : nil
    }

    package var codecName: String { layer == 3 ? "mp3" : layer == 2 ? "mp2" : "mp1" }

    /// Same stream: a following frame must agree on version, layer and sample rate.
    package func isConsistent(with o: ProbeMPEGHeader) -> Bool {
        version == o.version && layer == o.layer && sampleRate == o.sampleRate
    }
}

/// An AAC ADTS frame header (sync 0xFFF, layer 00).
package struct ProbeADTSHeader: Equatable {
    package var profile: Int
    package var sampleRate: Int
    package var channels: Int
    package var frameLength: Int

    package static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    package init?(_ b: [UInt8], at i: Int) {
        guard i >= 0, i <= b.count - 7 else { return nil }
        guard b[i] == 0xFF, b[i + 1] & 0xF6 == 0xF0 else { return nil }
        let rateIndex = Int((b[i + 2] >> 2) & 0xF)
        guard rateIndex < ProbeADTSHeader.rates.count else { return nil }
        profile = Int(b[i + 2] >> 6) + 1
        sampleRate = ProbeADTSHeader.rates[rateIndex]
        let cc = Int((b[i + 2] & 1) << 2 | b[i + 3] >> 6)
        channels = cc == 7 ? 8 : cc
        frameLength = Int(b[i + 3] & 3) << 11 | Int(b[i + 4]) << 3 | Int(b[i + 5] >> 5)
        guard frameLength >= 7 else { return nil }
    }
}

package enum ProbeMPEGScan {
    /// Finds the first MPEG audio frame at or after `start` (within `window` bytes) that is
    /// followed by a consistent frame, or that ends exactly at the end of the file.
    /// `requireSecond` false accepts a lone valid frame when the next one is out of reach.
    package static func findMPEG(_ r: ProbeReader, from start: UInt64, window: Int, requireSecond: Bool)
        throws -> (offset: UInt64, header: ProbeMPEGHeader)? {
        let buf = try r.read(at: start, count: window + 4)
        var i = 0
        while i + 4 <= buf.count {
            if buf[i] == 0xFF, let h = ProbeMPEGHeader(buf, at: i) {
                let off = start + UInt64(i)
                let next = off + UInt64(h.frameLength)
                if next == r.size { return (off, h) }
                let nb = try r.read(at: next, count: 4)
                if let h2 = ProbeMPEGHeader(nb, at: 0), h.isConsistent(with: h2) { return (off, h) }
                if nb.count < 4 && !requireSecond { return (off, h) }
            }
            i += 1
        }
        return nil
    }

    /// The samples a stream of MPEG audio (or ADTS AAC) frames from `start` decodes to, walking
    /// every frame header to the end of the file: for a stream no header states the length of.
    /// Nil when the walk stops at bytes that are neither a frame nor a closing tag (ID3v1, APE,
    /// Lyrics3), where a count would be short.
    package static func countSamples(_ r: ProbeReader, from start: UInt64, adts: Bool) throws -> Int? {
        var off = start, samples = 0
        var first: ProbeMPEGHeader?
        while off + 7 <= r.size {
            let b = try r.read(at: off, count: 7)
            if adts {
                guard let h = ProbeADTSHeader(b, at: 0) else { break }
                samples += 1024 * (Int(b[6] & 3) + 1)
                off += UInt64(h.frameLength)
            } else {
                guard let h = ProbeMPEGHeader(b, at: 0), first.map(h.isConsistent) ?? true else { break }
                if first == nil { first = h }
                samples += h.samplesPerFrame
                off += UInt64(h.frameLength)
            }
        }
        if off < r.size {
            let rest = try r.read(at: off, count: 8)
            let tail = r.size - off
            let closing = ProbeBytes.matches(rest, 0, "TAG") || ProbeBytes.matches(rest, 0, "APETAGEX") || ProbeBytes.matches(rest, 0, "LYRICS")
            guard closing || tail < 7 else { return nil }
        }
        return samples > 0 ? samples : nil
    }

    /// Same for ADTS AAC.
    package static func findADTS(_ r: ProbeReader, from start: UInt64, window: Int) throws -> (offset: UInt64, header: ProbeADTSHeader)? {
        let buf = try r.read(at: start, count: window + 7)
        var i = 0
        while i + 7 <= buf.count {
            if buf[i] == 0xFF, let h = ProbeADTSHeader(buf, at: i) {
                let off = start + UInt64(i)
                let next = off + UInt64(h.frameLength)
                if next == r.size { return (off, h) }
                let nb = try r.read(at: next, count: 7)
                if let h2 = ProbeADTSHeader(nb, at: 0), h2.sampleRate == h.sampleRate { return (off, h) }
            }
            i += 1
        }
        return nil
    }
}
