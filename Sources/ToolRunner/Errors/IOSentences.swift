import AudioIO
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
        // Out of descriptors or memory: the machine's failure, said as such.
        switch problem {
        case .cannotExamine(let e), .cannotRead(let e), .openFailed(let e):
            if let r = ResourceFailure(path, errno: e) { return r.toolError(path: path) }
        default: break
        }
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


/// What a person reads when an output can't be written.
extension WriteError: ToolErrorConvertible, CustomStringConvertible {
    /// Names `self.path`, the output that failed, not the record's path.
    public func toolError(path _: String) -> ToolError {
        let q = ToolError.quoted(path)
        let freeSpace = "Free disk space or choose another output folder."
        switch problem {
        case .failed(let step, let e):
            let reason = String(cString: strerror(e))
            let what: String
            switch step {
            case .creatingFolder: what = "\(q) can't be written: its folder can't be created (\(reason))."
            case .writing: what = "\(q) can't be written: \(reason)."
            case .placing: what = "\(q) can't be written: it can't be put in place (\(reason))."
            }
            return ToolError(Self.code(for: e), what, suggestion: Self.suggestion(for: e))
        case .appeared:
            return ToolError(.exists, "\(q) appeared while it was being written; it was left as it is.",
                             suggestion: "Pass --overwrite to replace it, or choose another output folder.")
        case .exists:
            return ToolError(.exists, "\(q) already exists; it was left as it is.",
                             suggestion: "Pass --overwrite to replace it, or choose another --out-dir or --output-template.")
        case .formatRejected(let channels, let rate):
            return ToolError(.unsupportedCodec, "\(q) can't be written in the requested format (\(channels) channels at \(rate) Hz).",
                             suggestion: "Choose another --format or --sample-rate (WAV and FLAC take most combinations).")
        case .encoderRefused(let libsndfile):
            return ToolError(.writeFailed, "\(q) can't be written: \(libsndfile)",
                             suggestion: "Check that the output folder is writable and the disk has space.")
        case .incomplete(let e, let libsndfile):
            let why = e != 0 ? String(cString: strerror(e)) : libsndfile
            return ToolError(Self.code(for: e), "\(q) could not be written completely (\(why)); nothing was left behind.",
                             suggestion: e != 0 ? Self.suggestion(for: e) : freeSpace)
        case .unfinished(let e):
            return ToolError(Self.code(for: e), "\(q) could not be finished (\(e != 0 ? String(cString: strerror(e)) : "the disk may be full")); nothing was left behind.",
                             suggestion: e != 0 ? Self.suggestion(for: e) : freeSpace)
        }
    }

    /// A write that failed with `e`: `write-failed`, or the code of the resource that ran out.
    package static func code(for e: Int32) -> ErrorCode {
        ResourceFailure.kind(errno: e)?.code ?? .writeFailed
    }

    /// What to do about a write that failed with `e`.
    package static func suggestion(for e: Int32) -> String {
        switch e {
        case ENOMEM, EMFILE, ENFILE: return ResourceFailure.suggestion(for: ResourceFailure.kind(errno: e)!, program: nil)
        case ENOSPC, EDQUOT, EFBIG: return "Free some space on that disk, or choose an output folder on another one."
        case EROFS: return "That disk is mounted read-only; choose an output folder on a writable disk."
        case EACCES, EPERM: return "Give yourself write permission on the output folder, or choose another one."
        case ENOTDIR, ENOENT: return "A file sits where a folder of the output path should be, or the folder is missing; choose another output path."
        default: return "Check that the output folder exists, is writable and has space."
        }
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: path).description }
}

/// What a person reads when sample-rate conversion fails (no file is named: the rates are the facts).
extension ResampleError: ToolErrorConvertible, CustomStringConvertible {
    public func toolError(path _: String) -> ToolError {
        switch self {
        case .badRates(let from, let to):
            return ToolError(.badInput, "Cannot resample from \(from) Hz to \(to) Hz.", suggestion: "Use positive sample rates.")
        case .badRatio(let ratio, let channels):
            return ToolError(.badInput, "Cannot resample at ratio \(ratio) with \(channels) channels.",
                             suggestion: "Use a ratio between 1/256 and 256 and at least one channel.")
        case .failed(let why):
            return ToolError(.badInput, "Sample-rate conversion failed: \(why).",
                             suggestion: "Check the sample rates and channel count of the input.")
        }
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: "").description }
}

/// What a person reads when a file's tags can't be read or rewritten.
extension TagFileError: ToolErrorConvertible, CustomStringConvertible {
    /// Names `self.path`, the file TagLib worked on, not the record's path.
    public func toolError(path _: String) -> ToolError {
        let name = ToolError.quoted(path)
        switch problem {
        case .saveFailed(let c):
            return ToolError(.unreadable, "TagLib could not write the \(TagFormat(c).store) of \(name); the file was left as it was.",
                             suggestion: "Check that the disk has room and the file is not damaged (ffmpeg -v error -i FILE -f null - lists what is wrong).")
        case .notReadableAs(let c, let writing):
            return ToolError(.malformed, "TagLib can't read \(name) as \(TagFormat(c).rawValue.uppercased()), so its tags can't be \(writing ? "written" : "read"); the file was left as it was.",
                             suggestion: "Check the file with audio-probe; a damaged file can be repaired by exporting it again.")
        case .readOnly(let fileLocked):
            return ToolError(.readOnly, "\(name) is read-only (\(fileLocked ? "the file" : "its folder") can't be written), so its tags were not changed.",
                             suggestion: "Give yourself write permission on the file and its folder (chmod u+w), or leave it out of the batch.")
        case .systemRefused(let step, let e):
            let what: String
            switch step {
            case .opening: what = "opened"
            case .examining: what = "examined"
            case .makingCopy: what = "copied (no room for a temporary copy beside it)"
            case .copying: what = "copied"
            case .replacing: what = "replaced"
            }
            let code: ErrorCode
            switch step {
            case .opening, .examining: code = ResourceFailure.kind(errno: e)?.code ?? .unreadable
            case .makingCopy, .copying, .replacing: code = WriteError.code(for: e)
            }
            return ToolError(code, "\(name) could not be \(what): \(String(cString: strerror(e))); it was left as it was.",
                             suggestion: ResourceFailure.kind(errno: e) != nil ? WriteError.suggestion(for: e)
                                                                               : "Check the permissions and free space of its folder.")
        }
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: path).description }
}

/// What a person reads when the machine, not the file, failed: memory, open files, disk space,
/// a read-only disk, or a program that couldn't run.
extension ResourceFailure.Kind {
    /// The record's code for this kind (docs/records.md).
    public var code: ErrorCode {
        switch self {
        case .noMemory: return .noMemory
        case .tooManyFiles: return .tooManyFiles
        case .diskFull: return .diskFull
        case .readOnly: return .readOnly
        case .cannotStart: return .cannotStart
        }
    }
}

extension ResourceFailure: ToolErrorConvertible, CustomStringConvertible {
    /// Names `self.path`, the file being worked on.
    public func toolError(path recordPath: String) -> ToolError {
        // A failure found where no file is known (a thread that couldn't start) names the record's.
        let path = self.path.isEmpty ? recordPath : self.path
        let q = ToolError.quoted(path)
        let message: String
        switch kind {
        case .noMemory where path.isEmpty: message = "The run can't start work: the memory the tool may use ran out (\(reason))."
        case .noMemory: message = "\(q) can't be processed: the memory the tool may use ran out (\(reason))."
        case .tooManyFiles: message = "\(q) can't be processed: too many files are open (\(reason))."
        case .diskFull: message = "\(q) can't be written: the disk is full (\(reason)); nothing was left behind."
        case .readOnly: message = "\(q) can't be written: the disk is read-only (\(reason)); nothing was left behind."
        case .cannotStart: message = "\(q) can't be processed: \(program ?? "a helper program") could not run (\(reason))."
        }
        return ToolError(kind.code, message, suggestion: Self.suggestion(for: kind, program: program))
    }

    /// What to do about a shortage of `kind` (the file itself is fine).
    package static func suggestion(for kind: Kind, program: String?) -> String {
        switch kind {
        case .noMemory: return "The file itself is fine: close other programs or raise the memory limit (ulimit -v), then run the tool again."
        case .tooManyFiles: return "The file itself is fine: raise the open-file limit (ulimit -n 1024), then run the tool again."
        case .diskFull: return WriteError.suggestion(for: ENOSPC)
        case .readOnly: return WriteError.suggestion(for: EROFS)
        case .cannotStart:
            let p = program ?? "it"
            return "The file itself is fine: check that \(p) runs (\(program.map { "\($0) -version" } ?? "its --version")) and that the memory limit (ulimit -v) leaves it room."
        }
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: path).description }
}
