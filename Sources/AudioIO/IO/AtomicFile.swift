import Foundation
import Glibc

// Linux's values, which Glibc's Swift module leaves out (they need _GNU_SOURCE): O_TMPFILE is
// __O_TMPFILE (octal 20000000 on x86-64 and arm64) with O_DIRECTORY; AT_EMPTY_PATH is 0x1000.
private let openUnnamed: Int32 = 0o20000000 | O_DIRECTORY
private let atEmptyPath: Int32 = 0x1000

/// An output file that appears complete or not at all, for every writer (audio sinks, page info,
/// caches, tag rewrites).
///
/// On Linux the file is opened unnamed in its destination folder (`O_TMPFILE`) and linked into
/// place by `commit`, so a writer killed at any moment, even by SIGKILL, leaves nothing in the
/// folder. Where the file system can't (no `O_TMPFILE`), it is written under a hidden name,
/// `.NAME.partial-MACHINE-PID-RANDOM`, removed on failure and on SIGINT/SIGTERM/SIGHUP; one left
/// by a writer that is gone (killed, crashed) is removed by the next writer into that folder.
///
/// With `overwrite`, a destination that is a device, a FIFO or a socket (links followed) is
/// written through at `commit`, as a shell's `>` would, and never replaced. A regular file that
/// is replaced passes on its owner, group, mode and extended attributes (FileAttributes); a link
/// to one is kept, and the file it points to replaced.
///
/// Without `overwrite` the final link is exclusive: an existing file, or one that appears while
/// writing, is refused (`exists`) and left as it is. Failures are `write-failed` with the
/// system's reason.
public final class AtomicOutput {
    /// Where the file will be.
    public let path: String
    /// What is replaced: `path`, or with `overwrite` the regular file a link at `path` points to.
    private let target: String
    /// The descriptor to write through (or hand to a library such as libsndfile).
    public let fd: Int32
    /// True when the file is unnamed until `commit` (O_TMPFILE); false for the hidden-name fallback.
    public let isUnnamed: Bool
    private let overwrite: Bool
    private let temporary: String?
    private var done = false

    /// Opens the output for `path`, creating the folders above it when `createFolders`.
    /// `unnamed: false` takes the hidden-name way even where O_TMPFILE works (for tests).
    public init(path: String, overwrite: Bool, createFolders: Bool = true, mode: mode_t = 0o666, unnamed: Bool = true) throws {
        self.path = path
        self.overwrite = overwrite
        // A link is written through, as `>` would, and kept; the temporary file is made beside
        // the file it replaces, so the rename stays on one file system.
        let target = overwrite ? FileAttributes.linkTarget(path) : path
        self.target = target
        // While a file that is replaced is written, only its owner may read the new one; `commit`
        // gives it the replaced file's owner, mode and extended attributes.
        var st = stat()
        let mode = overwrite && PathBytes.lstat(target, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? mode & 0o600 : mode
        let dir = PathBytes.directoryName(target)
        if createFolders {
            let e = PathBytes.makeDirectories(dir)
            if e != 0 { throw WriteError(path, .failed(.creatingFolder, errno: e)) }
        }
        AtomicOutput.removeAbandonedPartials(in: dir)
        // An unnamed file is only worth opening when it can be linked later: through /proc.
        let useUnnamed = unnamed && AtomicOutput.procFDLinks
        var fd = useUnnamed ? PathBytes.open(dir, openUnnamed | O_RDWR | O_CLOEXEC, mode) : -1
        if fd >= 0 {
            isUnnamed = true
            temporary = nil
        } else {
            let e = useUnnamed ? errno : EOPNOTSUPP
            // ENOENT/ENOTDIR/EACCES/EROFS/ENOSPC are real answers; the rest mean "no O_TMPFILE here".
            if [ENOENT, ENOTDIR, EACCES, EPERM, EROFS, ENOSPC, EDQUOT].contains(e) {
                throw WriteError(path, .failed(.writing, errno: e))
            }
            let tmp = dir + "/." + PathBytes.baseName(target) + ".partial" + TemporaryFiles.nameSuffix()
            TemporaryFiles.register(tmp)
            fd = PathBytes.open(tmp, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode)
            guard fd >= 0 else {
                let e = errno
                TemporaryFiles.unregister(tmp)
                throw WriteError(path, .failed(.writing, errno: e))
            }
            isUnnamed = false
            temporary = tmp
        }
        self.fd = fd
    }

    deinit { if !done { abandon() } }

    /// A name the output can be opened by before `commit` (for a library that edits files by
    /// path, such as TagLib): the hidden file, or the unnamed one through /proc.
    public var editablePath: String { temporary ?? "/proc/self/fd/\(fd)" }

    /// Writes all of `bytes` at the current offset.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try AtomicOutput.writeAll($0, to: fd, path: path) }
    }

    /// Writes all of `bytes` at the current offset (a buffer that is reused, with no array to make).
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try AtomicOutput.writeAll(bytes, to: fd, path: path)
    }

    /// Writes all of `bytes` to `fd`; a failure is `write-failed` on `path` with the system's reason.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws {
        var off = 0
        while off < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 { if errno == EINTR { continue }; throw WriteError(path, .failed(.writing, errno: errno)) }
            off += n
        }
    }

    /// Puts the complete file in place (closing the descriptor). Throws `exists` when not
    /// overwriting and the destination exists, `write-failed` otherwise; either way nothing is
    /// left behind.
    public func commit() throws {
        guard !done else { return }
        done = true
        defer { close(fd); if let t = temporary { _ = PathBytes.unlink(t); TemporaryFiles.unregister(t) } }
        if overwrite, AtomicOutput.isSpecialFile(target) { return try copyInPlace() }
        if overwrite, let kept = FileAttributes(of: target) { kept.apply(to: fd) }
        if let t = temporary {
            let r = overwrite ? PathBytes.rename(t, target) : PathBytes.link(t, path)
            if r != 0 { throw placeFailure(errno) }
            return
        }
        if overwrite {
            // Link under a hidden name, then rename over the destination (rename replaces atomically).
            let staged = PathBytes.directoryName(target) + "/." + PathBytes.baseName(target) + ".partial" + TemporaryFiles.nameSuffix()
            if linkUnnamed(to: staged) != 0 { throw placeFailure(errno) }
            if PathBytes.rename(staged, target) != 0 {
                let e = errno
                _ = PathBytes.unlink(staged)
                throw placeFailure(e)
            }
        } else if linkUnnamed(to: path) != 0 {
            throw placeFailure(errno)
        }
    }

    /// Whether `path` (its links followed) is something other than a regular file or a folder:
    /// a device, a FIFO or a socket, which is written through, never replaced.
    package static func isSpecialFile(_ path: String) -> Bool {
        var st = stat()
        guard PathBytes.stat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// Writes what was written so far into the destination itself, opened as a shell's `>`
    /// opens it (a device such as /dev/null, or a FIFO a reader waits on), so it is never replaced.
    private func copyInPlace() throws { try AtomicOutput.copy(from: fd, intoSpecial: target, path: path) }

    /// Copies all of the file open as `source` (from its start) into the device or FIFO at
    /// `target`; failures are `write-failed` on `path`.
    package static func copy(from source: Int32, intoSpecial target: String, path: String) throws {
        let dst = try openInPlace(target, path: path)
        defer { close(dst) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            if n < 0 { if errno == EINTR { continue }; throw WriteError(path, .failed(.writing, errno: errno)) }
            if n == 0 { return }
            offset += off_t(n)
            try buffer.withUnsafeBytes { try writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<n]), to: dst, path: path) }
        }
    }

    /// Opens a device or FIFO for writing as `>` does.
    package static func openInPlace(_ target: String, path: String) throws -> Int32 {
        while true {
            let fd = PathBytes.open(target, O_WRONLY | O_TRUNC | O_CLOEXEC, 0)
            if fd >= 0 { return fd }
            if errno != EINTR { throw WriteError(path, .failed(.writing, errno: errno)) }
        }
    }

    /// Drops the output: nothing of it stays on disk.
    public func abandon() {
        guard !done else { return }
        done = true
        close(fd)
        if let t = temporary { _ = PathBytes.unlink(t); TemporaryFiles.unregister(t) }
    }

    /// Whether /proc/self/fd is there to link an unnamed file by (not in every container).
    package static let procFDLinks: Bool = access("/proc/self/fd", X_OK) == 0

    /// Gives the unnamed file a name: through /proc (any user), else AT_EMPTY_PATH (privileged).
    private func linkUnnamed(to name: String) -> Int32 {
        let r = PathBytes.withCString(name) { dst in linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, dst, AT_SYMLINK_FOLLOW) }
        if r == 0 || errno == EEXIST { return r }
        return PathBytes.withCString(name) { dst in linkat(fd, "", AT_FDCWD, dst, atEmptyPath) }
    }

    private func placeFailure(_ e: Int32) -> WriteError {
        WriteError(path, e == EEXIST ? .appeared : .failed(.placing, errno: e))
    }

    // MARK: leftovers of writers that are gone

    private static let sweptLock = NSLock()
    nonisolated(unsafe) private static var swept: Set<String> = []

    /// How long a temporary file of a writer that can't be asked (another machine's, or named
    /// without a machine by an older version) must have been left unchanged to be abandoned.
    package static let abandonedAfterSeconds = 600

    /// Removes temporary files of ours in `dir` (named as `partialWriter` reads) whose writer is
    /// gone, once per folder per process: at once when it was this machine's (since its boot)
    /// and its process no longer runs; after ten minutes unchanged when it was another machine's
    /// or its name says no machine. Files of running writers and any other names are kept.
    public static func removeAbandonedPartials(in dir: String) {
        sweptLock.lock()
        let first = swept.insert(dir).inserted
        sweptLock.unlock()
        guard first, let d = PathBytes.withCString(dir, { opendir($0) }) else { return }
        var stale: [String] = []
        while let e = readdir(d) {
            let name = PathBytes.string(PathBytes.entryName(e))
            guard let writer = partialWriter(name) else { continue }
            let here = writer.machine == TemporaryFiles.machine
            if writer.machine == nil || here {
                guard writer.pid != getpid(), kill(writer.pid, 0) != 0, errno == ESRCH else { continue }
            }
            var st = stat()
            guard PathBytes.lstat(dir + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            // A writer on another machine sharing the folder has an id unknown here, but it keeps
            // its file's modification time fresh: only a file left alone for a while is abandoned.
            if here || time(nil) - st.st_mtim.tv_sec >= abandonedAfterSeconds { stale.append(name) }
        }
        closedir(d)
        for name in stale { _ = PathBytes.unlink(dir + "/" + name) }
    }

    /// The writer named by a temporary file of ours, else nil: its process id, and its machine
    /// (nil in a name written by a version before machines were named). Every name starts with a
    /// dot and ends `-MACHINE-PID-RANDOM` (`TemporaryFiles.nameSuffix`; before, `-PID-RANDOM`),
    /// after a fixed part saying which writer made it: `.song.wav.partial-…` (an output),
    /// `.song.flac.tags-…` (--write-tags), `.film.mp4.audio0-….m4a` (an audio stream encoded
    /// apart), `.audio-tools-stdin-…` and `.audio-tools-out-…` (standard input kept, an output on
    /// its way to stdout).
    package static func partialWriter(_ name: String) -> (pid: pid_t, machine: String?)? {
        guard name.hasPrefix(".") else { return nil }
        let m4a = name.hasSuffix(".m4a")
        let parts = name.dropLast(m4a ? 4 : 0).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0,
              UInt32(parts[parts.count - 1]) != nil else { return nil }
        let machinePart = parts.count >= 4 ? parts[parts.count - 3] : ""
        let hasMachine = machinePart.count == 8 && machinePart.allSatisfy { $0.isHexDigit && !$0.isUppercase }
        let head = parts.dropLast(hasMachine ? 3 : 2).joined(separator: "-")
        let writer = (pid: pid, machine: hasMachine ? String(machinePart) : nil)
        if !m4a, head.hasSuffix(".partial") || head.hasSuffix(".tags") || head == ".audio-tools-stdin" || head == ".audio-tools-out" {
            return writer
        }
        // `.NAME.audioN`, N the stream's ordinal.
        if m4a, let r = head.range(of: ".audio", options: .backwards), r.lowerBound > head.startIndex,
           !head[r.upperBound...].isEmpty, head[r.upperBound...].allSatisfy({ $0.isASCII && $0.isNumber }) {
            return writer
        }
        return nil
    }
}

/// Writes a small file completely or not at all (see AtomicOutput).
public enum AtomicFile {
    public static func write(_ text: String, to path: String, overwrite: Bool = true, createFolders: Bool = true) throws {
        try write(Array(text.utf8), to: path, overwrite: overwrite, createFolders: createFolders)
    }

    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true, createFolders: Bool = true) throws {
        // A device or FIFO (`--junit /dev/stdout`) is written through, as a shell's `>` would,
        // with no temporary file beside it (its folder may be one nobody may write in).
        if overwrite, AtomicOutput.isSpecialFile(path) {
            let fd = try AtomicOutput.openInPlace(path, path: path)
            defer { close(fd) }
            try bytes.withUnsafeBytes { try AtomicOutput.writeAll($0, to: fd, path: path) }
            return
        }
        let out = try AtomicOutput(path: path, overwrite: overwrite, createFolders: createFolders)
        do {
            try out.write(bytes)
            try out.commit()
        } catch {
            out.abandon()
            throw error
        }
    }
}
