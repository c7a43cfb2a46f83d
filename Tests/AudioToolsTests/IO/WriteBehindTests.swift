import CSndfile
import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The encoder on a thread of its own (`SndfileSink.encodeBehind`, `WriteBehind`) and libsndfile's
/// output through one large buffer (`SndfileWriteBuffer`): the same bytes, failures reported, no hang.
@Suite struct WriteBehindTests {
    func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)").path
    }

    /// Two channels of distinct tones, `frames` long.
    func tones(_ frames: Int) -> [[Float]] {
        [(0..<frames).map { Float(sin(Double($0) * 0.013)) * 0.6 },
         (0..<frames).map { Float(sin(Double($0) * 0.029 + 1)) * 0.4 }]
    }

    /// The file `signal` makes when written in blocks of `blockSizes` (cycled), with or without
    /// the encoder's own thread.
    func written(_ signal: [[Float]], container: String, codec: String, behind: Bool, blockSizes: [Int]) throws -> [UInt8] {
        let path = tempPath("out.\(container)")
        defer { unlink(path) }
        let sink = try SndfileSink(path: path, formatCode: SndfileSink.formatCode(container: container, codec: codec)!,
                                   sampleRate: 48000, channelCount: 2, overwrite: false)
        if behind { sink.encodeBehind() }
        var start = 0, k = 0
        while start < signal[0].count {
            let n = min(blockSizes[k % blockSizes.count], signal[0].count - start)
            try sink.write(AudioBlock(channels: signal.map { Array($0[start..<(start + n)]) }, frames: n))
            start += n; k += 1
        }
        try sink.commit()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: [("wav", "pcm_s24"), ("flac", "pcm_s16"), ("aiff", "pcm_s16"), ("ogg", "vorbis")])
    func encodingBehindWritesTheSameBytes(_ format: (String, String)) throws {
        // 400,000 frames of 24-bit stereo: 2.4 MB, so the 1 MiB buffer is sent several times.
        let signal = tones(400_000)
        // Cut unevenly: libsndfile's Vorbis codes differently when cut differently, so the encoder
        // must get the caller's pieces.
        let sizes = [4096, 65_536, 1, 70_001, 333]
        let plain = try written(signal, container: format.0, codec: format.1, behind: false, blockSizes: sizes)
        let behind = try written(signal, container: format.0, codec: format.1, behind: true, blockSizes: sizes)
        #expect(plain.count > 20_000)
        #expect(plain == behind, "\(plain.count) bytes written plainly, \(behind.count) behind")
        // And it decodes to what was written (the header's lengths went out last, through the buffer).
        let path = tempPath("check.\(format.0)")
        defer { unlink(path) }
        try Data(behind).write(to: URL(fileURLWithPath: path))
        let src = try SndfileSource(path: path)
        #expect(src.format.frameCount == 400_000)
    }

    /// libsndfile's calls through the buffer: writes that don't continue the buffered run, seeks
    /// back into it, reads and the length land exactly where a plain file would put them.
    @Test func bufferedFileKeepsEveryOffset() throws {
        let path = tempPath("raw")
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { close(fd); unlink(path) }
        let file = SndfileWriteBuffer(fd: fd)
        let io = SndfileWriteBuffer.callbacks
        let user = file.userData
        func put(_ bytes: [UInt8]) { #expect(bytes.withUnsafeBytes { io.write!($0.baseAddress, sf_count_t(bytes.count), user) } == sf_count_t(bytes.count)) }
        put([1, 2, 3, 4, 5, 6, 7, 8])
        #expect(io.tell!(user) == 8)
        #expect(io.seek!(2, SEEK_SET, user) == 2)
        put([9, 9])
        #expect(io.seek!(0, SEEK_END, user) == 8)
        #expect(io.get_filelen!(user) == 8)
        let big = [UInt8](repeating: 7, count: SndfileWriteBuffer.capacity + 5)
        put(big)
        #expect(io.get_filelen!(user) == Int64(8 + big.count))
        #expect(io.seek!(-3, SEEK_CUR, user) == Int64(8 + big.count - 3))
        put([42])
        #expect(io.seek!(0, SEEK_SET, user) == 0)
        var head = [UInt8](repeating: 0, count: 8)
        #expect(head.withUnsafeMutableBytes { io.read!($0.baseAddress, 8, user) } == 8)
        #expect(head == [1, 2, 9, 9, 5, 6, 7, 8])
        #expect(file.flush() == 0)
        var expected: [UInt8] = [1, 2, 9, 9, 5, 6, 7, 8] + big
        expected[expected.count - 3] = 42
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }

    @Test func aRefusedWriteIsReportedAndLaterOnesRefused() throws {
        // A descriptor open only for reading: every write fails with EBADF.
        let path = tempPath("ro")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let fd = open(path, O_RDONLY)
        defer { close(fd); unlink(path) }
        let file = SndfileWriteBuffer(fd: fd)
        let io = SndfileWriteBuffer.callbacks
        let user = file.userData
        let bytes = [UInt8](repeating: 1, count: 100)
        // Buffered: accepted until it is sent.
        #expect(bytes.withUnsafeBytes { io.write!($0.baseAddress, 100, user) } == 100)
        #expect(file.flush() == EBADF)
        #expect(bytes.withUnsafeBytes { io.write!($0.baseAddress, 100, user) } == 0)
        #expect(file.failure == EBADF)
    }

    @Test func buffersComeOutInOrderAndWhole() {
        final class Seen: @unchecked Sendable { var values: [Float] = []; var handOvers = 0 }
        let seen = Seen()
        let behind = WriteBehind { b in
            seen.values += b.samples[0..<(b.frames * 2)]
            seen.handOvers += 1
            return nil
        }
        var next: Float = 0
        for n in [1, 4096, 65_536, 3, 100_000, 7] {
            let first = next
            #expect(behind.fill(frames: n, channels: 2) { p in for i in 0..<(2 * n) { p[i] = first + Float(i) } } == nil)
            next += Float(2 * n)
        }
        #expect(behind.finish() == nil)
        #expect(seen.values == (0..<Int(next)).map(Float.init))
        #expect(seen.handOvers >= 3)
    }

    @Test func aFailureStopsTheThreadAndReachesTheWriter() {
        let behind = WriteBehind { _ in .incomplete(errno: ENOSPC, libsndfile: "") }
        var refused: WriteError.Problem? = nil
        // The first hand-over fails; within `depth` more, `fill` says so instead of waiting.
        for _ in 0..<(WriteBehind.depth + 3) where refused == nil {
            refused = behind.fill(frames: WriteBehind.handOverFrames, channels: 1) { p in p.update(repeating: 0, count: WriteBehind.handOverFrames) }
            if refused == nil { usleep(2000) }
        }
        #expect(refused == .incomplete(errno: ENOSPC, libsndfile: ""))
        #expect(behind.finish() == .incomplete(errno: ENOSPC, libsndfile: ""))
    }

    @Test func abandoningWhileBlocksAreQueuedLeavesNothing() throws {
        let dir = tempPath("dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink = try SndfileSink(path: dir + "/out.wav", formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_s16")!,
                                   sampleRate: 8000, channelCount: 2, overwrite: false)
        sink.encodeBehind()
        let signal = tones(300_000)
        try sink.write(AudioBlock(channels: signal, frames: 300_000))
        sink.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test(arguments: [1, 2, 3, 6])
    func interleavingPutsEachFrameTogether(_ channels: Int) {
        for frames in [0, 1, 3, 4, 5, 4099] {
            let block = AudioBlock(channels: (0..<channels).map { c in (0..<frames).map { Float(c * 100_000 + $0) } }, frames: frames)
            var out: [Float] = []
            #expect(block.interleave(channels: channels, into: &out) == frames * channels)
            let expected = (0..<frames).flatMap { i in (0..<channels).map { c in Float(c * 100_000 + i) } }
            #expect(Array(out.prefix(frames * channels)) == expected, "\(channels) channels, \(frames) frames")
        }
    }
}
