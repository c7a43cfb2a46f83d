/// The length of an Ogg Speex stream, which no header states: its granule positions count samples
/// after the encoder's lookahead, which the decoder (ffmpeg's) still outputs at the start. So the
/// decoded length is the last page's granule minus where the first audio page's packets begin
/// (its granule less the samples of the packets ending on it), as ffprobe reckons it.
package enum ProbeOggSpeex {
    /// Samples the decoder gives, or nil when the pages don't say (a chained or multiplexed
    /// file, no audio page, or a header it can't read).
    package static func countSamples(_ r: ProbeReader) throws -> Int? {
        var off: UInt64 = 0, serial: UInt32?, index = 0
        var samplesPerPacket = 0, headerPages = 2, start: Int?, last: Int?
        while off + 27 <= r.size {
            let h = try r.read(at: off, count: 27 + 255)
            guard let page = OggPageHeader(h) else { return nil }
            if serial == nil { serial = page.serial }
            // Another logical stream (a chained link or a multiplexed one): not counted here.
            guard page.serial == serial else { return nil }
            let bodyStart = off + UInt64(page.headerLength)
            if index == 0 {
                let id = try r.read(at: bodyStart, count: 80)
                guard ProbeBytes.matches(id, 0, "Speex   "), let frameSize = ProbeBytes.le32(id, 56),
                      let perPacket = ProbeBytes.le32(id, 64), let extra = ProbeBytes.le32(id, 68),
                      frameSize > 0, frameSize <= 1 << 16, extra < 1 << 16 else { return nil }
                samplesPerPacket = Int(frameSize) * max(Int(perPacket), 1)
                headerPages = 2 + Int(extra)
            } else if index >= headerPages, page.granule != UInt64.max, page.granule < 1 << 62 {
                if start == nil {
                    let ended = page.segments.filter { $0 < 255 }.count
                    start = Int(page.granule) - ended * samplesPerPacket
                }
                last = Int(page.granule)
            }
            index += 1
            off = bodyStart + UInt64(page.bodyLength)
        }
        guard let start, let last, last > start else { return nil }
        return last - start
    }
}
