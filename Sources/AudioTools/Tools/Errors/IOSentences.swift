#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a person reads when a file can't be examined, opened or read.
extension FileAccessError: ToolErrorConvertible, CustomStringConvertible {
    /// Names `self.path`, the file that failed, not the record's path.
    public func toolError(path _: String) -> ToolError {
        let q = ToolError.quoted(path)
        let pickFile = "Pick an audio file itself rather than a folder or device."
        switch problem {
        case .missing:
            return ToolError(.notFound, "\(q) doesn't exist.",
                             suggestion: "Check the path; the file may have been moved, renamed or deleted.")
        case .cannotExamine(let e):
            return ToolError(.unreadable, "\(q) can't be examined: \(String(cString: strerror(e))).",
                             suggestion: "Check the permissions of the file and the folders above it.")
        case .notRegular(let folder):
            return ToolError(.notAFile, "\(q) is \(folder ? "a folder" : "not a regular file"), not an audio file.",
                             suggestion: folder ? "Pass the folder as an argument to walk it, or name the audio files inside it."
                                                : "Name a regular audio file.")
        case .cannotRead(let e):
            return ToolError(.unreadable, "\(q) can't be read: \(String(cString: strerror(e))).",
                             suggestion: "Give yourself read permission on the file (chmod u+r) or run as its owner.")
        case .openMissing:
            return ToolError(.notFound, "\(q) doesn't exist.",
                             suggestion: "Check the name and folder, then pick the file again.")
        case .openNotRegular(let folder):
            return ToolError(.notAFile, "\(q) is \(folder ? "a folder" : "not a regular file"), not an audio file.",
                             suggestion: pickFile)
        case .openDenied:
            return ToolError(.unreadable, "\(q) can't be opened: permission denied.",
                             suggestion: "Give yourself read access to it, or copy it somewhere you can read and pick the copy.")
        case .openFailed(let e):
            return ToolError(.unreadable, "\(q) can't be opened (system error \(e)).",
                             suggestion: "Copy the file to a local folder and pick the copy.")
        case .readFailed:
            return ToolError(.unreadable, "\(q) couldn't be read from the disk.",
                             suggestion: "Copy the file to a local folder and pick the copy.")
        }
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: path).description }
}
