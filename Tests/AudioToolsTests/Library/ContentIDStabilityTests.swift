import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The content id is stored in users' caches and used by `library-filter --get`: its value for the
/// same samples must never change. These values were made by the first implementation (which
/// assembled the whole message and quantised it at the end); every way of feeding the builder
/// must still give them.
@Suite struct ContentIDStabilityTests {
    /// A signal from integer arithmetic and one division: the same floats on every IEEE machine.
    /// `grid` puts every sample on the 16-bit grid (as a 16-bit file decodes).
    static func signal(channels: Int, frames: Int, seed: Int, silence: Int = 0, grid: Bool = false) -> [[Float]] {
        (0..<channels).map { c in
            (0..<frames).map { i -> Float in
                if i < silence { return 0 }
                let k = (i &* 2_654_435_761 &+ c &* 40_503 &+ seed &* 97) & 0x1FFFF
                return grid ? Float(k / 2 - 32768) / 32768 : Float(k) / 65535.5 - 1
            }
        }
    }

    struct Case {
        var name: String, channels: Int, frames: Int, seed: Int, silence = 0, grid = false, rate: Int, id: String
        var samples: [[Float]] { ContentIDStabilityTests.signal(channels: channels, frames: frames, seed: seed, silence: silence, grid: grid) }
    }

    static let cases = [
        Case(name: "stereo, head and tail apart", channels: 2, frames: 30_000, seed: 1, rate: 8000, id: "31cfe0815c4ccdc7e62ae78a"),
        Case(name: "mono after leading silence", channels: 1, frames: 100_000, seed: 2, silence: 3000, rate: 44100, id: "15c673c7fb3c0dcf7e6933db"),
        Case(name: "three channels, shorter than a window", channels: 3, frames: 4000, seed: 3, rate: 6000, id: "d7e25b0b89c5ae4e10f16ec4"),
        Case(name: "16-bit grid, stereo", channels: 2, frames: 20_000, seed: 4, grid: true, rate: 8000, id: "46446a1a18584538372257a3"),
        Case(name: "six channels", channels: 6, frames: 50_000, seed: 5, rate: 16000, id: "912c0a3087571ac379475faa"),
    ]

    static func planarID(_ s: [[Float]], rate: Int, block: Int) -> String {
        contentID(s, rate: rate, blockFrames: block)
    }

    /// Fed as a probe reads: the head in blocks (each also to the tail window once it reaches
    /// `tailFrom`), then, as after a seek, from `tailFrom` on to the tail window only.
    static func interleavedID<T>(_ s: [[T]], rate: Int, block: Int, tailFrom: Int,
                                 head: (inout ContentID.Builder, UnsafePointer<T>, Int) -> Void,
                                 tail: (inout ContentID.Builder, UnsafePointer<T>, Int) -> Void) -> String {
        let frames = s[0].count, ch = s.count
        var b = ContentID.Builder(sampleRate: rate, channels: ch, totalFrames: frames)
        func chunk(_ start: Int, _ n: Int) -> [T] { (0..<n * ch).map { s[$0 % ch][start + $0 / ch] } }
        var start = 0
        while !b.headIsComplete {
            let n = min(block, frames - start)
            let c = chunk(start, n)
            c.withUnsafeBufferPointer { head(&b, $0.baseAddress!, n) }
            if start + n > tailFrom { c.withUnsafeBufferPointer { tail(&b, $0.baseAddress!, n) } }
            start += n
        }
        start = max(start, tailFrom)
        while start < frames {
            let n = min(block, frames - start)
            let c = chunk(start, n)
            c.withUnsafeBufferPointer { tail(&b, $0.baseAddress!, n) }
            start += n
        }
        return b.finish()
    }

    @Test(arguments: cases.indices) func theIdOfTheSameSamplesNeverChanges(_ i: Int) {
        let c = Self.cases[i], s = c.samples
        #expect(Self.planarID(s, rate: c.rate, block: 1000) == c.id, "\(c.name)")
        #expect(Self.planarID(s, rate: c.rate, block: 4093) == c.id, "\(c.name), other blocks")
        let tailFrom = max(0, c.frames - c.rate - 517)
        let floats = Self.interleavedID(s, rate: c.rate, block: 2048, tailFrom: tailFrom,
                                        head: { $0.addHead(interleaved: $1, frames: $2) },
                                        tail: { $0.addTail(interleaved: $1, frames: $2) })
        #expect(floats == c.id, "\(c.name), interleaved")
    }

    @Test func sixteenBitWordsGiveTheIdTheirFloatsGive() {
        let c = Self.cases[3], s = c.samples
        let words = s.map { $0.map { Int16($0 * 32768) } }
        #expect(words.joined().min()! < -30000 && words.joined().max()! > 30000, "the words span the range")
        let id = Self.interleavedID(words, rate: c.rate, block: 1500, tailFrom: c.frames - c.rate,
                                    head: { $0.addHead(interleaved: $1, frames: $2) },
                                    tail: { $0.addTail(interleaved: $1, frames: $2) })
        #expect(id == c.id)
        // Leading digital silence is skipped in words as in floats.
        let padded = words.map { [Int16](repeating: 0, count: 700) + $0 }
        let floatPadded = padded.map { $0.map { Float($0) / 32768 } }
        let a = Self.interleavedID(padded, rate: c.rate, block: 512, tailFrom: 0,
                                   head: { $0.addHead(interleaved: $1, frames: $2) },
                                   tail: { $0.addTail(interleaved: $1, frames: $2) })
        #expect(a == Self.planarID(floatPadded, rate: c.rate, block: 512))
        #expect(a != c.id)
    }

    @Test func buffersReusedFromAnEarlierIdDontLeakIntoTheNext() {
        // A long stereo id, then a short one of the same shape (same buffer size, reused): the
        // short one must hash only its own frames.
        let long = Self.cases[0], short = Self.signal(channels: 2, frames: 3000, seed: 9)
        let fresh = Self.planarID(short, rate: 8000, block: 1000)
        #expect(Self.planarID(long.samples, rate: 8000, block: 1000) == long.id)
        #expect(Self.planarID(short, rate: 8000, block: 1000) == fresh)
        #expect(Self.planarID(long.samples, rate: 8000, block: 999) == long.id)
    }

    @Test func aCopiedBuilderIsIndependent() {
        let s = Self.signal(channels: 2, frames: 12_000, seed: 11)
        var a = ContentID.Builder(sampleRate: 8000, channels: 2, totalFrames: 12_000)
        a.add(block: AudioBlock(channels: s.map { Array($0[0..<6000]) }, frames: 6000))
        var b = a
        a.add(block: AudioBlock(channels: s.map { Array($0[6000..<12_000]) }, frames: 6000))
        b.add(block: AudioBlock(channels: s.map { $0[6000..<12_000].map { -$0 } }, frames: 6000))
        #expect(a.finish() == Self.planarID(s, rate: 8000, block: 6000))
        #expect(b.finish() != a.finish())
    }

    @Test func streamingHashEqualsTheWholeMessageHash() {
        var rng = SplitMix64(seed: 3)
        let bytes = (0..<1000).map { _ in UInt8(truncatingIfNeeded: Int(rng.bipolar() * 1000)) }
        for cuts in [[], [1], [31, 32, 33], [7, 64, 65, 400], [999]] {
            var pair = XXHash64.Pair(seedA: 0, seedB: 0x5bd1e995_2c1b3c6d)
            var from = 0
            for to in cuts + [bytes.count] {
                bytes[from..<to].withUnsafeBytes { pair.update($0) }
                from = to
            }
            let (a, b) = pair.finish()
            #expect(a == XXHash64.hash(bytes, seed: 0), "cuts \(cuts)")
            #expect(b == XXHash64.hash(bytes, seed: 0x5bd1e995_2c1b3c6d), "cuts \(cuts)")
        }
        for n in [0, 1, 31, 32, 33] {
            var pair = XXHash64.Pair(seedA: 7, seedB: 8)
            bytes[0..<n].withUnsafeBytes { pair.update($0) }
            #expect(pair.finish() == (XXHash64.hash(Array(bytes[0..<n]), seed: 7), XXHash64.hash(Array(bytes[0..<n]), seed: 8)))
        }
        #expect(ContentID.digest(of: Array("audio-tools byte id 1".utf8)).hex == "0380ce79400f489b92a469ec")
    }

    /// Values the vector quantiser must round exactly as the per-sample rule does: ties, the
    /// neighbours of ties, full scale, NaN, infinities, subnormals.
    static let edgeValues: [Float] = {
        let step = Float(1) / 32768
        var xs: [Float] = [0, -0, 1, -1, 2, -2, .infinity, -.infinity, .nan, -.nan, .leastNonzeroMagnitude,
                           -.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                           32767.5 * step, (32767.5 * step).nextDown, -32768.5 * step, (-32768.5 * step).nextUp]
        for k in -40...40 {
            let tie = (Float(k) + 0.5) * step
            xs += [tie, tie.nextDown, tie.nextUp]
        }
        for k in [100, 1000, 12345, 32000, 32766] {
            let tie = (Float(k) + 0.5) * step
            xs += [tie, tie.nextDown, tie.nextUp, -tie, -tie.nextDown, -tie.nextUp]
        }
        return xs
    }()

    @Test func everyQuantiserPathMatchesTheRule() {
        let xs = Self.edgeValues
        let ys = Array(xs.reversed())
        var mono = [UInt16](repeating: 0, count: xs.count)
        var pair = [UInt16](repeating: 0, count: 2 * xs.count)
        xs.withUnsafeBufferPointer { l in
            ys.withUnsafeBufferPointer { r in
                ContentID.Builder.quantise(l.baseAddress!, count: xs.count, into: &mono, stride: 1)
                ContentID.Builder.quantise(left: l.baseAddress!, right: r.baseAddress!, count: xs.count, into: &pair)
            }
        }
        for i in xs.indices {
            let want = ContentID.Builder.quantise(xs[i])
            #expect(Int16(bitPattern: UInt16(littleEndian: mono[i])) == want, "x = \(xs[i])")
            #expect(Int16(bitPattern: UInt16(littleEndian: pair[2 * i])) == want, "left x = \(xs[i])")
            #expect(Int16(bitPattern: UInt16(littleEndian: pair[2 * i + 1])) == ContentID.Builder.quantise(ys[i]), "right x = \(ys[i])")
        }
    }
}
