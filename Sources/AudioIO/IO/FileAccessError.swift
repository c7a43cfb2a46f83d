#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file couldn't be looked at or read, as facts (the system's error number, whether it is a
/// folder); Tools/Errors/IOSentences.swift says them to a person.
public struct FileAccessError: Error, Equatable, Sendable {
    public var path: String
    public var problem: Problem

    public init(_ path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public enum Problem: Equatable, Sendable {
        // Checked by name (FileIdentity.of: stat, then access)
        /// Nothing at the path (ENOENT, ENOTDIR).
        case missing
        /// `stat` failed otherwise.
        case cannotExamine(errno: Int32)
        /// Not a regular file; `folder` when it is a directory.
        case notRegular(folder: Bool)
        /// No read permission.
        case cannotRead(errno: Int32)

        // Opened and read (FileByteSource)
        /// `open` found nothing at the path.
        case openMissing
        /// Opened, but not a regular file; `folder` when it is a directory.
        case openNotRegular(folder: Bool)
        /// `open` was refused permission.
        case openDenied
        /// `open` failed otherwise.
        case openFailed(errno: Int32)
        /// A read failed.
        case readFailed
    }
}
