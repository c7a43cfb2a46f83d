import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Every record form the tools write, made from real material, validated against its JSON Schema
/// in docs/schema/ by a real validator (python3-jsonschema, draft 2020-12), one validator process
/// per batch of lines; and the schemas themselves checked against the draft's meta-schema and
/// linked from docs/records.md.
@Suite struct SchemaE2ETests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schemaDir = root.appendingPathComponent("docs/schema").path

    /// A python3 whose jsonschema knows draft 2020-12: Debian's (what `make test-deps` installs)
    /// first, then the first python3 in PATH.
    static let python: String? = {
        var candidates = ["/usr/bin/python3"]
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(dir)/python3")
        }
        return candidates.first { p in
            guard FileManager.default.isExecutableFile(atPath: p),
                  let r = try? E2E.program(p, ["-c", "from jsonschema import Draft202012Validator"]) else { return false }
            return r.status == 0
        }
    }()
    static let noValidator: Comment = "no python3 with jsonschema for draft 2020-12 (Debian: python3-jsonschema; make test-deps)"

    /// The validator. `meta DIR`: each schema in DIR against the draft's meta-schema, and each
    /// `$ref` resolved. `NAME DIR FILE`: each line of FILE against DIR/NAME. Prints one line per
    /// problem and exits 1 when there is any.
    static let script = #"""
    import json, os, sys
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
    mode, folder = sys.argv[1], os.path.abspath(sys.argv[2])
    schemas = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                schemas[name] = json.load(f)
    def uri(name):
        return "file://" + os.path.join(folder, name)
    def with_id(name):
        return dict(schemas[name], **{"$id": uri(name)})
    def validator(name):
        try:
            from referencing import Registry, Resource
            reg = Registry().with_resources([(uri(n), Resource.from_contents(with_id(n))) for n in schemas])
            return Draft202012Validator(with_id(name), registry=reg)
        except ImportError:
            from jsonschema import RefResolver
            store = {uri(n): with_id(n) for n in schemas}
            return Draft202012Validator(with_id(name), resolver=RefResolver(uri(name), with_id(name), store=store))
    def where(e):
        return "/".join(map(str, e.absolute_path)) or "(top)"
    problems = []
    if mode == "meta":
        meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
        def refs(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k == "$ref" and isinstance(v, str): yield v
                    else: yield from refs(v)
            elif isinstance(x, list):
                for v in x: yield from refs(v)
        for name, s in schemas.items():
            if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
                problems.append("%s: $schema is not draft 2020-12" % name)
            for e in meta.iter_errors(s):
                problems.append("%s: %s: %s" % (name, where(e), e.message))
            for r in refs(s):
                target, _, pointer = r.partition("#")
                doc = schemas.get(target) if target else s
                if doc is None:
                    problems.append("%s: $ref %s: no such schema file" % (name, r)); continue
                for part in [p for p in pointer.split("/") if p]:
                    doc = doc.get(part) if isinstance(doc, dict) else None
                if doc is None:
                    problems.append("%s: $ref %s points to nothing" % (name, r))
        print("%d schemas checked" % len(schemas))
    else:
        v = validator(mode)
        count = 0
        with open(sys.argv[3], encoding="utf-8") as f:
            for n, line in enumerate(f.read().splitlines(), 1):
                count += 1
                try:
                    record = json.loads(line)
                except ValueError as e:
                    problems.append("line %d: not JSON (%s): %s" % (n, e, line[:300])); continue
                for e in v.iter_errors(record):
                    e = best_match(e.context) if e.context else e
                    problems.append("line %d: %s: %s\n  in %s" % (n, where(e), e.message[:300], line[:300]))
        print("%d lines checked against %s" % (count, mode))
    for p in problems: print(p)
    sys.exit(1 if problems else 0)
    """#

    /// Runs the validator once over `lines` against `schema`: whether all are valid, and what it said.
    static func validate(_ lines: [String], against schema: String) throws -> (valid: Bool, said: String) {
        let dir = E2E.tempDir("schema-lines")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/lines.jsonl"
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let r = try E2E.program(python!, ["-c", script, schema, schemaDir, file])
        return (r.status == 0, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
    }

    /// The record lines of one tool's runs, and the error codes among them.
    struct Batch {
        var tool: String
        var lines: [String] = []
        var codes: Set<String> = []

        init(_ tool: String) { self.tool = tool }

        /// Runs the tool (`what` names the run in a failure) and keeps its lines.
        mutating func run(_ what: String, _ args: [String], stdin: String? = nil) throws {
            add(try E2E.run(tool, args, stdin: stdin), what)
        }

        /// Runs the tool with `path`'s bytes on standard input.
        mutating func pipe(_ what: String, _ path: String, _ args: [String]) throws {
            let p = try E2E.program("/bin/sh", ["-c", "f=\"$1\"; shift; exec \"$0\" \"$@\" < \"$f\"",
                                                E2E.binDir.path + "/" + tool, path] + args)
            add(E2E.Run(status: p.status, stdout: String(decoding: p.stdout, as: UTF8.self), stderr: p.stderr), what)
        }

        mutating func add(_ r: E2E.Run, _ what: String) {
            #expect(r.status == 0 || r.status == 1, "\(what): exit status \(r.status): \(r.stderr)")
            let new = r.stdout.split(separator: "\n").map(String.init)
            #expect(!new.isEmpty, "\(what) wrote no record: \(r.stderr)")
            lines += new
            for rec in r.records { if let c = rec["error"]?["code"]?.stringValue { codes.insert(c) } }
        }

        /// Validates the lines against the tool's schema, failing with the validator's words, and
        /// checks that the runs reached the refusals `expected`.
        func check(codes expected: Set<String> = [], schema: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(expected.isSubset(of: codes), "refusals not reached: \(expected.subtracting(codes).sorted())",
                    sourceLocation: sourceLocation)
            let name = schema ?? tool + ".schema.json"
            let v = try SchemaE2ETests.validate(lines, against: name)
            #expect(v.valid, "\(name):\n\(v.said)", sourceLocation: sourceLocation)
        }
    }

    /// ffmpeg with its output quiet; true when it wrote `args`' output.
    static func ffmpeg(_ args: [String]) throws -> Bool {
        try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-y"] + args).status == 0
    }

    /// Input lines that aren't records: not JSON, not an object, no path, a newer schema, a
    /// schema that isn't an integer, a path that isn't a string, and a record with extra fields.
    static func badInput(_ good: String) -> String {
        ["{not json", "[1,2]", #"{"no":"path"}"#, #"{"path":"\#(good)","schema":2}"#,
         #"{"path":"\#(good)","schema":"x"}"#, #"{"path":5}"#,
         #"{"path":"\#(good)","extra":{"k":[1,"a",null]},"n":1.50}"#].joined(separator: "\n") + "\n"
    }

    /// Plain audio for every tool: noise, a mono tone, silence, a second, a 5.1 file, a loud
    /// master, a clipped one, a text file named .wav, an empty file and a cut-off WAV.
    static func material(_ dir: String) throws {
        var rng = SplitMix64(seed: 48)
        func noise(_ seconds: Double, _ dB: Double) -> [Float] {
            let a = Float(pow(10, dB / 20))
            return (0..<Int(seconds * 48000)).map { _ in a * Float(rng.uniform(-1, 1)) }
        }
        let n = noise(4, -20)
        try E2E.write(dir + "/noise.wav", rate: 48000, channels: [n, n.reversed()])
        try E2E.write(dir + "/mono.wav", rate: 44100, channels: [E2E.sine(997, dBFS: -12, seconds: 3, rate: 44100)], codec: "pcm_s16")
        let zero = [Float](repeating: 0, count: 96000)
        try E2E.write(dir + "/silence.wav", rate: 48000, channels: [zero, zero])
        try E2E.write(dir + "/short.wav", rate: 48000, channels: [noise(1, -20), noise(1, -20)])
        try E2E.write(dir + "/surround.wav", rate: 48000, channels: (0..<6).map { _ in noise(4, -24) })
        let loud = noise(4, -2)
        try E2E.write(dir + "/loud.wav", rate: 48000, channels: [loud, loud.reversed()])
        let clipped = E2E.sine(997, dBFS: 6, seconds: 3, rate: 48000).map { min(max($0, -1), 1) }
        try E2E.write(dir + "/clipped.wav", rate: 48000, channels: [clipped, clipped], codec: "pcm_s16")
        try Data("not audio\n".utf8).write(to: URL(fileURLWithPath: dir + "/text.wav"))
        _ = FileManager.default.createFile(atPath: dir + "/empty.wav", contents: Data())
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/noise.wav"))
        try whole.prefix(60000).write(to: URL(fileURLWithPath: dir + "/cut.wav"))
    }

    /// Lossy and media files made by ffmpeg: MP3 with tags, M4A (AAC), Opus, Ogg Vorbis, FLAC, an
    /// MKV with a video and two FLAC audio streams, an MP4 with two AAC streams, and a silent MP4.
    static func mediaMaterial(_ dir: String) throws {
        let noise = ["-f", "lavfi", "-i", "anoisesrc=d=4:a=0.05:seed=7"]
        let video = ["-f", "lavfi", "-i", "testsrc=d=4:s=64x48"]
        #expect(try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=4", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k",
                            "-metadata", "title=Tone", "-metadata", "artist=Someone", "-metadata", "album=Tests", dir + "/tone.mp3"]))
        #expect(try ffmpeg(noise + ["-ac", "2", "-c:a", "aac", "-b:a", "128k", dir + "/noise.m4a"]))
        #expect(try ffmpeg(noise + ["-ac", "2", "-c:a", "libopus", "-b:a", "96k", dir + "/noise.opus"]))
        #expect(try ffmpeg(["-f", "lavfi", "-i", "sine=f=330:d=3", "-c:a", "libvorbis", dir + "/tone.ogg"]))
        #expect(try ffmpeg(["-i", dir + "/noise.wav", "-c:a", "flac", dir + "/noise.flac"]))
        #expect(try ffmpeg(video + ["-f", "lavfi", "-i", "sine=f=220:d=4", "-i", dir + "/noise.wav", "-map", "0", "-map", "1",
                                    "-map", "2", "-c:v", "mpeg4", "-c:a", "flac", "-metadata:s:a:1", "language=eng",
                                    "-metadata:s:a:1", "title=Dialogue", "-shortest", dir + "/film.mkv"]))
        #expect(try ffmpeg(video + noise + ["-f", "lavfi", "-i", "sine=f=300:d=4", "-map", "0", "-map", "1", "-map", "2",
                                            "-c:v", "mpeg4", "-c:a", "aac", "-ac", "2", "-shortest", dir + "/two.mp4"]))
        #expect(try ffmpeg(["-f", "lavfi", "-i", "testsrc=d=2:s=64x48", "-c:v", "mpeg4", "-an", dir + "/silent.mp4"]))
    }

    static let tools = E2E.has("ffmpeg") && E2E.has("ffprobe")

    // MARK: - The schemas themselves

    @Test(.enabled(if: python != nil, noValidator))
    func everySchemaIsValidDraft202012() throws {
        let r = try E2E.program(Self.python!, ["-c", Self.script, "meta", Self.schemaDir])
        #expect(r.status == 0, "\(String(decoding: r.stdout, as: UTF8.self))\(r.stderr)")
        // The check itself finds a broken schema and a $ref to nothing.
        let dir = E2E.tempDir("schema-broken")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broken = #"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"nonsense","#
            + #""properties":{"a":{"$ref":"other.schema.json#/$defs/x"}}}"#
        try broken.write(toFile: dir + "/broken.schema.json", atomically: true, encoding: .utf8)
        let b = try E2E.program(Self.python!, ["-c", Self.script, "meta", dir])
        let said = String(decoding: b.stdout, as: UTF8.self)
        #expect(b.status == 1 && said.contains("broken.schema.json: type:") && said.contains("no such schema file"),
                "\(said)\(b.stderr)")
    }

    @Test func recordsPageLinksEverySchemaAndEachLinkResolves() throws {
        let docs = Self.root.appendingPathComponent("docs").path
        let page = try String(contentsOfFile: docs + "/records.md", encoding: .utf8)
        let links = page.components(separatedBy: "](").dropFirst()
            .compactMap { $0.split(separator: ")").first.map(String.init) }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemaDir).filter { $0.hasSuffix(".json") }
        #expect(!files.isEmpty)
        let linked = Set(links.filter { $0.hasPrefix("schema/") }.map { String($0.dropFirst("schema/".count)) })
        #expect(linked == Set(files), """
            schemas not linked from records.md: \(Set(files).subtracting(linked).sorted()); \
            links to no schema: \(linked.subtracting(files).sorted())
            """)
        for link in links where !link.contains("://") {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file = parts[0].isEmpty ? docs + "/records.md" : docs + "/" + parts[0]
            #expect(FileManager.default.fileExists(atPath: file), "records.md links to \(link), which doesn't exist")
            if parts.count == 2, file.hasSuffix(".md"), let text = try? String(contentsOfFile: file, encoding: .utf8) {
                #expect(Self.anchors(text).contains(parts[1]), "records.md links to \(link): no such heading")
            }
        }
    }

    /// The lists a schema repeats from the code (error codes, presets, platforms, peak modes) are
    /// the code's, in its order, and records.md's table of codes is the same list.
    @Test func schemaListsAreTheCodesLists() throws {
        func schema(_ name: String) throws -> JSON {
            try JSON.parse(String(contentsOfFile: Self.schemaDir + "/" + name, encoding: .utf8))
        }
        func strings(_ v: JSON?) -> [String] { v?.arrayValue?.compactMap(\.stringValue) ?? [] }
        let codes = ErrorCode.allCases.map(\.rawValue)
        #expect(strings(try schema("common.schema.json")["$defs"]?["errorCode"]?["enum"]) == codes)
        let page = try String(contentsOfFile: Self.root.appendingPathComponent("docs/records.md").path, encoding: .utf8)
        let table = page.components(separatedBy: "\n## Errors\n").last?.components(separatedBy: "\n## ").first ?? ""
        let documented = table.split(separator: "\n").filter { $0.hasPrefix("| `") }
            .compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        #expect(documented == codes, "records.md's table of error codes")
        let measure = try schema("lufs-measure.schema.json"), normalize = try schema("lufs-normalize.schema.json")
        let presets = LoudnessPreset.all.map(\.name)
        func property(_ s: JSON, _ def: String, _ key: String) -> JSON? { s["$defs"]?[def]?["properties"]?[key] }
        #expect(strings(property(measure, "gate", "preset")?["anyOf"]?.arrayValue?.first?["enum"]) == presets)
        #expect(strings(property(normalize, "audioFile", "preset")?["anyOf"]?.arrayValue?.first?["enum"]) == presets)
        #expect(strings(property(measure, "platform", "name")?["enum"]) == PlatformProfile.all.map(\.name))
        #expect(strings(property(normalize, "audioFile", "peak_mode")?["enum"]) == PeakMode.allCases.map(\.rawValue))
    }

    /// The anchors of a Markdown page's headings, as GitHub makes them: lower case, letters,
    /// digits, `-` and `_` kept, spaces as `-`, everything else dropped.
    static func anchors(_ markdown: String) -> Set<String> {
        var out: Set<String> = []
        var fenced = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.drop { $0 == " " }
            var slug = ""
            for ch in title.lowercased() {
                if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" { slug.append(ch) } else if ch == " " { slug.append("-") }
            }
            out.insert(slug)
        }
        return out
    }

    @Test(.enabled(if: python != nil, noValidator))
    func aRecordOffItsSchemaFailsWithTheValidatorsWords() throws {
        let dir = E2E.tempDir("schema-off")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [E2E.sine(997, dBFS: -20, seconds: 1, rate: 48000)])
        let line = try E2E.run("lufs-measure", [dir + "/a.wav"]).stdout.split(separator: "\n").map(String.init)
        #expect(try Self.validate(line, against: "lufs-measure.schema.json").valid)
        let extra = line.map { $0.replacingOccurrences(of: #""dual_mono":false"#, with: #""dual_mono":false,"dualmono":1"#) }
        let v = try Self.validate(extra, against: "lufs-measure.schema.json")
        #expect(!v.valid && v.said.contains("'dualmono' was unexpected"), "\(v.said)")
        let typed = line.map { $0.replacingOccurrences(of: #""sample_rate":48000"#, with: #""sample_rate":"48000""#) }
        let t = try Self.validate(typed, against: "lufs-measure.schema.json")
        #expect(!t.valid && t.said.contains("loudness/sample_rate"), "\(t.said)")
    }

    // MARK: - The tools' records

    static let mediaTools: Comment = "ffmpeg and ffprobe make and read the media files"

    @Test(.enabled(if: python != nil, noValidator), .enabled(if: tools, mediaTools))
    func lufsMeasureRecordsMatchTheirSchema() throws {
        let dir = E2E.tempDir("schema-measure")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir)
        try Self.mediaMaterial(dir)
        for (name, dB) in [("a/1.wav", -10.0), ("a/2.wav", -20), ("b/1.wav", -14)] {
            try FileManager.default.createDirectory(atPath: dir + "/album/" + name.prefix(1), withIntermediateDirectories: true)
            let s = E2E.sine(440, dBFS: dB, seconds: 2, rate: 44100)
            try E2E.write(dir + "/album/" + name, rate: 44100, channels: [s, s], codec: "pcm_s16")
        }
        let d = { (names: String) in names.split(separator: " ").map { dir + "/" + $0 } }
        let files = d("noise.wav mono.wav silence.wav short.wav surround.wav clipped.wav tone.mp3 noise.m4a noise.opus "
                      + "tone.ogg noise.flac film.mkv two.mp4")
        var b = Batch("lufs-measure")
        try b.run("plain", files)
        try b.run("a preset gate", ["--preset", "ebu-r128"] + files)
        try b.run("a gate of its own", ["--target", "-20", "--tolerance", "2", "--max-true-peak", "-3", "--max-short-term", "-18",
                                        "--max-momentary", "-10"] + d("noise.wav short.wav silence.wav"))
        try b.run("--timeline --platforms", ["--timeline", "--platforms"] + d("noise.wav silence.wav short.wav loud.wav film.mkv"))
        try b.run("--album --platforms", ["--album", "--platforms", "--timeline"] + d("album"))
        try b.run("--album-by folder", ["--album", "--album-by", "folder"] + d("album noise.wav"))
        try b.run("--per-channel --timeline-csv", ["--per-channel", "--timeline-csv", dir + "/csv"] + d("noise.wav silence.wav short.wav surround.wav film.mkv"))
        try b.run("--qc", ["--qc"] + d("noise.wav mono.wav silence.wav clipped.wav surround.wav"))
        try b.run("QC gates", ["--qc-preset", "acx", "--max-clipped-runs", "0", "--max-overs", "0", "--min-correlation", "0.5",
                               "--no-dropouts", "--no-dead-channels", "--no-inverted-channels", "--preset", "podcast",
                               "--max-dc-offset", "-40", "--max-lra", "5"]
                  + d("noise.wav clipped.wav silence.wav mono.wav"))
        try b.run("--stream", ["--stream", "1", "--preset", "ebu-r128"] + d("film.mkv"))
        try b.run("--layout --dual-mono", ["--layout", "5.1", "--dual-mono"] + d("surround.wav mono.wav"))
        try b.run("--decode-only", ["--decode-only"] + d("noise.wav tone.mp3"))
        try b.pipe("standard input", dir + "/noise.wav", ["-"])
        try b.run("refusals", d("text.wav empty.wav cut.wav missing.wav silent.mp4"))
        try b.run("a stream the file doesn't have", ["--stream", "5"] + d("film.mkv"))
        try b.run("input that isn't records", [], stdin: Self.badInput(dir + "/noise.wav"))
        try b.check(codes: ["bad-input", "newer-schema", "not-found", "empty", "unrecognised", "truncated", "no-audio"])

        // --follow: its lines against their own schema, its final record against the record's.
        var follow = Batch("lufs-measure")
        try follow.pipe("--follow", dir + "/noise.wav", ["--follow", "--interval", "0.5", "--preset", "ebu-r128", "-"])
        let last = follow.lines.removeLast()
        #expect(follow.lines.count > 2 && last.hasPrefix(#"{"loudness""#), "\(follow.lines)")
        try follow.check(schema: "lufs-measure-follow.schema.json")
        let record = try Self.validate([last], against: "lufs-measure.schema.json")
        #expect(record.valid, "\(record.said)")
    }

    @Test(.enabled(if: python != nil, noValidator),
          .enabled(if: DialogueE2ETests.weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"),
          .enabled(if: E2E.has("espeak-ng") && E2E.has("sox"), "espeak-ng and sox make the speech"))
    func dialogueRecordsMatchTheirSchema() throws {
        let dir = E2E.tempDir("schema-dialogue")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try DialogueE2ETests.speech(dir))
        let tone = E2E.sine(440, dBFS: -20, seconds: 2, rate: 48000)
        let mono = tone + s.map { $0 * 0.5 } + tone
        try E2E.write(dir + "/speech.wav", rate: 48000, channels: [mono, mono])
        try E2E.write(dir + "/tone.wav", rate: 48000, channels: [tone + tone, tone + tone])
        let files = [dir + "/speech.wav", dir + "/tone.wav"]
        var m = Batch("lufs-measure")
        try m.run("--dialogue", ["--dialogue", "--timeline"] + files)
        let netflix = try E2E.run("lufs-measure", ["--preset", "netflix", "--platforms"] + files)
        m.add(netflix, "a dialogue-gated preset")
        try m.check()
        var n = Batch("lufs-normalize")
        try n.run("a dialogue-gated target", ["--preset", "netflix", "--out-dir", dir + "/out"], stdin: netflix.stdout)
        try n.check()
    }

    @Test(.enabled(if: python != nil, noValidator), .enabled(if: tools, mediaTools),
          .enabled(if: E2E.has("lame"), "lame encodes the MP3 output"))
    func lufsNormalizeRecordsMatchTheirSchema() throws {
        let dir = E2E.tempDir("schema-normalize")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir)
        try Self.mediaMaterial(dir)
        let d = { (names: String) in names.split(separator: " ").map { dir + "/" + $0 } }
        let out = { (name: String) in ["--out-dir", dir + "/out/" + name] }
        var b = Batch("lufs-normalize")
        try b.run("audio files", ["--preset", "social"] + out("plain") + d("noise.wav mono.wav silence.wav loud.wav short.wav surround.wav"))
        let measured = try E2E.run("lufs-measure", d("noise.wav loud.wav clipped.wav")).stdout
        try b.run("measured records", ["--preset", "ebu-r128"] + out("piped"), stdin: measured)
        try b.run("outputs that exist", ["--preset", "ebu-r128"] + out("piped"), stdin: measured)
        try b.run("--peak reduce", ["--target", "-10", "--peak", "reduce"] + out("reduce") + d("loud.wav"))
        try b.run("--peak ignore", ["--target", "-10", "--peak", "ignore", "--bit-depth", "float"] + out("ignore") + d("loud.wav"))
        try b.run("fades", ["--preset", "podcast", "--fade-in", "0.5", "--fade-out", "1", "--fade-curve", "exponential"]
                  + out("fades") + d("noise.wav"))
        let flac16 = ["--preset", "podcast", "--format", "flac", "--bit-depth", "16"]
        try b.run("fewer bits refused", flac16 + out("f16") + d("noise.wav"))
        try b.run("fewer bits allowed", flac16 + ["--allow-loss"] + out("f16a") + d("noise.wav"))
        let lossy = ["--preset", "podcast", "--allow-loss", "--format"]
        try b.run("MP3 output", lossy + ["mp3"] + out("mp3") + d("noise.wav loud.wav"))
        try b.run("Ogg output", lossy + ["ogg"] + out("ogg") + d("clipped.wav tone.ogg"))
        try b.run("M4A output", lossy + ["m4a"] + out("m4a") + d("noise.wav"))
        try b.run("--bit-rate", lossy + ["mp3", "--bit-rate", "192k"] + out("br") + d("noise.wav"))
        try b.run("--quality", lossy + ["m4a", "--quality", "1.5"] + out("q") + d("noise.wav"))
        try b.run("--channels", ["--preset", "podcast", "--allow-loss", "--channels", "1"] + out("ch") + d("surround.wav noise.wav"))
        try b.run("a media file at a bit rate", ["--preset", "podcast", "--allow-loss", "--bit-rate", "96k"] + out("mediabr") + d("two.mp4"))
        try b.run("AIFF output", ["--preset", "ebu-r128", "--format", "aiff"] + out("aiff") + d("surround.wav"))
        try b.run("a media file with two AAC streams", ["--preset", "podcast", "--allow-loss"] + out("media") + d("two.mp4"))
        try b.run("--stream", ["--preset", "podcast", "--stream", "1"] + out("stream") + d("film.mkv"))
        try b.run("--lossless-gain", ["--lossless-gain", "--target", "-16"] + out("lg")
                  + d("tone.mp3 noise.m4a noise.opus two.mp4 noise.wav"))
        try b.run("--undo-lossless-gain", ["--undo-lossless-gain"] + out("undo")
                  + ["tone.mp3", "noise.m4a", "noise.opus", "two.mp4"].map { dir + "/out/lg/" + $0 } + d("tone.mp3"))
        try b.run("--lossless-gain --dry-run", ["--lossless-gain", "--dry-run", "--target", "-16"] + out("lgd") + d("tone.mp3"))
        try b.run("--decode-encode-only", ["--decode-encode-only", "--target", "-16"] + out("deo") + d("noise.wav"))
        // Tags: a copy of each format, tagged for its track and then for its album.
        let tagged = "tone.mp3 noise.flac noise.opus tone.ogg noise.m4a mono.wav".split(separator: " ")
            .map { dir + "/tags/" + $0 }
        try FileManager.default.createDirectory(atPath: dir + "/tags", withIntermediateDirectories: true)
        for f in tagged { try FileManager.default.copyItem(atPath: dir + "/" + f.split(separator: "/").last!, toPath: f) }
        try b.run("--write-tags --dry-run", ["--write-tags", "--dry-run", "--target", "-16"] + tagged)
        try b.run("--write-tags", ["--write-tags"] + tagged)
        try b.run("--write-tags again", ["--write-tags"] + tagged)
        let album = try E2E.run("lufs-measure", ["--album", dir + "/tags"]).stdout
        try b.run("--album --write-tags", ["--album", "--write-tags"], stdin: album)
        try b.run("--remove-tags --dry-run", ["--remove-tags", "--dry-run", "--id3v2", "3"] + tagged)
        try b.run("--remove-tags", ["--remove-tags", "--id3v2", "3"] + tagged)
        try b.run("--remove-tags again", ["--remove-tags"] + tagged)
        try b.run("--album", ["--album", "--target", "-16"] + out("album"),
                  stdin: try E2E.run("lufs-measure", ["--album"] + d("noise.wav mono.wav")).stdout)
        // Refusals, and a measurement of a file that has changed since.
        try b.run("a lossy rate change refused", ["--preset", "social", "--sample-rate", "44100"] + out("rate") + d("noise.wav"))
        try b.run("refusals", ["--preset", "social"] + out("err") + d("text.wav empty.wav missing.wav silent.mp4 cut.wav"))
        let changing = dir + "/changing.wav"
        try FileManager.default.copyItem(atPath: dir + "/short.wav", toPath: changing)
        let stale = try E2E.run("lufs-measure", [changing]).stdout
        try FileManager.default.removeItem(atPath: changing)
        try FileManager.default.copyItem(atPath: dir + "/noise.wav", toPath: changing)
        try b.run("a stale measurement", ["--preset", "social"] + out("stale"), stdin: stale)
        try b.run("input that isn't records", ["--preset", "social"] + out("bad"), stdin: Self.badInput(dir + "/noise.wav"))
        try b.check(codes: ["bad-input", "newer-schema", "not-found", "empty", "unrecognised", "truncated", "no-audio", "exists",
                            "lossy", "stale-measurement", "unsupported-codec"])
        // --output -: the audio on standard output, the record on standard error.
        let toStdout = try E2E.program("/bin/sh", ["-c", "exec \"$0\" --preset social --output - \"$1\" > /dev/null",
                                                   E2E.binDir.path + "/lufs-normalize", dir + "/noise.wav"])
        let record = toStdout.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init)
        let v = try Self.validate(record, against: "lufs-normalize.schema.json")
        #expect(toStdout.status == 0 && record.count == 1 && v.valid, "\(toStdout.stderr)\n\(v.said)")
    }

    @Test(.enabled(if: python != nil, noValidator), .enabled(if: E2E.has("espeak-ng"), "espeak-ng makes the voice"))
    func voAlignRecordsMatchTheirSchema() throws {
        let dir = E2E.tempDir("schema-voalign")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let speech = try #require(try VoAlignMaterial.speech(rate: 48000))
        try VoAlignMaterial.writeReference(dir + "/ref.wav", seconds: 20, rate: 48000)
        try VoAlignMaterial.writeTake(dir + "/take.wav", seconds: 8, rate: 48000, latencyMS: 120, bleedDB: -20, speech: speech)
        try VoAlignMaterial.writeTake(dir + "/late.wav", seconds: 8, rate: 48000, latencyMS: 120, bleedDB: -20,
                                      startSeconds: 6, speech: speech)
        try VoAlignMaterial.writeTake(dir + "/dry.wav", seconds: 6, rate: 48000, latencyMS: 0, bleedDB: nil, speech: speech)
        let ref = ["--reference", dir + "/ref.wav"]
        let take = dir + "/take.wav", late = dir + "/late.wav"
        var b = Batch("vo-align")
        try b.run("bleed, no bleed, no file", ref + [take, dir + "/dry.wav", dir + "/missing.wav"])
        try b.run("a claimed latency", ref + ["--latency-ms", "120", take, dir + "/dry.wav"])
        try b.run("a claim the bleed denies", ref + ["--latency-ms", "300", "--tolerance-ms", "5", take])
        try b.run("--start-at auto", ref + ["--start-at", "auto", late])
        try b.run("--start-at auto with a claim", ref + ["--start-at", "auto", "--latency-ms", "120", late])
        try b.run("written take and mix", ref + ["--start-at", "0", "--correct-drift", "--out-dir", dir + "/out",
                                                 "--mix", dir + "/out/mix.wav", take])
        let log = [#"{"path":"\#(take)","start_seconds":0,"latency_ms":120}"#, #"{"path":"\#(take)","latency_ms":"x"}"#]
        try b.run("a session log", ref, stdin: log.joined(separator: "\n") + "\n")
        try b.run("input that isn't records", ref, stdin: Self.badInput(take))
        try b.check(codes: ["bad-input", "newer-schema", "not-found", "no-bleed", "latency-mismatch"])
    }

    @Test(.enabled(if: python != nil, noValidator), .enabled(if: tools, mediaTools))
    func audioProbeAndLibraryFilterRecordsMatchTheirSchemas() throws {
        let lib = try LibraryFilterE2ETests.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: lib) }
        let more = lib + "/more"
        try FileManager.default.createDirectory(atPath: more, withIntermediateDirectories: true)
        try Self.material(more)
        try Self.mediaMaterial(more)
        var p = Batch("audio-probe")
        try p.run("a library", [lib])
        try p.run("--deep", ["--deep", more + "/noise.wav", more + "/tone.mp3", more + "/cut.wav"])
        try p.run("no file", [more + "/missing.wav"])
        try p.run("input that isn't records", [], stdin: Self.badInput(more + "/noise.wav"))
        try p.pipe("standard input", more + "/noise.wav", ["-"])
        try p.check(codes: ["bad-input", "newer-schema", "not-found", "empty", "unrecognised", "truncated", "no-audio",
                            "protected", "cloud-only"])
        var l = Batch("library-filter")
        try l.run("the usable songs", ["--no-summary", lib])
        let all = try E2E.run("library-filter", ["--no-summary", "--all", lib])
        l.add(all, "--all")
        try l.run("constraints", ["--no-summary", "--all", "--min-duration", "3.5", "--max-duration", "10",
                                  "--min-sample-rate", "44100", "--channels", "2", lib])
        let ids = all.records.compactMap { $0["library"]?["id"]?.stringValue }
        let id = try #require(ids.first)
        try l.run("--get", ["--no-summary", "--get", id, "--get", "3f2a9c0d1e8b7a6c5d4e3f21", lib])
        try l.run("--query", ["--no-summary", "--query", "Miles", "--sort", "title", "--limit", "1", lib])
        try l.run("probed records", ["--no-summary", "--all"], stdin: try E2E.run("audio-probe", [lib]).stdout)
        try l.run("input that isn't records", ["--no-summary", "--all"], stdin: Self.badInput(more + "/noise.wav"))
        try l.check(codes: ["bad-input", "not-found", "protected", "cloud-only", "empty", "truncated"])
    }

    /// Keys pass through the stages untouched, so the last stage's records still match every
    /// earlier stage's schema.
    @Test(.enabled(if: python != nil, noValidator), .enabled(if: tools, mediaTools))
    func aPipelinesRecordsMatchEveryStagesSchema() throws {
        let dir = E2E.tempDir("schema-pipeline")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir)
        try FileManager.default.removeItem(atPath: dir + "/text.wav")
        let probed = try E2E.run("audio-probe", [dir])
        let usable = try E2E.run("library-filter", ["--no-summary", "--all"], stdin: probed.stdout)
        let measured = try E2E.run("lufs-measure", ["--qc", "--platforms"], stdin: usable.stdout)
        let normalized = try E2E.run("lufs-normalize", ["--preset", "podcast", "--out-dir", dir + "/out"], stdin: measured.stdout)
        let lines = normalized.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == probed.stdout.split(separator: "\n").count, "\(normalized.stderr)")
        #expect(lines.contains { $0.contains(#""normalized":"#) } && lines.contains { $0.contains(#""error":"#) })
        for schema in ["audio-probe", "library-filter", "lufs-measure", "lufs-normalize"] {
            let v = try Self.validate(lines, against: schema + ".schema.json")
            #expect(v.valid, "\(schema):\n\(v.said)")
        }
    }
}
