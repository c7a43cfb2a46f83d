import COpusFile

extension Decoder {
    /// Opens Ogg Opus with libopusfile, and a chained Ogg Vorbis file link by link; nil for
    /// every other input (libsndfile opens those as before). Either way the pages are walked
    /// first, so a file cut off inside or before its last page is refused as cut off.
    package static func openOgg(_ path: String, facts: ContainerFacts, identity: FileIdentity,
                        file: FileByteSource?) throws -> Opened? {
        guard case .ogg(let codec) = facts.kind, codec == .opus || codec == .vorbis else { return nil }
        let bytes = try file ?? FileByteSource.input(path)
        let chain = try OggChain.scan(bytes)
        if let why = chain.cutOff { throw DecodeError(path, .oggCutOff(why: why)) }
        if codec == .opus {
            do {
                let s = try OpusFileSource(path: path, file: bytes)
                return Opened(path: path, source: s, identity: identity, sndfile: s.sndfileDescription, facts: facts, decoder: .libopusfile)
            } catch let e as DecodeError where e.problem == .unsupportedEncoding(libsndfile: OpusFileSource.describe(OP_EIMPL))
                        && FFmpegSource.isAvailable {
                // Mapping family 255 (channels without positions), which libopusfile leaves to
                // special-purpose decoders: ffmpeg decodes it.
                let s = try FFmpegSource(path: path)
                return Opened(path: path, source: s, identity: identity, sndfile: nil, facts: facts, decoder: .ffmpeg)
            }
        }
        guard chain.links.count > 1 else { return nil }
        let s = try ChainedOggSource(path: path, file: bytes, chain: chain)
        return Opened(path: path, source: s, identity: identity, sndfile: s.description, facts: facts, decoder: .libsndfile)
    }
}

extension Decoder.Opened {
    /// How many links an Ogg file chains (1 for a plain one), nil for other files.
    public var oggLinks: Int? {
        if let s = source as? ChainedOggSource { return s.links.count }
        if let s = source as? OpusFileSource { return s.linkCount }
        if case .ogg = facts?.kind { return 1 }
        return nil
    }

    /// What a measurement's notes should say about how the file was decoded: the Opus output
    /// gain that was applied, and that the links of a chained Ogg file were measured as one.
    public var decodeNotes: [String] {
        var notes: [String] = []
        if let s = source as? OpusFileSource, s.outputGainDB != 0 {
            notes.append("The Opus header's output gain of \(String(format: "%+.2f", s.outputGainDB)) dB was applied, as players apply it.")
        }
        if let n = oggLinks, n > 1 {
            notes.append("The file chains \(n) Ogg links (streams one after another); they were measured as one programme.")
        }
        return notes
    }
}
