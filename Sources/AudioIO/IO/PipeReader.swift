#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Bytes read forward only, from a pipe (standard input, a child's output) or from a file that
/// may still be growing. It keeps what was looked at ahead (`peek`) for the next reader, so one
/// part can sniff the first bytes and another decode them. A read blocked on the input also
/// returns, as the end, when SignalStop is asked to stop.
public final class PipeReader {
    /// Why reading ended.
    public enum End: Equatable { case endOfInput, stopped, idle, failed(errno: Int32) }

    private let fd: Int32
    private let closes: Bool
    private let readFn: ((UnsafeMutableRawPointer, Int) -> Int)?
    /// Seconds without growth after which a growing file is taken as complete; nil for a pipe.
    public let idleSeconds: Double?
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes handed to readers so far (looked-at bytes not yet taken are not counted).
    public private(set) var bytesTaken: UInt64 = 0
    public private(set) var end: End?
    /// Set when standard input was handed to the line reader (it held records, not audio).
    public var handedToLines = false

    /// Standard input, shared by the part that sniffs it and the part that decodes it.
    nonisolated(unsafe) public static let standardInput = PipeReader(fd: 0)

    /// Reads `fd` (not closed here). With `idleSeconds` it is a file being written: the end of
    /// its bytes so far is waited past until it has not grown for that long.
    public init(fd: Int32, idleSeconds: Double? = nil, closesDescriptor: Bool = false) {
        self.fd = fd
        closes = closesDescriptor
        self.idleSeconds = idleSeconds
        readFn = nil
    }

    /// Reads through `read` (a child's output): it returns 0 at the end.
    public init(read: @escaping (UnsafeMutableRawPointer, Int) -> Int) {
        fd = -1
        closes = false
        idleSeconds = nil
        readFn = read
    }

    deinit { if closes, fd >= 0 { close(fd) } }

    /// Bytes looked at and not yet taken.
    public var buffered: Int { buffer.count - start }

    /// Up to `n` bytes ahead, without taking them (fewer at the end).
    public func peek(_ n: Int) -> [UInt8] {
        while buffered < n, end == nil {
            if !fillMore(n - buffered) { break }
        }
        return Array(buffer[start ..< start + min(n, buffered)])
    }

    /// Whatever is already looked at, after at least one read (for sniffing without waiting
    /// for a whole block of a slow producer).
    public func peekAvailable(atLeast n: Int) -> [UInt8] {
        _ = peek(n)
        return Array(buffer[start...])
    }

    /// Takes exactly `n` bytes into `dst` unless the input ends first; returns how many.
    public func read(into dst: UnsafeMutableRawPointer, count n: Int) -> Int {
        var got = 0
        if buffered > 0 {
            let k = min(n, buffered)
            buffer.withUnsafeBytes { dst.copyMemory(from: $0.baseAddress! + start, byteCount: k) }
            start += k
            got = k
            if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        }
        while got < n, end == nil {
            let r = rawRead(dst + got, n - got)
            if r <= 0 { break }
            got += r
        }
        bytesTaken += UInt64(got)
        return got
    }

    /// Takes what one read gives (the bytes looked at ahead first), at most `n`; 0 at the end.
    /// For passing a live stream on without waiting for a whole buffer.
    public func readSome(into dst: UnsafeMutableRawPointer, count n: Int) -> Int {
        if buffered == 0, end == nil {
            let r = rawRead(dst, n)
            bytesTaken += UInt64(r)
            return r
        }
        return read(into: dst, count: min(n, buffered))
    }

    /// Takes `n` bytes as an array (fewer at the end).
    public func take(_ n: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: n)
        let got = out.withUnsafeMutableBytes { read(into: $0.baseAddress!, count: n) }
        out.removeLast(n - got)
        return out
    }

    /// Skips `n` bytes; returns how many were there.
    @discardableResult
    public func skip(_ n: UInt64) -> UInt64 {
        var left = n
        var scratch = [UInt8](repeating: 0, count: 65536)
        while left > 0 {
            let k = Int(min(left, 65536))
            let got = scratch.withUnsafeMutableBytes { read(into: $0.baseAddress!, count: k) }
            left -= UInt64(got)
            if got < k { break }
        }
        return n - left
    }

    /// Reads and drops the rest of the input, so the writer of a pipe isn't cut off by us.
    public func drain() { while skip(1 << 20) == 1 << 20 {} }

    private func fillMore(_ n: Int) -> Bool {
        var chunk = [UInt8](repeating: 0, count: max(n, 4096))
        let r = chunk.withUnsafeMutableBytes { rawRead($0.baseAddress!, $0.count) }
        guard r > 0 else { return false }
        if start > 0 { buffer.removeSubrange(0..<start); start = 0 }
        buffer.append(contentsOf: chunk[0..<r])
        return true
    }

    /// One read of the input: > 0 bytes, or 0 with `end` set.
    private func rawRead(_ dst: UnsafeMutableRawPointer, _ n: Int) -> Int {
        if let readFn {
            let r = readFn(dst, n)
            if r <= 0 { end = .endOfInput }
            return max(r, 0)
        }
        var idleSince: Double?
        while true {
            if SignalStop.requested { end = .stopped; return 0 }
            if SignalStop.fd >= 0 {
                var p = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: SignalStop.fd, events: Int16(POLLIN), revents: 0)]
                let rc = poll(&p, 2, -1)
                if rc < 0 && errno == EINTR { continue }
                if SignalStop.requested { end = .stopped; return 0 }
            }
            let r = Glibc.read(fd, dst, n)
            if r > 0 { return r }
            if r < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                end = .failed(errno: errno)
                return 0
            }
            guard let idle = idleSeconds else { end = .endOfInput; return 0 }
            // A growing file: wait for more until it has been still for `idle` seconds.
            let now = Self.seconds()
            if let since = idleSince, now - since >= idle { end = .idle; return 0 }
            if idleSince == nil { idleSince = now }
            if SignalStop.wait(milliseconds: 100) { end = .stopped; return 0 }
        }
    }

    package static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
