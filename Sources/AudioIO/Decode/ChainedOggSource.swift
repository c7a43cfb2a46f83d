import AudioSignal

/// The links of a chained Ogg file (each its own Vorbis stream, decoded by libsndfile over its
/// byte range) read one after another as one programme. Every link must have the first one's
/// rate and channel count: a change can't be measured as one signal and is refused at open.
public final class ChainedOggSource: AudioSource {
    public let path: String
    public let format: AudioFormat
    /// The links' decoders, in order.
    package let links: [SndfileSource]
    /// Where each link starts, in frames from the start of the programme.
    private let starts: [Int]
    private var current = 0

    /// libsndfile's description of the first link (the codec records name).
    public var description: SndfileDescription { links[0].description }

    package init(path: String, file: FileByteSource, chain: OggChain) throws {
        self.path = path
        var sources: [SndfileSource] = []
        for l in chain.links {
            guard let range = SndfileByteRange(file, start: l.start, end: l.end) else {
                throw DecodeError(path, .damagedHeader(libsndfile: "the file could not be read again"))
            }
            sources.append(try SndfileSource(path: path, file: nil, range: range))
        }
        let first = sources[0].format
        var starts: [Int] = []
        var total: Int? = 0
        for (i, s) in sources.enumerated() {
            if s.format.channelCount != first.channelCount {
                throw DecodeError(path, .linksDiffer(link: i + 1, what: "\(s.format.channelCount) channels where the first link has \(first.channelCount)"))
            }
            if s.format.sampleRate != first.sampleRate {
                throw DecodeError(path, .linksDiffer(link: i + 1, what: "a sample rate of \(s.format.sampleRate) Hz where the first link has \(first.sampleRate) Hz"))
            }
            starts.append(total ?? 0)
            total = total.flatMap { t in s.format.frameCount.map { t + $0 } }
        }
        links = sources
        self.starts = starts
        format = AudioFormat(sampleRate: first.sampleRate, channelCount: first.channelCount, frameCount: total)
    }

    public var decodesCheaply: Bool { false }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        while current < links.count {
            let n = try links[current].read(into: &block, maxFrames: maxFrames)
            if n > 0 { return n }
            current += 1
        }
        block.frames = 0
        return 0
    }

    public func seek(toFrame frame: Int) throws {
        let i = max(0, (starts.lastIndex { $0 <= frame }) ?? 0)
        try links[i].seek(toFrame: frame - starts[i])
        for later in links[(i + 1)...] { try later.seek(toFrame: 0) }
        current = i
    }
}
