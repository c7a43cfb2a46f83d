import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The typed errors of decoding, probing and file I/O say what the ToolErrors they replaced said,
/// word for word, naming the file that failed whatever record asks.
@Suite struct DecodeErrorSentencesTests {
    let again = "Download or export the file again; a complete copy will work."

    @Test func decodeErrors() {
        #expect(DecodeError("/m/a.wav", .empty).toolError(path: "other.wav")
                == ToolError(.empty, "“a.wav” is empty (0 bytes).",
                             suggestion: "The file holds no data; if it is a cloud-only placeholder, download it first, otherwise export it again."))
        #expect(DecodeError("a.wma", .needsFFmpeg(container: "asf", codec: "wmav2")).toolError(path: "")
                == ToolError(.unsupportedCodec, "“a.wma” holds ASF audio (wmav2), which this build can decode only with ffmpeg, and ffmpeg is not installed.",
                             suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg), or convert the file to WAV or FLAC first."))
        #expect(DecodeError("a.wav", .cutOff(promised: 10, read: 5)).toolError(path: "")
                == ToolError(.truncated, "“a.wav” is cut off: its header promises 10 frames but only 5 are there.", suggestion: again))
        #expect(DecodeError("a.wav", .damagedAfter(frames: 7, libsndfile: "Unspecified internal error.")).toolError(path: "")
                == ToolError(.truncated, "“a.wav” is damaged or cut off after 7 frames (Unspecified internal error).", suggestion: again))
        #expect(DecodeError("a.wav", .nonFiniteSample(channel: 1, frame: 3)).toolError(path: "").message
                == "“a.wav” holds a sample that is not a number (NaN or infinity) in channel 2 at frame 3.")
        #expect(DecodeError("a.m4a", .stoppedAfter(frames: 9, cutOff: true, ffmpeg: "partial file")).toolError(path: "")
                == ToolError(.truncated, "“a.m4a” is cut off after 9 frames (partial file).", suggestion: again))
        #expect(DecodeError("a.m4a", .stoppedAfter(frames: 9, cutOff: false, ffmpeg: "bad")).toolError(path: "").code == .malformed)
        #expect(DecodeError("v.mp4", .noSuchStream(2, count: 1)).toolError(path: "")
                == ToolError(.noAudio, "“v.mp4” has 1 audio stream, so it has no stream 2 (streams are counted from 0).",
                             suggestion: "Pick a stream from 0 to 0 (lufs-measure lists them in loudness.streams), or leave out --stream."))
        let e = DecodeError("x.flac", .unrecognisedFormat)
        #expect("\(e)" == e.toolError(path: "").description)
    }

    @Test func libsndfileMessagesChooseTheProblem() {
        #expect(SndfileSource.openFailure(libsndfile: "Format not recognised.") == .unrecognisedFormat)
        #expect(SndfileSource.openFailure(libsndfile: "Unsupported encoding") == .unsupportedEncoding(libsndfile: "Unsupported encoding"))
        #expect(SndfileSource.openFailure(libsndfile: "Permission denied") == .permissionDenied(libsndfile: "Permission denied"))
        #expect(DecodeError("a.wav", SndfileSource.openFailure(libsndfile: "Bad header.")).toolError(path: "")
                == ToolError(.malformed, "“a.wav” looks like audio but its header is damaged (Bad header).",
                             suggestion: "Export or download the file again; a complete, undamaged copy will work."))
    }

    @Test func fileAccessErrors() {
        #expect(FileAccessError("d/a.wav", .missing).toolError(path: "")
                == ToolError(.notFound, "“a.wav” doesn't exist.", suggestion: "Check the path; the file may have been moved, renamed or deleted."))
        #expect(FileAccessError("d", .notRegular(folder: true)).toolError(path: "").suggestion
                == "Pass the folder as an argument to walk it, or name the audio files inside it.")
        #expect(FileAccessError("a.wav", .cannotRead(errno: EACCES)).toolError(path: "").message == "“a.wav” can't be read: Permission denied.")
        #expect(FileAccessError("a.wav", .openFailed(errno: EIO)).toolError(path: "")
                == ToolError(.unreadable, "“a.wav” can't be opened (system error \(EIO)).", suggestion: "Copy the file to a local folder and pick the copy."))
    }

    @Test func writeErrors() {
        #expect(WriteError("o/x.wav", .failed(.creatingFolder, errno: EACCES)).toolError(path: "")
                == ToolError(.writeFailed, "“x.wav” can't be written: its folder can't be created (Permission denied).",
                             suggestion: "Give yourself write permission on the output folder, or choose another one."))
        #expect(WriteError("x.wav", .failed(.writing, errno: ENOSPC)).toolError(path: "")
                == ToolError(.diskFull, "“x.wav” can't be written: No space left on device.",
                             suggestion: "Free some space on that disk, or choose an output folder on another one."))
        #expect(WriteError("x.wav", .appeared).toolError(path: "").code == .exists)
        #expect(WriteError("x.wav", .unfinished(errno: 0)).toolError(path: "")
                == ToolError(.writeFailed, "“x.wav” could not be finished (the disk may be full); nothing was left behind.",
                             suggestion: "Free disk space or choose another output folder."))
        #expect(ResampleError.badRates(from: 0, to: 48000).toolError(path: "")
                == ToolError(.badInput, "Cannot resample from 0 Hz to 48000 Hz.", suggestion: "Use positive sample rates."))
    }

    /// A machine's failure is named by its cause, from an errno or from a child's end; the file's
    /// own faults stay nil (the caller then says malformed, unsupported-codec...).
    @Test func resourceFailuresAreNamedByTheirCause() {
        #expect(ResourceFailure.kind(errno: ENOMEM) == .noMemory)
        #expect(ResourceFailure.kind(errno: EMFILE) == .tooManyFiles && ResourceFailure.kind(errno: ENFILE) == .tooManyFiles)
        #expect(ResourceFailure.kind(errno: ENOSPC) == .diskFull && ResourceFailure.kind(errno: EDQUOT) == .diskFull)
        #expect(ResourceFailure.kind(errno: EROFS) == .readOnly)
        #expect(ResourceFailure.kind(errno: EACCES) == nil && ResourceFailure.kind(errno: EIO) == nil)
        let noLib = ResourceFailure("a.m4a", program: "ffmpeg", status: 127,
                                    stderr: "/usr/bin/ffmpeg: error while loading shared libraries: libx.so.7: failed to map segment from shared object\n")
        #expect(noLib == ResourceFailure("a.m4a", .cannotStart, reason: "error while loading shared libraries: libx.so.7: failed to map segment from shared object", program: "ffmpeg"))
        #expect(ResourceFailure("a.m4a", program: "ffmpeg", status: 128 + SIGKILL, stderr: "")?.kind == .cannotStart)
        let full = ResourceFailure("a.m4a", program: "ffmpeg", status: 1,
                                   stderr: "[mp4 @ 0x1] Error writing trailer: No space left on device\nConversion failed!\n")
        #expect(full?.kind == .diskFull && full?.reason == "[mp4 @ 0x1] Error writing trailer: No space left on device")
        #expect(ResourceFailure("a.m4a", program: "ffmpeg", status: 1, stderr: "out/a.m4a: Read-only file system\n")?.kind == .readOnly)
        #expect(ResourceFailure("a.m4a", program: "ffmpeg", status: 1, stderr: "x: Cannot allocate memory\n")?.kind == .noMemory)
        #expect(ResourceFailure("a.m4a", program: "ffmpeg", status: 1, stderr: "a.m4a: Invalid data found when processing input\n") == nil)
        #expect(noLib?.toolError(path: "").code == .cannotStart)
        #expect(noLib?.toolError(path: "").suggestion.contains("ffmpeg -version") == true)
        #expect(WriteError("x.wav", .failed(.writing, errno: EROFS)).toolError(path: "").code == .readOnly)
        #expect(WriteError("x.wav", .incomplete(errno: EDQUOT, libsndfile: "")).toolError(path: "").code == .diskFull)
        #expect(TagFileError("a.mp3", .systemRefused(.makingCopy, errno: ENOSPC)).toolError(path: "").code == .diskFull)
        #expect(TagFileError("a.mp3", .systemRefused(.opening, errno: EMFILE)).toolError(path: "").code == .tooManyFiles)
        #expect(TagFileError("a.mp3", .systemRefused(.opening, errno: EACCES)).toolError(path: "").code == .unreadable)
        #expect(MediaWriteError.failure(input: "a.m4a", .init(status: 1, stderr: "No space left on device\n")) as? ResourceFailure
                == ResourceFailure("a.m4a", .diskFull, reason: "No space left on device", program: "ffmpeg"))
        #expect(MediaWriteError.failure(input: "a.m4a", .init(status: 1, stderr: "Unknown encoder\n")) as? MediaWriteError
                == .ffmpegFailed(input: "a.m4a", reason: "Unknown encoder"))
    }

    @Test func tagFileErrors() {
        #expect(TagFileError("a.flac", .saveFailed(.flac)).toolError(path: "").message
                == "TagLib could not write the Vorbis comment of “a.flac”; the file was left as it was.")
        #expect(TagFileError("a.ogg", .notReadableAs(.oggVorbis, writing: false)).toolError(path: "").message
                == "TagLib can't read “a.ogg” as OGG-VORBIS, so its tags can't be read; the file was left as it was.")
        #expect(TagFileError("a.mp3", .systemRefused(.makingCopy, errno: ENOSPC)).toolError(path: "").message
                == "“a.mp3” could not be copied (no room for a temporary copy beside it): No space left on device; it was left as it was.")
        #expect(TagFileError("a.mp3", .readOnly(fileLocked: false)).toolError(path: "")
                == ToolError(.readOnly, "“a.mp3” is read-only (its folder can't be written), so its tags were not changed.",
                             suggestion: "Give yourself write permission on the file and its folder (chmod u+w), or leave it out of the batch."))
    }

    @Test func probeEndRefusals() {
        #expect(ProbeRefusal("a.wav", .framesMissing(promised: 10, present: 4)).toolError(path: "")
                == ToolError(.truncated, "“a.wav” is cut off: its header promises 10 frames but only 4 are there.",
                             suggestion: "Pick a complete copy — the download or copy may not have finished."))
        #expect(ProbeRefusal("a.wav", .zeroFrames).toolError(path: "")
                == ToolError(.noAudio, "“a.wav” holds no audio: its header says it is 0 frames long.",
                             suggestion: "Pick a music or voice file that has sound in it."))
    }
}
