import Foundation
import Testing
@testable import JSONValue

/// lufs-measure --dialogue on a few cases of the held-out TEST set of Tests/Bench/dialogue_categories.py
/// (real recordings from Debian packages; no constant of the detector was chosen on them): the
/// targets that hold there, per category. The bench prints every category and bed.
@Suite struct DialogueCategoriesE2ETests {
    /// The material's work folder, the packages unpacked in set-up (nil, and the test disabled,
    /// when apt-get can't fetch them).
    static let material: String? = {
        guard E2E.has("apt-get"), E2E.has("dpkg-deb"), E2E.has("sox"), E2E.has("soxi"), E2E.has("ffmpeg"), E2E.has("python3") else { return nil }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("audio-tools-dialogue-categories").path
        try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let script = DialogueE2ETests.root.appendingPathComponent("Tests/Bench").path
        guard let r = try? E2E.program("/usr/bin/env", ["python3", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import dialogue_categories as m; m.Material('', sys.argv[2])", script, work]),
              r.status == 0 else { return nil }
        return work
    }()

    /// (case, what it must meet): SET:CATEGORY:LAYOUT:BED for the script.
    static let cases: [(String, (JSON) -> [String])] = [
        ("test:clean:stereo:-5", { c in loudness(c, within: 0.5) + found(c, atLeast: 0.9) + falseDialogue(c, atMost: 0.05) }),
        ("test:music-effects:stereo:0", { c in loudness(c, within: 1.0) + falseDialogue(c, atMost: 0.05) }),
        ("test:band-limited:stereo:-5", { c in loudness(c, within: 0.5) + found(c, atLeast: 0.85) + falseDialogue(c, atMost: 0.05) }),
        ("test:transients:stereo:-5", { c in loudness(c, within: 0.5) + falseDialogue(c, atMost: 0.01) }),
        ("test:applause-laughter:stereo:-10", { c in loudness(c, within: 0.5) + falseDialogue(c, atMost: 0.05) }),
        ("test:languages:5.1:-10", { c in loudness(c, within: 0.5) + found(c, atLeast: 0.9) }),
    ]

    static func loudness(_ c: JSON, within limit: Double) -> [String] {
        guard let e = c["error_lu"]?.doubleValue else { return ["no dialogue loudness"] }
        return abs(e) <= limit ? [] : ["dialogue loudness \(e) LU off, over ±\(limit)"]
    }
    static func found(_ c: JSON, atLeast share: Double) -> [String] {
        let f = c["found"]?.doubleValue ?? 0
        return f >= share ? [] : ["found \(f), under \(share)"]
    }
    static func falseDialogue(_ c: JSON, atMost share: Double) -> [String] {
        guard case .object(let o)? = c["false"] else { return ["no false-dialogue figures"] }
        return o.compactMap { k, v in (v.doubleValue ?? 1) <= share ? nil : "\(k) taken for dialogue \(v), over \(share)" }
    }

    @Test(.enabled(if: DialogueE2ETests.weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"),
          .enabled(if: material != nil, "apt-get could not fetch the packages of the category material (asterisk-core-sounds-*, hedgewars-data, wesnoth-1.16-data, chromium-bsu-data, openttd-opensfx...), or sox, ffmpeg or python3 is missing"))
    func heldOutCategoriesMeetTheirTargets() throws {
        let work = try #require(Self.material)
        let script = DialogueE2ETests.root.appendingPathComponent("Tests/Bench/dialogue_categories.py").path
        let r = try E2E.program("/usr/bin/env", ["python3", script, E2E.binDir.path, work] + Self.cases.map(\.0))
        #expect(r.status == 0, "\(r.stderr)")
        let results = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
        #expect(results.count == Self.cases.count)
        for (c, (name, check)) in zip(results, Self.cases) {
            let misses = check(c)
            #expect(misses.isEmpty, "\(name): \(misses.joined(separator: "; ")) — \(c)")
        }
    }
}
