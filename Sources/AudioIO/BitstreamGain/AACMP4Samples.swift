/// The AAC samples of every audio track of an MP4/M4A/MOV file, found through each track's sample
/// tables (stsz, stsc, stco/co64), and the patches that move their global_gain: a list of (file
/// offset, bytes) of the same sizes, so every other stream, the tables and the metadata stay byte
/// for byte.
public enum AACMP4Samples {
    /// A run of bytes to put at a file offset.
    public struct Patch: Equatable, Sendable {
        public var offset: UInt64
        public var bytes: [UInt8]
    }

    /// An audio track: its place among the audio tracks (`ordinal`, ffmpeg's 0:a:N, as the tracks
    /// come in the moov) and among all tracks (`index`, ffmpeg's stream index), its sample entry,
    /// its AudioSpecificConfig, and its chunks (file offset and the sizes of the samples in it).
    package struct Track {
        package var ordinal: Int
        package var index: Int
        package var asc: [UInt8]
        package var chunks: [(offset: UInt64, sizes: [Int])]
    }

    /// The patches moving every global_gain of `track` by `steps`, with what was changed.
    package static func patches(_ src: ByteSource, track: Track, steps: Int) throws(BitstreamGainError) -> (patches: [Patch], result: AACGlobalGain.Result) {
        let walker = AACRawDataBlock(samplingIndex: try AACGlobalGain.audioSpecificConfig(track.asc))
        var result = AACGlobalGain.Result()
        var patches: [Patch] = []
        patches.reserveCapacity(track.chunks.count)
        for chunk in track.chunks {
            let total = chunk.sizes.reduce(0, +)
            guard chunk.offset + UInt64(total) <= src.size else { throw .malformed(what: "MP4 chunk offset", offset: Int(chunk.offset)) }
            var bytes: [UInt8]
            do { bytes = try src.read(at: chunk.offset, count: total) } catch { throw .malformed(what: "MP4 chunk", offset: Int(chunk.offset)) }
            var failure: BitstreamGainError?
            bytes.withUnsafeMutableBufferPointer { b in
                do throws(BitstreamGainError) {
                    var at = 0
                    for size in chunk.sizes {
                        // Each sample is one raw_data_block; its end pads to the sample's size.
                        if size > 0 {
                            _ = try AACGlobalGain.patchBlock(b, start: at * 8, limit: (at + size) * 8, walker: walker, steps: steps,
                                                             fileOffset: Int(chunk.offset), into: &result)
                        }
                        at += size
                    }
                } catch { failure = error }
            }
            if let failure { throw failure }
            patches.append(Patch(offset: chunk.offset, bytes: bytes))
        }
        if result.blocks == 0 { throw .unsupportedFormat("an audio track with no samples") }
        return (patches, result)
    }

    /// The patches of several tracks as one ascending list, as a single pass over the file writes
    /// them; refuses chunks of two tracks that overlap (a damaged table).
    public static func merged(_ lists: [[Patch]]) throws(BitstreamGainError) -> [Patch] {
        let all = lists.joined().sorted { $0.offset < $1.offset }
        for (a, b) in zip(all, all.dropFirst()) where a.offset + UInt64(a.bytes.count) > b.offset {
            throw .malformed(what: "MP4 chunk (two audio tracks' samples overlap)", offset: Int(b.offset))
        }
        return all
    }

    /// A box: type, where its payload starts and where it ends.
    package struct Box { var type: String; var payload: UInt64; var end: UInt64 }

    package static func boxes(_ src: ByteSource, from: UInt64, to: UInt64) throws(BitstreamGainError) -> [Box] {
        var out: [Box] = []
        var at = from
        while at + 8 <= to {
            let h: [UInt8]
            do { h = try src.read(at: at, count: Int(min(16, to - at))) } catch { throw .malformed(what: "MP4 box", offset: Int(at)) }
            var size = UInt64(be(h, 0, 4)), header: UInt64 = 8
            if size == 1 {
                guard h.count >= 16 else { throw .malformed(what: "MP4 box", offset: Int(at)) }
                size = UInt64(be(h, 8, 8)); header = 16
            } else if size == 0 { size = to - at }
            guard size >= header, at + size <= to else { throw .malformed(what: "MP4 box", offset: Int(at)) }
            out.append(Box(type: String(decoding: h[4..<8], as: UTF8.self), payload: at + header, end: at + size))
            at += size
        }
        return out
    }

    package static func be(_ b: [UInt8], _ i: Int, _ n: Int) -> Int {
        var v = 0
        for k in 0..<n { v = v << 8 | Int(b[i + k]) }
        return v
    }

    package static func read(_ src: ByteSource, _ box: Box) throws(BitstreamGainError) -> [UInt8] {
        guard box.end - box.payload <= 1 << 28 else { throw .malformed(what: "MP4 \(box.type) box (too large)", offset: Int(box.payload)) }
        do { return try src.read(at: box.payload, count: Int(box.end - box.payload)) } catch { throw .malformed(what: "MP4 \(box.type) box", offset: Int(box.payload)) }
    }

    package static func child(_ src: ByteSource, _ box: Box, _ path: [String]) throws(BitstreamGainError) -> Box? {
        var current = box
        for type in path {
            guard let next = try boxes(src, from: current.payload, to: current.end).first(where: { $0.type == type }) else { return nil }
            current = next
        }
        return current
    }

    /// The audio tracks (handler `soun`), in the moov's order, with their index among all tracks.
    package static func audioTracks(_ src: ByteSource) throws(BitstreamGainError) -> [(index: Int, trak: Box)] {
        let top = try boxes(src, from: 0, to: src.size)
        if top.contains(where: { $0.type == "moof" }) { throw .unsupportedFormat("fragmented MP4 (its samples are described per fragment)") }
        guard let moov = top.first(where: { $0.type == "moov" }) else { throw .malformed(what: "MP4 moov box", offset: 0) }
        var audio: [(index: Int, trak: Box)] = []
        for (index, trak) in try boxes(src, from: moov.payload, to: moov.end).filter({ $0.type == "trak" }).enumerated() {
            guard let hdlr = try child(src, trak, ["mdia", "hdlr"]) else { continue }
            let h = try read(src, hdlr)
            if h.count >= 12, String(decoding: h[8..<12], as: UTF8.self) == "soun" { audio.append((index, trak)) }
        }
        if audio.isEmpty { throw .unsupportedFormat("MP4 without an audio track") }
        return audio
    }

    /// Audio track `ordinal` (a `trak` box): its AudioSpecificConfig and chunks; refuses one that
    /// is not AAC (the profile is checked by AACGlobalGain.audioSpecificConfig).
    package static func track(_ src: ByteSource, _ trak: Box, ordinal: Int, index: Int) throws(BitstreamGainError) -> Track {
        guard let stbl = try child(src, trak, ["mdia", "minf", "stbl"]) else { throw .malformed(what: "MP4 sample table", offset: Int(trak.payload)) }
        var tables: [String: [UInt8]] = [:]
        for box in try boxes(src, from: stbl.payload, to: stbl.end) where ["stsd", "stsz", "stz2", "stsc", "stco", "co64"].contains(box.type) {
            tables[box.type] = try read(src, box)
        }
        guard let stsd = tables["stsd"], stsd.count >= 16 else { throw .malformed(what: "MP4 stsd box", offset: Int(stbl.payload)) }
        let entryType = String(decoding: stsd[12..<16], as: UTF8.self)
        guard entryType == "mp4a" else { throw .unsupportedFormat("\(entryType) audio, not AAC") }
        let asc = try decoderSpecificInfo(Array(stsd[8...]))

        if tables["stz2"] != nil { throw .unsupportedFormat("MP4 with compact sample sizes (stz2)") }
        guard let stsz = tables["stsz"], stsz.count >= 12, let stsc = tables["stsc"], stsc.count >= 8 else {
            throw .malformed(what: "MP4 sample tables", offset: Int(stbl.payload))
        }
        let fixed = be(stsz, 4, 4), count = be(stsz, 8, 4)
        guard fixed != 0 || stsz.count >= 12 + 4 * count else { throw .malformed(what: "MP4 stsz box", offset: Int(stbl.payload)) }
        let sizes = fixed != 0 ? [Int](repeating: fixed, count: count) : (0..<count).map { be(stsz, 12 + 4 * $0, 4) }
        var offsets: [UInt64] = []
        if let stco = tables["stco"], stco.count >= 8 {
            let n = be(stco, 4, 4)
            guard stco.count >= 8 + 4 * n else { throw .malformed(what: "MP4 stco box", offset: Int(stbl.payload)) }
            offsets = (0..<n).map { UInt64(be(stco, 8 + 4 * $0, 4)) }
        } else if let co64 = tables["co64"], co64.count >= 8 {
            let n = be(co64, 4, 4)
            guard co64.count >= 8 + 8 * n else { throw .malformed(what: "MP4 co64 box", offset: Int(stbl.payload)) }
            offsets = (0..<n).map { UInt64(be(co64, 8 + 8 * $0, 8)) }
        } else { throw .malformed(what: "MP4 chunk offsets", offset: Int(stbl.payload)) }

        // stsc: runs of chunks with the same number of samples each.
        let runs = be(stsc, 4, 4)
        guard stsc.count >= 8 + 12 * runs else { throw .malformed(what: "MP4 stsc box", offset: Int(stbl.payload)) }
        var chunks: [(offset: UInt64, sizes: [Int])] = []
        var sample = 0
        for k in 0..<runs {
            let first = be(stsc, 8 + 12 * k, 4), perChunk = be(stsc, 12 + 12 * k, 4)
            let next = k + 1 < runs ? be(stsc, 8 + 12 * (k + 1), 4) : offsets.count + 1
            guard first >= 1, next > first, next <= offsets.count + 1 else { throw .malformed(what: "MP4 stsc box", offset: Int(stbl.payload)) }
            for c in (first - 1)..<(next - 1) {
                guard sample + perChunk <= sizes.count else { throw .malformed(what: "MP4 sample-to-chunk table", offset: Int(stbl.payload)) }
                chunks.append((offsets[c], Array(sizes[sample..<(sample + perChunk)])))
                sample += perChunk
            }
        }
        guard sample == sizes.count else { throw .malformed(what: "MP4 sample-to-chunk table", offset: Int(stbl.payload)) }
        return Track(ordinal: ordinal, index: index, asc: asc, chunks: chunks)
    }

    /// The AudioSpecificConfig in an mp4a sample entry's esds (directly or in QuickTime's wave).
    package static func decoderSpecificInfo(_ entry: [UInt8]) throws(BitstreamGainError) -> [UInt8] {
        // The entry's box header (8), then 28 bytes of audio sample entry; QuickTime's sound
        // description version 1 adds 16 and version 2 adds 36.
        guard entry.count >= 36 else { throw .malformed(what: "MP4 mp4a sample entry", offset: 0) }
        let version = be(entry, 16, 2)
        let start = 36 + (version == 1 ? 16 : version == 2 ? 36 : 0)
        func find(_ from: Int, _ to: Int) -> [UInt8]? {
            var at = from
            while at + 8 <= to {
                let size = be(entry, at, 4), type = String(decoding: entry[(at + 4)..<(at + 8)], as: UTF8.self)
                guard size >= 8, at + size <= to else { return nil }
                if type == "esds" { return Array(entry[(at + 12)..<(at + size)]) }
                if type == "wave", let found = find(at + 8, at + size) { return found }
                at += size
            }
            return nil
        }
        guard let esds = find(start, min(entry.count, be(entry, 0, 4))),
              let es = ProbeESDescriptor.descriptor(esds, 0), es.tag == 3, es.body + 3 <= esds.count else {
            throw .unsupportedFormat("MP4 audio without an MPEG-4 audio descriptor (esds)")
        }
        var i = es.body + 3
        let flags = esds[es.body + 2]
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0, i < esds.count { i += 1 + Int(esds[i]) }
        if flags & 0x20 != 0 { i += 2 }
        guard let dc = ProbeESDescriptor.descriptor(esds, i), dc.tag == 4, dc.body < esds.count else {
            throw .malformed(what: "MP4 decoder configuration", offset: 0)
        }
        switch esds[dc.body] {
        case 0x40, 0x67: break  // MPEG-4 audio, MPEG-2 AAC LC
        case 0x66, 0x68: throw .unsupportedFormat("MPEG-2 AAC Main or SSR")
        default: throw .unsupportedFormat("MP4 audio that is not AAC (object type 0x\(String(esds[dc.body], radix: 16)))")
        }
        guard let dsi = ProbeESDescriptor.descriptor(esds, dc.body + 13), dsi.tag == 5 else {
            throw .malformed(what: "MP4 AudioSpecificConfig", offset: 0)
        }
        return Array(esds[dsi.body..<(dsi.body + dsi.length)])
    }
}
