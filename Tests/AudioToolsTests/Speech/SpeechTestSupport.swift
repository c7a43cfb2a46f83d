import Foundation
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What the speech tests share: the pinned weights (from the build tree, where `make deps` puts
/// them), running a program, and a Python with onnxruntime made in a scratch venv for the
/// reference comparison.
enum SpeechTestSupport {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modelPath = root.appendingPathComponent(".build/models/\(SpeechModelFile.fileName)").path
    static let wheelPath = root.appendingPathComponent(".build/models/silero_vad-\(SpeechModelFile.detectorVersion)-py3-none-any.whl").path

    static let weights: SileroWeights? = try? SpeechModelFile.load([modelPath])
    static let prepared: SileroNetwork.Prepared? = weights.map { SileroNetwork.Prepared($0) }

    @discardableResult
    static func run(_ exe: String, _ args: [String]) -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return (-1, "\(error)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func which(_ name: String) -> String? {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        return nil
    }

    /// A venv with onnxruntime and numpy (made once per machine in the temporary folder), or nil
    /// when python3 or PyPI is not there.
    static let onnxPython: String? = {
        guard let py = which("python3"), FileManager.default.fileExists(atPath: wheelPath) else { return nil }
        let venv = NSTemporaryDirectory() + "audio-tools-onnx-venv"
        let python = venv + "/bin/python"
        if run(python, ["-c", "import onnxruntime, numpy"]).status == 0 { return python }
        guard run(py, ["-m", "venv", venv]).status == 0,
              run(python, ["-m", "pip", "install", "--quiet", "onnxruntime", "numpy"]).status == 0,
              run(python, ["-c", "import onnxruntime, numpy"]).status == 0 else { return nil }
        return python
    }()

    /// The wheel's ONNX model (16 kHz) run by onnxruntime over `samples` in 512-sample chunks with
    /// 64 of context, as the package's own wrapper feeds it: one probability per chunk.
    static func onnxProbabilities(_ samples: [Float]) throws -> [Float] {
        guard let python = onnxPython else { return [] }
        let dir = NSTemporaryDirectory() + "speech-ref-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try samples.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: dir + "/in.f32"))
        let script = """
        import sys, zipfile, numpy as np, onnxruntime as ort
        wheel, raw, out = sys.argv[1:4]
        model = zipfile.ZipFile(wheel).read("silero_vad/data/silero_vad.onnx")
        o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1
        s = ort.InferenceSession(model, sess_options=o, providers=["CPUExecutionProvider"])
        x = np.fromfile(raw, dtype=np.float32)
        state = np.zeros((2, 1, 128), dtype=np.float32); ctx = np.zeros(64, dtype=np.float32); p = []
        for i in range(0, len(x) - 511, 512):
            inp = np.concatenate([ctx, x[i:i + 512]])[None, :].astype(np.float32)
            r, state = s.run(None, {"input": inp, "state": state, "sr": np.array(16000, dtype=np.int64)})
            p.append(float(r[0, 0])); ctx = inp[0, -64:]
        np.array(p, dtype=np.float32).tofile(out)
        """
        try script.write(toFile: dir + "/ref.py", atomically: true, encoding: .utf8)
        let r = run(python, [dir + "/ref.py", wheelPath, dir + "/in.f32", dir + "/out.f32"])
        guard r.status == 0, let data = FileManager.default.contents(atPath: dir + "/out.f32") else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: r.out])
        }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Speech spoken by espeak-ng at 16 kHz, as floats (nil without espeak-ng).
    static func espeak(_ text: String) -> [Float]? {
        guard let e = which("espeak-ng"), let sox = which("sox") else { return nil }
        let dir = NSTemporaryDirectory() + "speech-say-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard run(e, ["-w", dir + "/s.wav", text]).status == 0,
              run(sox, [dir + "/s.wav", "-r", "16000", "-e", "float", "-b", "32", "-t", "raw", dir + "/s.f32"]).status == 0,
              let d = FileManager.default.contents(atPath: dir + "/s.f32") else { return nil }
        return d.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
