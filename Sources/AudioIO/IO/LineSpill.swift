import Foundation

/// Lines kept on disk instead of in memory, read back in any order: the finished output lines of
/// a listing that must be sorted before the first can be written. The file is an unlinked
/// temporary (nothing is left behind, whatever happens to the process); when no temporary file
/// can be made the lines stay in memory.
public final class LineSpill {
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var flushed = 0          // bytes already in the file
    private var offsets: [Int] = []  // start of each line; the next start (or the end) closes it
    /// The lines themselves while they are in memory: until they pass `memoryBytes`, or for good
    /// when no temporary file can be made or written.
    private var memory: [String]? = []
    private var memoryUsed = 0

    /// Lines are kept in memory up to this many bytes and go to the file beyond: a library of a
    /// few tens of thousands of songs is listed without touching the disk.
    public static let defaultMemoryBytes = 32 << 20
    private let memoryBytes: Int

    public init(memoryBytes: Int = LineSpill.defaultMemoryBytes) {
        self.memoryBytes = memoryBytes
        var template = Array((FileManager.default.temporaryDirectory.path + "/audio-tools-listing-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 {
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            self.fd = fd
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public var count: Int { memory?.count ?? offsets.count }

    public func append(_ line: String) {
        if memory != nil {
            memoryUsed += line.utf8.count
            if fd < 0 || memoryUsed <= memoryBytes { memory!.append(line); return }
            // Past the budget: what is held goes to the file, and the lines after it too.
            buffer.reserveCapacity(min(memoryBytes, 1 << 20))
            for held in memory! { appendToFile(held) }
            memory = nil
        }
        appendToFile(line)
    }

    private func appendToFile(_ line: String) {
        offsets.append(flushed + buffer.count)
        buffer.append(contentsOf: line.utf8)
        if buffer.count >= min(memoryBytes, 1 << 20) { flush() }
    }

    /// The line at `index` (in the order they were appended).
    public func line(_ index: Int) -> String {
        if let memory { return memory[index] }
        let start = offsets[index]
        let end = index + 1 < offsets.count ? offsets[index + 1] : flushed + buffer.count
        if start >= flushed {
            return String(decoding: buffer[(start - flushed)..<(end - flushed)], as: UTF8.self)
        }
        if end > flushed {
            flush()
            if let memory { return memory[index] }  // the disk was full: it is all in memory now
        }
        // Read back through a window of the file: a listing sorted in about the order it was
        // walked (by mtime, by path) reads each part of the file once, not once per line.
        if start < windowStart || end > windowStart + window.count {
            let size = max(Self.windowBytes, 2 * (end - start))
            windowStart = max(0, min(start - size / 2, flushed - size))
            window = [UInt8](repeating: 0, count: min(size, flushed - windowStart))
            var got = 0
            while got < window.count {
                let n = window.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(windowStart + got)) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                got += n
            }
            window.removeLast(window.count - got)
            guard end <= windowStart + window.count else {
                return String(decoding: window[min(start - windowStart, window.count)...], as: UTF8.self)
            }
        }
        return String(decoding: window[(start - windowStart)..<(end - windowStart)], as: UTF8.self)
    }

    /// Bytes of the file read back at once.
    package static let windowBytes = 1 << 20
    private var window: [UInt8] = []
    private var windowStart = 0

    private func flush() {
        guard fd >= 0, !buffer.isEmpty else { return }
        var off = 0
        while off < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 {
                // The disk is full: keep what couldn't be written in memory from here on.
                fallBackToMemory(written: off)
                return
            }
            off += n
        }
        flushed += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads back what the file holds and keeps every line in memory from now on.
    private func fallBackToMemory(written off: Int) {
        var all = [UInt8](repeating: 0, count: flushed + off)
        var got = 0
        while got < all.count {
            let n = all.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(got)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        all += buffer[off...]
        memory = offsets.indices.map { i in
            let end = i + 1 < offsets.count ? offsets[i + 1] : all.count
            return String(decoding: all[offsets[i]..<end], as: UTF8.self)
        }
        buffer = []
        offsets = []
        Glibc.close(fd)
        fd = -1
    }
}
