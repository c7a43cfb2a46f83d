import Foundation
import Testing

/// docs/library.md's example program, built as another package builds it: a package of its own
/// in a temporary folder, depending on this checkout by path and on the `AudioSignal` product
/// only, built with `swift build` and run. Its numbers are checked against what its signals are.
@Suite struct LibraryExampleE2ETests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The `swift` driver on PATH, if any.
    static let swift: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The body of the one ```swift block marked `<!-- example: main.swift -->`.
    static func example(in text: String) throws -> String {
        let lines = text.components(separatedBy: "\n")
        let marks = lines.indices.filter { lines[$0].trimmingCharacters(in: .whitespaces) == "<!-- example: main.swift -->" }
        guard marks.count == 1 else { throw DocExamples.DocError("docs/library.md has \(marks.count) example marks, not one") }
        guard marks[0] + 1 < lines.count, lines[marks[0] + 1].hasPrefix("```swift"),
              let end = lines[(marks[0] + 2)...].firstIndex(where: { $0.hasPrefix("```") }) else {
            throw DocExamples.DocError("docs/library.md: the example mark is not followed by a ```swift block")
        }
        return lines[(marks[0] + 2)..<end].joined(separator: "\n") + "\n"
    }

    /// The `key=value` pairs of the printed line that starts with `label:`.
    static func values(_ output: String, _ label: String) -> [String: String] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(label + ":") }) else { return [:] }
        var pairs: [String: String] = [:]
        for word in line.split(separator: " ") {
            let kv = word.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { pairs[String(kv[0])] = String(kv[1]) }
        }
        return pairs
    }

    /// A package named after this checkout's product user: the example as its only source.
    static func makePackage(at dir: String, example: String) throws {
        let manifest = """
        // swift-tools-version:5.10
        import PackageDescription

        let package = Package(
            name: "library-example",
            dependencies: [.package(name: "audio-tools", path: \(String(reflecting: root.path)))],
            targets: [
                .executableTarget(name: "example", dependencies: [
                    .product(name: "AudioSignal", package: "audio-tools"),
                ]),
            ]
        )

        """
        try FileManager.default.createDirectory(atPath: dir + "/Sources/example", withIntermediateDirectories: true)
        try manifest.write(toFile: dir + "/Package.swift", atomically: true, encoding: .utf8)
        try example.write(toFile: dir + "/Sources/example/main.swift", atomically: true, encoding: .utf8)
    }

    @Test(.enabled(if: swift != nil, "needs the swift toolchain on PATH to build the example against the product"))
    func exampleBuildsAgainstTheProductAndPrintsTheNumbers() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let dir = E2E.tempDir("library")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makePackage(at: dir, example: try Self.example(in: doc))

        // Its own scratch folder (no fight over the suite's build lock); nothing to fetch: the
        // only dependency is this checkout, by path.
        let build = try E2E.program(Self.swift!, ["build", "--package-path", dir, "--scratch-path", dir + "/.build",
                                                  "--disable-automatic-resolution", "--product", "example"])
        try #require(build.status == 0, "swift build failed:\n\(String(decoding: build.stdout, as: UTF8.self))\n\(build.stderr)")
        let run = try E2E.program(dir + "/.build/debug/example", [])
        let out = String(decoding: run.stdout, as: UTF8.self)
        try #require(run.status == 0, "the example failed:\n\(out)\n\(run.stderr)")

        func number(_ label: String, _ key: String) -> Double? { Self.values(out, label)[key].flatMap(Double.init) }
        func near(_ label: String, _ key: String, _ expected: Double, _ within: Double,
                  sourceLocation: SourceLocation = #_sourceLocation) {
            let v = number(label, key)
            #expect(v.map { abs($0 - expected) <= within } == true,
                    "\(label) \(key) = \(v.map { "\($0)" } ?? "missing"), expected \(expected) ± \(within)\n\(out)",
                    sourceLocation: sourceLocation)
        }

        // A 997 Hz sine at −23 dBFS in both channels of stereo is −23.0 LUFS (EBU Tech 3341,
        // case 1): steady, so every window reads the same, no range, and its true peak is its
        // amplitude.
        for key in ["integrated", "momentary-max", "short-term-max", "true-peak"] { near("sine", key, -23, 0.05) }
        near("sine", "range", 0, 0.05)
        for key in ["momentary", "short-term"] { near("now", key, -23, 0.05) }
        let samplePeak = number("sine", "sample-peak") ?? 0
        #expect(samplePeak <= (number("sine", "true-peak") ?? -99) && samplePeak > -23.1, "\(out)")

        // The gain plan is the distance to the target, and the burst needs the limiter. The
        // limiter holds the peaks under the ceiling and gives back exactly the frames it took.
        // It takes the burst's loudness away, so the first pass lands between the sine's own
        // loudness at that gain and the target; the second, with the shortfall made up, on it.
        let measured = number("plan", "measured") ?? 0, gain = number("plan", "gain") ?? 0
        near("plan", "gain", -16 - measured, 0.011)
        #expect(Self.values(out, "plan")["limiter"] == "true" && (number("plan", "predicted-peak") ?? -99) > -1, "\(out)")
        #expect((number("limiter", "frames-limited") ?? 0) > 0, "\(out)")
        let first = number("first", "integrated") ?? 0
        #expect(first >= -23 + gain - 0.1 && first <= -15.99, "\(out)")
        near("second", "integrated", -16, 0.1)
        for label in ["first", "second"] { #expect((number(label, "true-peak") ?? 0) <= -1.0, "\(out)") }
        #expect(number("second", "frames") == Double(12 * 48_000), "\(out)")

        // The backing leaks in 1234 samples (25.71 ms) late, on the take's own clock: no drift,
        // so the converter that throws is never called.
        near("aligned", "latency-samples", 1234, 0.5)
        near("aligned", "latency-ms", 1234.0 / 48, 0.02)
        let drift = Self.values(out, "aligned")["drift-ppm"]
        #expect(drift == "none" || drift.flatMap(Double.init).map { abs($0) < 1 } == true, "\(out)")
        #expect((number("aligned", "confidence") ?? 0) >= 0.5, "\(out)")
    }
}
