/// Reads what the bytes say about a file: kind, codec, audio/video presence, protection, tags
/// and stream parameters. Header work only: a few KiB for typical files (see `bytesRead`).
/// Throws only when the source itself can't be read; bad structure lands in `problem`.
public func probeContainer(_ src: ByteSource) throws -> ContainerFacts {
    let r = ProbeReader(src)
    let sniff = try ProbeSniffer.sniff(r)
    var f = ContainerFacts(kind: sniff.kind, container: sniff.kind.name, fileSize: r.size)
    switch sniff.kind {
    case .wav:
        try ProbeChunkReaders.readWAV(r, rf64: false, into: &f)
        // MPEG audio in WAV: libsndfile stops at (or waits for) a length it guesses from the
        // bit rate; ffmpeg decodes every frame.
        f.ffmpegOnly = try ProbeRawStreams.isStreamedWAV(r) || f.codec == "mp3" || f.codec == "mp2"
        // AC-3, E-AC-3 or DTS carried as 16-bit stereo PCM: never measured as PCM; ffmpeg's WAV
        // reader finds the bursts and decodes what they hold.
        if f.codec == "pcm", f.audio?.bitsPerSample == 16, f.audio?.channels == 2, let burst = try ProbeRawStreams.iec61937(r) {
            var a = burst.audio ?? ProbeAudioParameters(format: burst.codec)
            // The bursts keep the PCM's timing, except E-AC-3's and TrueHD's (sent at four times the rate).
            if !["eac3", "truehd"].contains(burst.codec) { a.duration = f.audio?.duration }
            f.codec = burst.codec
            f.audio = a
            f.iec61937 = true
            f.ffmpegOnly = true
        }
    case .rf64: try ProbeChunkReaders.readWAV(r, rf64: true, into: &f)
    case .w64: try ProbeChunkReaders.readW64(r, into: &f)
    case .aiff: try ProbeChunkReaders.readAIFF(r, compressed: false, into: &f)
    case .aifc: try ProbeChunkReaders.readAIFF(r, compressed: true, into: &f)
    case .caf:
        try ProbeChunkReaders.readCAF(r, into: &f)
        // libsndfile reads neither ALAC nor Opus in CAF.
        f.ffmpegOnly = f.codec == "alac" || f.codec == "opus"
    case .flac:
        f.codec = "flac"
        if sniff.leadingTagBytes > 0, let tag = try ProbeID3Reader.read(r, at: 0) { f.tags = tag.tags }
        try ProbeFLACReader.read(r, at: sniff.leadingTagBytes, into: &f)
    case .ogg(let codec):
        if codec == .opus { f.container = "opus" }
        try ProbeOggReader.read(r, codec: codec, into: &f)
    case .mp3, .adts:
        try readMPEGStream(r, sniff, into: &f)
        f.ffmpegOnly = sniff.afterJunk || f.mpegLengthIsEstimate
    case .ac3, .eac3, .dts, .mpegts, .wavpack, .tta, .au, .musepack, .flv, .amr,
         .nist, .voc, .ircam, .paf, .pvf, .avr, .mpegps, .realmedia:
        try ProbeRawStreams.read(r, kind: sniff.kind, into: &f)
    case .isoMedia:
        let w = ProbeMP4Walker(r)
        try w.run()
        apply(w.s, problem: w.problem, to: &f)
    case .matroska, .webm:
        try MatroskaReader.read(r, into: &f)
    case .audibleAA:
        f.hasAudio = true
        f.protection = Protection(scheme: "audible")
    case .midi:
        f.hasAudio = false
        f.hasVideo = false
    case .asf:
        try ProbeASFReader.read(r, into: &f)
    case .avi:
        break  // the decoder decides
    default:
        if !sniff.kind.isMediaContainer && sniff.kind != .empty && sniff.kind != .unknown {
            f.hasAudio = false
        }
    }
    switch sniff.kind {
    case .wav, .rf64, .w64, .aiff, .aifc, .flac, .mp3, .adts, .caf:
        f.hasVideo = false  // these containers have no place for video
    case .ogg(let c) where c != .theora && c != .unknown:
        f.hasVideo = false
    default: break
    }
    f.bytesRead = r.bytesRead
    return f
}

/// MP3 / ADTS AAC: frame header parameters, ID3v2 in front, ID3v1 at the end.
private func readMPEGStream(_ r: ProbeReader, _ sniff: ContainerSniff, into f: inout ContainerFacts) throws {
    if sniff.leadingTagBytes > 0 {
        var off: UInt64 = 0
        var hops = 0
        while off < sniff.leadingTagBytes && hops < 8, let tag = try ProbeID3Reader.read(r, at: off) {
            f.tags.merge(tag.tags)
            off += tag.totalSize
            hops += 1
        }
        if sniff.leadingTagBytes > r.size {
            f.problem = .truncated("the file ends inside its ID3 tag, before any audio")
        }
    }
    if let at = sniff.firstFrameOffset {
        f.mpegFirstFrame = at
        let b = try r.read(at: at, count: 64)
        if sniff.kind == .mp3, let h = ProbeMPEGHeader(b, at: 0) {
            f.codec = h.codecName
            f.container = h.codecName
            var a = ProbeAudioParameters(format: h.codecName, sampleRate: Double(h.sampleRate), channels: h.channels)
            if let frames = h.vbrFrameCount(b), frames > 0 {
                a.duration = Double(frames) * Double(h.samplesPerFrame) / Double(h.sampleRate)
                // The average over the audio bytes (a VBR header counts its own frame too).
                if let d = a.duration, d > 0, r.size > at { a.bitRate = Int((Double(r.size - at) * 8 / d).rounded()) }
            } else {
                a.bitRate = h.bitrateKbps * 1000
                // No Xing/Info/VBRI frame count: libsndfile (mpg123) would stop at a length
                // guessed from the first frame, so ffmpeg decodes it to its last frame.
                f.mpegLengthIsEstimate = true
                // Constant bitrate: the audio bytes at the first frame's bitrate (an estimate).
                let v1: UInt64 = try ProbeBytes.matches(r.read(at: r.size >= 128 ? r.size - 128 : 0, count: 3), 0, "TAG") ? 128 : 0
                let audioBytes = r.size > at + v1 ? r.size - at - v1 : 0
                a.duration = Double(audioBytes) * 8 / Double(h.bitrateKbps * 1000)
            }
            f.audio = a
            f.hasAudio = true
        } else if let h = ProbeADTSHeader(b, at: 0) {
            f.codec = "aac"
            f.audio = ProbeAudioParameters(format: "adts", sampleRate: Double(h.sampleRate), channels: h.channels)
            f.hasAudio = true
        }
    } else if f.problem == nil {
        f.problem = .malformed("no audio frames follow its ID3 tag")
    }
    if let v1 = try ProbeID3Reader.readV1(r) { f.tags.merge(v1) }
}

/// Maps an MP4 box walk onto the container-level facts.
private func apply(_ s: MP4Structure, problem: ProbeProblem?, to f: inout ContainerFacts) {
    f.mp4 = s
    f.problem = problem
    f.tags = s.tags
    f.container = mp4ContainerName(s)
    let handlers = s.tracks.compactMap(\.handler)
    if s.hasMovieBox || !s.tracks.isEmpty {
        f.hasAudio = handlers.contains("soun")
        f.hasVideo = handlers.contains("vide")
    }
    let audioTrack = s.tracks.first { $0.handler == "soun" }
    if let t = audioTrack {
        f.audio = t.audio
        f.protection = t.protection
        let entry = t.protection?.originalFormat ?? t.sampleEntry
        f.codec = entry.map { mp4CodecName($0, objectType: t.objectTypeIndication) }
    }
    let brands = [s.majorBrand].compactMap { $0 } + s.compatibleBrands
    if brands.contains("aax ") || brands.contains("aaxc") || audioTrack?.sampleEntry == "aavd" {
        var p = f.protection ?? Protection(scheme: "audible")
        p.scheme = "audible"
        f.protection = p
    }
    if problem == nil && !s.hasMovieBox && s.majorBrand != nil {
        f.problem = .malformed("it has no “moov” box describing its tracks")
    }
}

private func mp4ContainerName(_ s: MP4Structure) -> String {
    guard let brand = s.majorBrand else { return "mov" }
    switch brand {
    case "M4A ": return "m4a"
    case "M4B ": return "m4b"
    case "M4P ": return "m4p"
    case "M4V ", "M4VH", "M4VP": return "m4v"
    case "qt  ": return "mov"
    case "aax ", "aaxc": return "aax"
    case "f4v ": return "f4v"
    default:
        if brand.hasPrefix("3gp") || brand.hasPrefix("3ge") || brand.hasPrefix("3gs") { return "3gp" }
        if brand.hasPrefix("3g2") { return "3g2" }
        return "mp4"
    }
}

/// Codec name for an MP4 sample entry fourcc (and the esds object type for mp4a).
public func mp4CodecName(_ fourcc: String, objectType: UInt8? = nil) -> String {
    switch fourcc {
    case "mp4a":
        switch objectType {
        case 0x69, 0x6B: return "mp3"
        case 0xA5: return "ac3"
        case 0xA6: return "eac3"
        case 0xA9: return "dts"
        case 0xDD: return "vorbis"
        default: return "aac"
        }
    case "alac": return "alac"
    case "ac-3": return "ac3"
    case "ec-3": return "eac3"
    case "ac-4": return "ac4"
    case "dtsc", "dtsh", "dtsl", "dtse": return "dts"
    case "Opus": return "opus"
    case "fLaC": return "flac"
    case ".mp3": return "mp3"
    case "lpcm", "sowt", "twos", "in24", "in32", "raw ", "NONE": return "pcm"
    case "fl32", "fl64": return "float"
    case "ulaw": return "pcm_mulaw"
    case "alaw": return "pcm_alaw"
    case "ima4": return "adpcm_ima_qt"
    case "samr": return "amr_nb"
    case "sawb": return "amr_wb"
    case "avc1", "avc3": return "h264"
    case "hvc1", "hev1": return "hevc"
    default: return fourcc
    }
}
