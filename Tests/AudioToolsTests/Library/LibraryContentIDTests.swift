import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibraryContentIDTests {
    /// `frames` of noise on the 16-bit grid (as a 16-bit file decodes), seeded.
    func gridSignal(channels: Int, frames: Int, seed: UInt64) -> [[Float]] {
        var rng = SplitMix64(seed: seed)
        return (0..<channels).map { _ in
            (0..<frames).map { _ in (Float(rng.bipolar()) * 30000).rounded() / 32768 }
        }
    }

    func id(_ channels: [[Float]], rate: Int = 8000, blockFrames: Int = 1000) -> String {
        contentID(channels, rate: rate, blockFrames: blockFrames)
    }

    @Test func xxhash64MatchesReferenceVectors() {
        #expect(XXHash64.hash([], seed: 0) == 0xEF46_DB37_51D8_E999)
        #expect(XXHash64.hash(Array("a".utf8), seed: 0) == 0xD24E_C4F1_A98C_6E5B)
        #expect(XXHash64.hash(Array("abc".utf8), seed: 0) == 0x44BC_2CF5_AD77_0999)
        let bytes = (0..<768).map { UInt8($0 % 256) }
        #expect(XXHash64.hash(bytes, seed: 0) == 0x8E03_C838_C596_036F)
        #expect(XXHash64.hash(Array(bytes[0..<100]), seed: 0x5bd1e995_2c1b3c6d) == 0xFF03_1943_DA1A_46E6)
        #expect(XXHash64.hash(Array("abcdefghijklmnopqrstuvwxyz012345678".utf8), seed: 7) == 0x2FE9_F415_07EE_0757)
    }

    @Test func songsThatStartAndEndInSilenceAreStillToldApart() {
        // Same length, two seconds of digital silence at both ends, different music between:
        // the head window starts on the first sound, so the ids differ.
        let rate = 8000, pad = [Float](repeating: 0, count: 2 * rate)
        let a = gridSignal(channels: 1, frames: 5 * rate, seed: 21)[0]
        let b = gridSignal(channels: 1, frames: 5 * rate, seed: 22)[0]
        let idA = id([pad + a + pad], rate: rate, blockFrames: 777)
        let idB = id([pad + b + pad], rate: rate, blockFrames: 777)
        #expect(idA != idB)
        // Still independent of blocking, and of where the silence ends inside a block.
        #expect(id([pad + a + pad], rate: rate, blockFrames: 4096) == idA)
        // The length of the leading silence is part of the identity.
        #expect(id([pad + [0] + a + pad.dropLast()], rate: rate) != idA)
        // A wholly silent stream has an id too.
        #expect(id([[Float](repeating: 0, count: 3 * rate)], rate: rate).count == ContentID.hexLength)
    }

    @Test func sameSamplesSameIdWhateverTheBlocking() {
        let signal = gridSignal(channels: 2, frames: 30_000, seed: 1)
        let a = id(signal, blockFrames: 1000)
        #expect(a.count == ContentID.hexLength)
        #expect(a.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(id(signal, blockFrames: 777) == a)
        #expect(id(signal, blockFrames: 30_000) == a)
    }

    @Test func headAndTailFedSeparatelyGiveTheSameId() {
        let signal = gridSignal(channels: 2, frames: 30_000, seed: 2)
        let rate = 8000
        var builder = ContentID.Builder(sampleRate: rate, channels: 2, totalFrames: 30_000)
        builder.addHead(block: AudioBlock(channels: signal.map { Array($0[0..<5000]) }, frames: 5000))
        let partial = builder.headIsComplete
        #expect(!partial)
        // Frames past the head window are ignored.
        builder.addHead(block: AudioBlock(channels: signal.map { Array($0[5000..<9000]) }, frames: 4000))
        let complete = builder.headIsComplete, tailStart = builder.tailStartFrame
        #expect(complete)
        #expect(tailStart == 22_000)
        // Feeding from a little before the tail window start is fine: only the last second counts.
        builder.addTail(block: AudioBlock(channels: signal.map { Array($0[21_500..<25_000]) }, frames: 3500))
        builder.addTail(block: AudioBlock(channels: signal.map { Array($0[25_000..<30_000]) }, frames: 5000))
        #expect(builder.finish() == id(signal, rate: rate))
    }

    @Test func sourceHelperSeeksAndAgrees() throws {
        let signal = gridSignal(channels: 1, frames: 40_000, seed: 3)
        let source = MemoryAudioSource(sampleRate: 8000, channels: signal)
        #expect(try ContentID.of(source, blockFrames: 3000).hex == id(signal))
    }

    @Test func changedSampleInHeadOrTailChangesId() {
        let signal = gridSignal(channels: 2, frames: 30_000, seed: 4)
        let base = id(signal)
        for (channel, frame) in [(0, 0), (1, 7999), (0, 22_000), (1, 29_999)] {
            var changed = signal
            changed[channel][frame] += 1.01 / 32768
            #expect(id(changed) != base, "frame \(frame)")
        }
        // The middle is not hashed: that's the documented trade-off.
        var middle = signal
        middle[0][15_000] += 0.5
        #expect(id(middle) == base)
    }

    @Test func noiseBelowHalfAStepKeepsId() {
        let signal = gridSignal(channels: 2, frames: 20_000, seed: 5)
        var rng = SplitMix64(seed: 99)
        let noisy = signal.map { channel in channel.map { $0 + Float(rng.bipolar()) * 0.49 / 32768 } }
        #expect(noisy != signal)
        #expect(id(noisy) == id(signal))
    }

    @Test func lengthRateAndChannelsChangeId() {
        let signal = gridSignal(channels: 2, frames: 30_000, seed: 6)
        let base = id(signal)
        // One frame shorter: same head, different tail and length.
        #expect(id(signal.map { Array($0.dropLast()) }) != base)
        // Same samples, but the header claims another length.
        var builder = ContentID.Builder(sampleRate: 8000, channels: 2, totalFrames: 30_001)
        builder.add(block: AudioBlock(channels: signal, frames: 30_000))
        #expect(builder.finish() != base)
        #expect(id(signal, rate: 16000) != base)
        #expect(id([signal[0]]) != id([signal[1]]))
        #expect(id([signal[0], signal[0]]) != id([signal[0]]))
    }

    @Test func shortAndOddInputsAreHandled() {
        // Shorter than a second: head and tail both cover everything.
        let short = gridSignal(channels: 1, frames: 100, seed: 8)
        #expect(id(short) == id(short, blockFrames: 7))
        var nan = short
        nan[0][50] = .nan
        var silent = short
        silent[0][50] = 0
        #expect(id(nan) == id(silent))
        // Beyond full scale clamps.
        var loud = short
        loud[0][0] = 3
        var full = short
        full[0][0] = 32767 / 32768
        #expect(id(loud) == id(full))
        #expect(ContentID.Builder.quantise(-1) == -32768)
        #expect(ContentID.Builder.quantise(0.5 / 32768 * 0.98) == 0)
    }
}

/// The strided quantiser the id is built with gives exactly the per-sample rule's values.
@Suite struct ContentIDQuantiserTests {
    @Test func stridedQuantiserMatchesTheRule() {
        let step = Float(1) / 32768
        var xs: [Float] = [0, -0, 1, -1, 2, -2, .infinity, -.infinity, .nan, -.nan, step / 2, -step / 2,
                           step / 2 - step / 4096, -(step / 2 - step / 4096), 32766.5 * step, 32767.5 * step,
                           -32767.5 * step, -32768.5 * step, .leastNonzeroMagnitude, Float.ulpOfOne]
        var rng = SplitMix64(seed: 5)
        for _ in 0..<10_000 { xs.append(Float(rng.bipolar() * 1.2)) }
        for k in -40...40 { xs.append((Float(k) + 0.5) * step); xs.append((Float(k) + 0.5).nextDown * step) }
        var out = [UInt16](repeating: 0xAAAA, count: xs.count * 2)
        xs.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                ContentID.Builder.quantise(src.baseAddress!, count: xs.count, into: dst.baseAddress! + 1, stride: 2)
            }
        }
        for (i, x) in xs.enumerated() {
            #expect(Int16(bitPattern: UInt16(littleEndian: out[2 * i + 1])) == ContentID.Builder.quantise(x), "x = \(x)")
            #expect(out[2 * i] == 0xAAAA)  // the other channel's slots are untouched
        }
    }
}
