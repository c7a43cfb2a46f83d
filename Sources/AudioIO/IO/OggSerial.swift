import AudioSignal
import Glibc

/// libsndfile numbers every Ogg stream it writes at random (seeded from the clock), so the same
/// audio written twice differed in four bytes of each page and in each page's checksum. This
/// renumbers a finished one-stream file with a serial taken from its pages' bodies and fixes the
/// checksums, so unchanged input gives byte-identical output.
package enum OggSerial {
    /// Bytes read at a time; at least one whole page (at most 65,307 bytes) always fits.
    package static let window = 1 << 20

    /// Renumbers the Ogg file open at `fd` (read and write) in place. Returns false, the file
    /// untouched, when it isn't whole Ogg pages of one stream; throws the system's `errno` when a
    /// read or write fails part-way (the file is then not to be kept).
    package static func makeReproducible(fd: Int32) throws(OggSerialError) -> Bool {
        var hash = XXHash64.Pair(seedA: 0x0067_6753, seedB: 0)
        var serial: UInt32?
        // First pass: check the pages and hash their bodies (the serial can't depend on itself).
        let whole = try pages(fd: fd) { buffer, page, _ in
            let found = UInt32(le(buffer, page.start + 14, 4))
            if serial == nil { serial = found } else if serial != found { return false }
            hash.update(UnsafeRawBufferPointer(rebasing: buffer[page.body]))
            return true
        }
        guard whole, serial != nil else { return false }
        let fresh = UInt32(truncatingIfNeeded: hash.finish().0)
        // Second pass: the new serial and checksum of every page, written back a window at a time.
        _ = try pages(fd: fd, written: true) { buffer, page, _ in
            for i in 0..<4 { buffer[page.start + 14 + i] = UInt8(truncatingIfNeeded: fresh >> (8 * UInt32(i))) }
            let crc = OggCRC.checksum(UnsafeRawBufferPointer(buffer), page.start..<page.body.upperBound, zeroing: page.start + 22)
            for i in 0..<4 { buffer[page.start + 22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            return true
        }
        return true
    }

    /// A page inside the window: where it starts, and its body's range.
    package struct Page { var start: Int; var body: Range<Int> }

    /// Walks the file's pages in windows, handing each to `visit` (which may change the window's
    /// bytes; with `written`, each window's whole pages are written back). False when the bytes
    /// aren't a sequence of whole pages or `visit` says stop.
    private static func pages(fd: Int32, written: Bool = false,
                              _ visit: (UnsafeMutableRawBufferPointer, Page, Int) -> Bool) throws(OggSerialError) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: window, alignment: 16)
        defer { buffer.deallocate() }
        var fileOffset = 0   // where buffer[0] is in the file
        var filled = 0, index = 0
        while true {
            // Top up the window after the bytes carried over.
            while filled < window {
                let n = pread(fd, buffer.baseAddress! + filled, window - filled, off_t(fileOffset + filled))
                if n < 0 { if errno == EINTR { continue }; throw OggSerialError(errno: errno) }
                if n == 0 { break }
                filled += n
            }
            if filled == 0 { return index > 0 }
            var at = 0
            while at + 27 <= filled {
                guard buffer[at] == 0x4F, buffer[at + 1] == 0x67, buffer[at + 2] == 0x67, buffer[at + 3] == 0x53,
                      buffer[at + 4] == 0 else { return false }
                let segments = Int(buffer[at + 26])
                guard at + 27 + segments <= filled else { break }
                var length = 0
                for i in 0..<segments { length += Int(buffer[at + 27 + i]) }
                let body = (at + 27 + segments)..<(at + 27 + segments + length)
                guard body.upperBound <= filled else { break }
                guard visit(buffer, Page(start: at, body: body), index) else { return false }
                index += 1
                at = body.upperBound
            }
            if at == 0 { return false }   // not even one whole page: the file stops inside a page
            if written { try writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<at]), at: fileOffset) }
            // Carry the incomplete page (if any) to the start and read on.
            let rest = filled - at
            if rest > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + at, byteCount: rest) }
            fileOffset += at
            filled = rest
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(OggSerialError) {
        guard let base = bytes.baseAddress else { return }
        let e = PositionedIO.writeAll(fd, base, count: bytes.count, at: Int64(offset))
        if e != 0 { throw OggSerialError(errno: e) }
    }

    private static func le(_ b: UnsafeMutableRawBufferPointer, _ at: Int, _ count: Int) -> UInt64 {
        (0..<count).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * $1) }
    }
}

/// A read or write of the Ogg file failed with the system's `errno`.
package struct OggSerialError: Error, Equatable {
    package var errno: Int32
}
