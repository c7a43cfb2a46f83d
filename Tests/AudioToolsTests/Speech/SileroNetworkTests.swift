import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct SileroNetworkTests {
    /// Speech, then a tone with noise, then speech over the tone: a signal that moves the
    /// probability both ways. Deterministic (a fixed-seed generator).
    static func material() -> [Float]? {
        guard let speech = SpeechTestSupport.espeak("The quick brown fox jumps over the lazy dog. Then it sleeps for a while.") else { return nil }
        var rng = SplitMix64(seed: 7)
        let n = speech.count * 3
        var x = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let noise = Float(Double(rng.next() % 2001) / 1000 - 1) * 0.01
            let tone = i >= speech.count ? Float(0.2 * sin(2 * Double.pi * 440 * Double(i) / 16000)) : 0
            var s: Float = 0
            if i < speech.count { s = speech[i] } else if i >= 2 * speech.count { s = speech[i - 2 * speech.count] }
            x[i] = s + tone + noise
        }
        return x
    }

    @Test(.enabled(if: SpeechTestSupport.prepared != nil, "the weights are not in .build/models (make speech-model)"),
          .enabled(if: SpeechTestSupport.onnxPython != nil, "no python3 venv with onnxruntime (python3 and PyPI needed)"),
          .enabled(if: SpeechTestSupport.which("espeak-ng") != nil && SpeechTestSupport.which("sox") != nil, "espeak-ng and sox make the speech"))
    func matchesOnnxRuntimeOnTheSameChunks() throws {
        let x = try #require(Self.material())
        let reference = try SpeechTestSupport.onnxProbabilities(x)
        let net = SileroNetwork(try #require(SpeechTestSupport.prepared))
        var ours: [Float] = []
        x.withUnsafeBufferPointer { p in
            var i = 0
            while i + 512 <= x.count { ours.append(net.probability(UnsafeBufferPointer(rebasing: p[i..<(i + 512)]))); i += 512 }
        }
        #expect(ours.count == reference.count)
        let worst = zip(ours, reference).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-3, "largest difference \(worst)")
        // The material must exercise both ends of the scale, or the comparison proves little.
        #expect((reference.max() ?? 0) > 0.8 && (reference.min() ?? 1) < 0.2)
    }

    @Test(.enabled(if: SpeechTestSupport.prepared != nil, "the weights are not in .build/models (make speech-model)"))
    func silenceIsNotSpeechAndResetRestarts() throws {
        let net = SileroNetwork(try #require(SpeechTestSupport.prepared))
        let zeros = [Float](repeating: 0, count: 512)
        let a = zeros.withUnsafeBufferPointer { net.probability($0) }
        #expect(a < 0.1)
        net.reset()
        let b = zeros.withUnsafeBufferPointer { net.probability($0) }
        #expect(a == b)
    }
}

@Suite struct SpeechModelFileTests {
    @Test func aMissingFileNamesWhereItWasLookedFor() {
        #expect(throws: SpeechModelError.missing(fileName: SpeechModelFile.fileName, searched: ["/nonexistent/a", "/nonexistent/b"])) {
            try SpeechModelFile.load(["/nonexistent/a", "/nonexistent/b"])
        }
    }

    @Test func aTruncatedFileIsRefusedNotUsed() throws {
        let path = NSTemporaryDirectory() + "speech-model-\(UUID().uuidString).safetensors"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SpeechModelError.damaged(path: path, reason: "it has 3 bytes, not 1289603")) { try SpeechModelFile.load([path]) }
    }

    @Test(.enabled(if: SpeechTestSupport.weights != nil, "the weights are not in .build/models (make speech-model)"))
    func thePinnedFileHasEveryTensorItsNetworkNeeds() throws {
        let w = try #require(SpeechTestSupport.weights)
        #expect(w.tensors.count == SileroWeights.shapes.count)
        #expect(w.tensors["lstm_cell.weight_ih"]?.shape == [512, 128])
    }

    @Test func theEnvironmentVariableWinsOverThePlacesBesideTheProgram() {
        #expect(SpeechModelFile.candidates(executable: "/opt/x/bin/lufs-measure", environment: ["AUDIO_TOOLS_SPEECH_MODEL": "/w/m.st"]) == ["/w/m.st"])
        let c = SpeechModelFile.candidates(executable: "/opt/x/bin/lufs-measure", environment: [:])
        #expect(c.first == "/opt/x/share/audio-tools/\(SpeechModelFile.fileName)")
        #expect(c.contains("/opt/x/models/\(SpeechModelFile.fileName)"))
    }

    /// The folder is the program's own, links resolved: an installed tool is a link to
    /// audio-tools (here in another tree), and the name it was called by plays no part.
    @Test func thePlacesAreBesideTheProgramsRealFile() throws {
        let dir = NSTemporaryDirectory() + "speech-candidates-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/usr/bin", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/links", withIntermediateDirectories: true)
        try #require(fm.createFile(atPath: dir + "/usr/bin/audio-tools", contents: Data()))
        try fm.createSymbolicLink(atPath: dir + "/usr/bin/lufs-measure", withDestinationPath: "audio-tools")
        try fm.createSymbolicLink(atPath: dir + "/links/lufs-measure", withDestinationPath: dir + "/usr/bin/lufs-measure")
        let real = URL(fileURLWithPath: dir).resolvingSymlinksInPath().path
        let name = SpeechModelFile.fileName
        let expected = [real + "/usr/share/audio-tools/" + name, real + "/usr/models/" + name, real + "/models/" + name]
        #expect(SpeechModelFile.candidates(executable: dir + "/links/lufs-measure", environment: [:]) == expected)
        #expect(SpeechModelFile.candidates(executable: dir + "/usr/bin/audio-tools", environment: [:]) == expected)
        // A build tree: .build/debug is a link to the triple's folder, whose ../../models is .build/models.
        let build = dir + "/.build"
        try fm.createDirectory(atPath: build + "/x86_64-unknown-linux-gnu/debug", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: build + "/debug", withDestinationPath: "x86_64-unknown-linux-gnu/debug")
        try #require(fm.createFile(atPath: build + "/debug/lufs-measure", contents: Data()))
        let c = SpeechModelFile.candidates(executable: build + "/debug/lufs-measure", environment: [:])
        #expect(c.contains(real + "/.build/models/" + name), "\(c)")
    }

    /// The running program is found by the kernel's link, whatever the process was called by.
    @Test func theRunningProgramIsAnAbsoluteExistingFile() {
        let exe = SpeechModelFile.runningExecutable()
        #expect(exe.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: exe), "\(exe)")
    }
}
