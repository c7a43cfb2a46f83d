#if canImport(Glibc)
import Glibc
#endif

/// A file described as another file's bytes with a few changed: runs of the input copied in
/// order, bytes inserted between them, and patches (bytes written over input bytes inside the
/// copied runs). A parser that changes a few bytes of a big file (a gain field per frame, a
/// header's checksum, a tag at the end) returns one of these instead of a rewritten copy, and
/// `write(from:to:)` makes the file: clean stretches copied by the kernel, only the windows
/// holding patches read, patched and written, so the cost is about that of copying the file.
public struct PatchedCopy: Equatable, Sendable {
    /// One part of the output, in order.
    public enum Piece: Equatable, Sendable {
        /// These input bytes, with the patches inside them applied.
        case copy(Range<Int>)
        /// These bytes.
        case insert([UInt8])
    }

    public private(set) var pieces: [Piece] = []
    /// The patches, by input offset, ascending and not overlapping: where each starts, and where
    /// its bytes start in `patchBytes` (all patches' bytes one after another, so a patch per
    /// MP3 frame is no allocation per frame).
    public private(set) var patchOffsets: [Int] = []
    private var patchStarts: [Int] = []
    public private(set) var patchBytes: [UInt8] = []

    public init() {}

    /// An output that is exactly `bytes` (a format rewritten in memory, where nothing is copied).
    public init(bytes: [UInt8]) { insert(bytes) }

    /// Bytes the output will have.
    public var outputSize: Int {
        pieces.reduce(0) { n, p in
            switch p {
            case .copy(let r): n + r.count
            case .insert(let b): n + b.count
            }
        }
    }

    /// Appends the input bytes `range` to the output (merged with a copy just before it that ends where it starts).
    public mutating func copy(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if case .copy(let last)? = pieces.last, last.upperBound == range.lowerBound {
            pieces[pieces.count - 1] = .copy(last.lowerBound..<range.upperBound)
        } else {
            pieces.append(.copy(range))
        }
    }

    /// Appends `bytes` to the output.
    public mutating func insert(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if case .insert(var last)? = pieces.last {
            // Taken out first so the bytes are held once and grow in place (many pages in a row).
            pieces.removeLast()
            last += bytes
            pieces.append(.insert(last))
        } else {
            pieces.append(.insert(bytes))
        }
    }

    /// Writes `bytes` over the input's bytes from `offset` wherever they are copied. Patches come
    /// in ascending order and don't overlap (a parser walking the file forward gives them so).
    public mutating func patch<C: Collection<UInt8>>(at offset: Int, _ bytes: C) {
        precondition(patchOffsets.last.map { offset >= $0 + patchLength(patchOffsets.count - 1) } ?? true,
                     "patches must be ascending and not overlap")
        guard !bytes.isEmpty else { return }
        patchOffsets.append(offset)
        patchStarts.append(patchBytes.count)
        patchBytes.append(contentsOf: bytes)
    }

    /// Number of patches.
    public var patchCount: Int { patchOffsets.count }

    /// The bytes of patch `k`.
    public func patchContent(_ k: Int) -> ArraySlice<UInt8> {
        patchBytes[patchStarts[k]..<(patchStarts[k] + patchLength(k))]
    }

    private func patchLength(_ k: Int) -> Int {
        (k + 1 < patchStarts.count ? patchStarts[k + 1] : patchBytes.count) - patchStarts[k]
    }

    /// The output made in memory from the whole input (tests, small files).
    public func applied(to input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(outputSize)
        var k = 0
        for piece in pieces {
            switch piece {
            case .insert(let b): out += b
            case .copy(let r):
                var window = Array(input[r])
                k = window.withUnsafeMutableBufferPointer { apply(patchesFrom: k, to: $0, at: r.lowerBound) }
                out += window
            }
        }
        return out
    }

    /// Writes the patches that fall in `buffer` (the input's bytes from `offset`), starting the
    /// search at patch `first`; returns the first patch that starts at or after the buffer's end.
    /// A patch straddling the buffer's end is written in part; the next window gets the rest.
    @discardableResult
    package func apply(patchesFrom first: Int, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        var k = first
        // Skip patches wholly before the window (copy runs may leave some input out).
        while k < patchOffsets.count, patchOffsets[k] + patchLength(k) <= offset { k += 1 }
        let end = offset + buffer.count
        var next = k
        while k < patchOffsets.count, patchOffsets[k] < end {
            let from = max(patchOffsets[k], offset), to = min(patchOffsets[k] + patchLength(k), end)
            let src = patchStarts[k] + (from - patchOffsets[k])
            for i in 0..<(to - from) { buffer[from - offset + i] = patchBytes[src + i] }
            if patchOffsets[k] + patchLength(k) <= end { next = k + 1 }
            k += 1
        }
        return next
    }

    /// Whether a patch touches input bytes `range`, searching from patch `first`.
    package func touches(_ range: Range<Int>, from first: Int) -> Bool {
        var k = first
        while k < patchOffsets.count, patchOffsets[k] + patchLength(k) <= range.lowerBound { k += 1 }
        return k < patchOffsets.count && patchOffsets[k] < range.upperBound
    }

    // MARK: writing

    /// Bytes read, patched and written at a time where patches are; clean stretches between
    /// them are handed to the kernel whole.
    package static let window = 256 << 10

    /// Writes the output into `out` from the input behind `source` (the file the pieces and
    /// patches were computed from). Throws the read's or the write's error; an input that came up
    /// short (changed since it was parsed) is a read failure, so `out` should be abandoned then.
    /// `kernelCopies: false` reads and writes everything (for tests of the fallback).
    public func write(from input: InputReader, to out: AtomicOutput, kernelCopies: Bool = true) throws {
        var writer = Writer(input: input, out: out)
        writer.kernelCopies = writer.kernelCopies && kernelCopies
        var k = 0
        for piece in pieces {
            switch piece {
            case .insert(let b): try out.write(b)
            case .copy(let r):
                var at = r.lowerBound
                var clean = at  // start of a run of windows without patches, not yet written
                while at < r.upperBound {
                    let end = min(r.upperBound, at + Self.window)
                    if touches(at..<end, from: k) {
                        try writer.copy(clean..<at)
                        try writer.read(at..<end)
                        k = writer.buffer.withUnsafeMutableBufferPointer { b in
                            apply(patchesFrom: k, to: UnsafeMutableBufferPointer(rebasing: b[0..<(end - at)]), at: at)
                        }
                        try writer.writeBuffer(end - at)
                        clean = end
                    }
                    at = end
                }
                try writer.copy(clean..<r.upperBound)
            }
        }
    }

    /// Copies input ranges to the output's current offset: `copy_file_range` (the kernel moves the
    /// bytes, sharing them where the file system can), else reads and writes.
    private struct Writer {
        let input: InputReader
        let out: AtomicOutput
        var kernelCopies = PatchedCopy.copyFileRange != nil
        /// One window, reused: a fresh buffer per window would be fresh pages to fault in each time.
        var buffer = [UInt8](repeating: 0, count: PatchedCopy.window)

        mutating func copy(_ range: Range<Int>) throws {
            var at = range.lowerBound
            while at < range.upperBound, kernelCopies, let cfr = PatchedCopy.copyFileRange {
                var from = Int64(at)
                let n = cfr(input.fd, &from, out.fd, nil, range.upperBound - at, 0)
                if n > 0 { at += n; continue }
                if n == 0 { throw FileAccessError(input.path, .readFailed) }  // the input shrank
                let e = errno
                if e == EINTR { continue }
                // Not across these file systems, not this kind of file, or no such call: read and write.
                if [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF, EPERM, ETXTBSY].contains(e) { kernelCopies = false; break }
                if e == EIO { throw FileAccessError(input.path, .readFailed) }
                throw WriteError(out.path, .failed(.writing, errno: e))
            }
            while at < range.upperBound {
                let end = min(range.upperBound, at + PatchedCopy.window)
                try read(at..<end)
                try writeBuffer(end - at)
                at = end
            }
        }

        /// Reads the input's bytes `range` (at most a window) into the buffer, all of them (a
        /// short read means the input changed).
        mutating func read(_ range: Range<Int>) throws {
            try buffer.withUnsafeMutableBufferPointer { try input.read(at: range.lowerBound, into: UnsafeMutableBufferPointer(rebasing: $0[0..<range.count])) }
        }

        /// Writes the buffer's first `count` bytes.
        func writeBuffer(_ count: Int) throws {
            try buffer.withUnsafeBytes { try out.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// glibc's copy_file_range, looked up by name (its declaration needs _GNU_SOURCE, which the
    /// Glibc module leaves out); nil where the C library has none.
    package static let copyFileRange: (@convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "copy_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int).self)
        #else
        return nil
        #endif
    }()
}

/// An input file read by offset into buffers the caller owns (no array per read), through its
/// own descriptor on the file a FileByteSource opened; closes with the object.
public final class InputReader {
    public let path: String
    package let fd: Int32
    /// The identity the file had when opened, to tell it changed since.
    public let identity: FileIdentity

    public init(_ source: FileByteSource) throws {
        path = source.path
        identity = source.identity
        fd = source.duplicateDescriptor()
        guard fd >= 0 else { throw FileAccessError(source.path, .readFailed) }
    }

    deinit { close(fd) }

    /// Fills `buffer` with the bytes from `offset`; a short read (the file shrank) is a read failure.
    public func read(at offset: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) throws {
        var got = 0
        while got < buffer.count {
            let n = pread(fd, buffer.baseAddress! + got, buffer.count - got, off_t(offset + got))
            if n < 0, errno == EINTR { continue }
            if n <= 0 { throw FileAccessError(path, .readFailed) }
            got += n
        }
    }

    /// Throws a read failure when the file's size or modification time moved since it was
    /// opened: what was read in two passes may then mix two states of it.
    public func checkUnchanged() throws {
        var st = stat()
        guard fstat(fd, &st) == 0, FileIdentity(stat: st) == identity else { throw FileAccessError(path, .readFailed) }
    }
}
