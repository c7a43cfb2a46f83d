import AudioSignal
import CSndfile
import Foundation

/// A byte range of an open file that libsndfile reads as a whole file (its virtual I/O): one
/// link of a chained Ogg stream, read through a duplicate of the input's descriptor with pread,
/// so the path isn't opened again and the ranges don't share a file position.
package final class SndfileByteRange: SndfileVirtualFile {
    package let fd: Int32
    package let start: Int64
    private let rangeLength: Int64
    package override var length: Int64 { rangeLength }

    package init?(_ file: FileByteSource, start: UInt64, end: UInt64) {
        let fd = file.duplicateDescriptor()
        guard fd >= 0, end >= start else { return nil }
        self.fd = fd
        self.start = Int64(start)
        self.rangeLength = Int64(end - start)
    }

    deinit { close(fd) }

    package override func read(_ into: UnsafeMutableRawPointer, _ count: Int) -> Int {
        let want = max(0, min(Int64(count), rangeLength - position))
        let got = PositionedIO.read(fd, into: into, count: Int(want), at: start + position)
        position += Int64(got)
        return got
    }
}
