#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an output couldn't be written, as facts (the system's error number, libsndfile's message,
/// the step that failed); Tools/Errors/IOSentences.swift says them to a person.
public struct WriteError: Error, Equatable, Sendable {
    /// The output that failed.
    public var path: String
    public var problem: Problem

    public init(_ path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// What was being done when the system refused.
    public enum Step: Equatable, Sendable {
        case creatingFolder
        case writing
        case placing
    }

    public enum Problem: Equatable, Sendable {
        /// The system refused `step` with `errno`.
        case failed(Step, errno: Int32)
        /// Another file took the name while the output was being written.
        case appeared
        /// The output exists and overwriting wasn't asked for.
        case exists
        /// libsndfile can't write this format with these parameters.
        case formatRejected(channels: Int, sampleRate: Int)
        /// libsndfile refused to start writing (its message).
        case encoderRefused(libsndfile: String)
        /// A write stopped short: the system's `errno`, or 0 and libsndfile's message.
        case incomplete(errno: Int32, libsndfile: String)
        /// Closing failed: the system's `errno`, or 0 when it didn't say.
        case unfinished(errno: Int32)
    }
}

/// A failure of the machine's resources rather than of a file's bytes: memory, open files, disk
/// space, a read-only disk, or a program the tool runs (ffmpeg) that can't start or is killed.
/// The one place that reads a system error number or a child's end as such; every reader and
/// writer asks it before calling a file damaged or a codec unsupported. Tools/Errors says it.
public struct ResourceFailure: Error, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// ENOMEM, or a child that says it couldn't allocate.
        case noMemory
        /// EMFILE/ENFILE: the process's (or the system's) open-file limit.
        case tooManyFiles
        /// ENOSPC/EDQUOT/EFBIG: no room (or no quota) left on the disk.
        case diskFull
        /// EROFS: the disk is mounted read-only.
        case readOnly
        /// A child program could not start (its libraries not loaded, exec refused) or was
        /// killed by a signal (an OOM kill).
        case cannotStart
    }

    /// The file being read or written.
    public var path: String
    public var kind: Kind
    /// The system's reason as it said it (strerror, or the child's first line of errors).
    public var reason: String
    /// The program that failed, for `cannotStart` (e.g. "ffmpeg"); nil for the tool itself.
    public var program: String?

    public init(_ path: String, _ kind: Kind, reason: String, program: String? = nil) {
        self.path = path
        self.kind = kind
        self.reason = reason
        self.program = program
    }

    /// The kind of a system error number, or nil when it isn't a shortage of resources.
    public static func kind(errno e: Int32) -> Kind? {
        switch e {
        case ENOMEM: return .noMemory
        case EMFILE, ENFILE: return .tooManyFiles
        case ENOSPC, EDQUOT, EFBIG: return .diskFull
        case EROFS: return .readOnly
        default: return nil
        }
    }

    /// `path`'s failure from the system error number `e`, or nil when `e` isn't a resource's.
    public init?(_ path: String, errno e: Int32) {
        guard let kind = Self.kind(errno: e) else { return nil }
        self.init(path, kind, reason: String(cString: strerror(e)))
    }

    /// A child program that `spawning` (ChildProcess's error) couldn't start: the resource that
    /// ran out (descriptors, memory), else `cannotStart` with the system's reason.
    public init(_ path: String, program: String, spawning error: Error) {
        let e = (error as? ChildProcessError)?.errno ?? 0
        let reason = e != 0 ? String(cString: strerror(e)) : "\(error)"
        self.init(path, Self.kind(errno: e) ?? .cannotStart, reason: reason, program: program)
    }

    /// What ended a child program (`status` as ChildProcess gives it: 128 + N for signal N), when
    /// it was the machine and not the file: it couldn't start (126, 127, a shared library not
    /// loaded), was killed by SIGKILL/SIGSEGV/SIGBUS/SIGABRT, or said it ran out of memory,
    /// descriptors or disk. Nil when its messages are about the file.
    public init?(_ path: String, program: String, status: Int32, stderr: String) {
        let lines = stderr.split(separator: "\n").map(String.init)
        let first = lines.first ?? ""
        let shortages: [(String, Kind)] = [
            ("cannot allocate memory", .noMemory), ("out of memory", .noMemory),
            ("too many open files", .tooManyFiles),
            ("no space left on device", .diskFull), ("disk quota exceeded", .diskFull), ("file too large", .diskFull),
            ("read-only file system", .readOnly),
        ]
        if stderr.contains("error while loading shared libraries") || status == 126 || status == 127 {
            let line = lines.first { $0.contains("error while loading shared libraries") } ?? first
            self.init(path, .cannotStart, reason: line.isEmpty ? "it could not be run (status \(status))" : Self.withoutProgramName(line),
                      program: program)
            return
        }
        let lower = stderr.lowercased()
        if let (_, kind) = shortages.first(where: { lower.contains($0.0) }) {
            let line = lines.first { l in shortages.contains { l.lowercased().contains($0.0) } } ?? first
            self.init(path, kind, reason: line, program: program)
            return
        }
        if [128 + SIGKILL, 128 + SIGSEGV, 128 + SIGBUS, 128 + SIGABRT].contains(status) {
            let signal = String(cString: strsignal(status - 128))
            self.init(path, .cannotStart, reason: "it was stopped by a signal (\(signal))", program: program)
            return
        }
        return nil
    }

    /// "/usr/bin/ffmpeg: error while loading…" → "error while loading…": the sentence names ffmpeg.
    package static func withoutProgramName(_ line: String) -> String {
        guard line.hasPrefix("/"), let r = line.range(of: ": ") else { return line }
        return String(line[r.upperBound...])
    }
}
