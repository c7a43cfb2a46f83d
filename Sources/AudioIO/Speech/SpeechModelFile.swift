import AudioSignal
import Foundation

/// The pinned weights of the speech detector: Silero VAD's 16 kHz network, as the
/// `silero_vad_16k_op15.onnx` file of the `silero-vad` wheel the Makefile fetches (MIT licence).
/// Its weights are the package's default model's (the same as its TorchScript file); the wheel's
/// `silero_vad_16k.safetensors` holds other weights that onnxruntime's reference does not run.
/// Found through `AUDIO_TOOLS_SPEECH_MODEL` (a path to the file), next to the program
/// (`../share/audio-tools/`), or in the build tree (`.build/models/`); checked by size and
/// XXH64 so that a truncated or different file is refused, never used.
public enum SpeechModelFile {
    public static let fileName = "silero_vad_16k_op15.onnx"
    /// The detector as records name it, and the version of the package the weights come from.
    public static let detectorName = "silero-vad-16k"
    public static let detectorVersion = "6.2.3"
    public static let environmentVariable = "AUDIO_TOOLS_SPEECH_MODEL"
    package static let expectedSize = 1_289_603
    package static let expectedDigest = "6d2948a56e64b4d83f4547f4"

    /// The places looked in, in order: the environment variable, beside the program, the build tree.
    /// `executable` is the running program's file: its folder is taken with links resolved (an
    /// installed tool is a link to audio-tools; a build tree's .build/debug is a link to the
    /// triple's folder), never from the name it was called by, which may be a bare name on PATH.
    public static func candidates(executable: String = runningExecutable(),
                                  environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let p = environment[environmentVariable], !p.isEmpty { return [p] }
        let dir = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var out: [String] = []
        for rel in ["../share/audio-tools/", "../models/", "../../models/"] {
            let p = dir.appendingPathComponent(rel + fileName).standardizedFileURL.path
            if !out.contains(p) { out.append(p) }
        }
        return out
    }

    /// The running program's own file, whatever name it was called by: the kernel's
    /// /proc/self/exe where there is one, else Foundation's idea of it.
    public static func runningExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
    }

    /// The weights, read and checked once per process.
    public static func shared() throws -> SileroWeights { try loaded.get() }
    private static let loaded: Result<SileroWeights, SpeechModelError> = Result { try load(candidates()) }
        .mapError { $0 as? SpeechModelError ?? .damaged(path: fileName, reason: "\($0)") }

    /// The first candidate that exists, checked and parsed.
    public static func load(_ paths: [String]) throws -> SileroWeights {
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw SpeechModelError.missing(fileName: fileName, searched: paths)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SpeechModelError.damaged(path: path, reason: "it cannot be read")
        }
        let bytes = [UInt8](data)
        guard bytes.count == expectedSize else {
            throw SpeechModelError.damaged(path: path, reason: "it has \(bytes.count) bytes, not \(expectedSize)")
        }
        guard XXHash64.hex96(of: bytes) == expectedDigest else {
            throw SpeechModelError.damaged(path: path, reason: "its checksum differs from the pinned file's")
        }
        return try SileroWeights(onnx: bytes, path: path)
    }
}
