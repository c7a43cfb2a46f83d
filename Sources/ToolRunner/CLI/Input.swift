import AudioIO
import Foundation

/// Reads lines from a file descriptor in bounded memory: a line longer than `maxLine` bytes is
/// reported as overlong (its text dropped) instead of growing the buffer without limit. Bytes
/// that aren't UTF-8 (a bare path from `find` in a Latin-1 library) are kept, escaped as
/// PathBytes describes, so the path still names its file.
public final class LineReader {
    public enum Line { case text(String), overlong(Int) }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private let maxLine: Int
    private var skipping = 0  // bytes of an overlong line discarded so far

    /// `prefix`: bytes of `fd` already read (looked at to tell lines from audio).
    public init(fd: Int32, maxLine: Int = 16 << 20, prefix: [UInt8] = []) {
        self.fd = fd
        buffer = prefix
        self.maxLine = maxLine
    }

    /// A JSON line is UTF-8 text (escapes in it kept as they are); a bare path is a file name's bytes.
    package static func decode(_ line: ArraySlice<UInt8>) -> String {
        let isJSON = line.first(where: { $0 != 0x20 && $0 != 0x09 }) == 0x7B
        return PathBytes.string(line, text: isJSON)
    }

    public func next() -> Line? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let lineBytes = buffer[start..<nl]
                start = nl + 1
                if skipping > 0 {
                    let n = skipping + lineBytes.count
                    skipping = 0
                    return .overlong(n)
                }
                return .text(Self.decode(lineBytes))
            }
            if eof {
                guard start < buffer.count || skipping > 0 else { return nil }
                let rest = buffer[start...]
                start = buffer.count
                if skipping > 0 { let n = skipping + rest.count; skipping = 0; return .overlong(n) }
                return .text(Self.decode(rest))
            }
            if start > 0 { buffer.removeSubrange(0..<start); start = 0 }
            if buffer.count > maxLine { skipping += buffer.count; buffer.removeAll(keepingCapacity: true) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 65536) }
            if n < 0 { if errno == EINTR { continue }; eof = true; continue }
            if n == 0 { eof = true; continue }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

/// What the input held, told once it has all been read: how many records, and which directory
/// arguments yielded none (an empty folder, or one holding nothing the walk passes on).
public final class InputReport: @unchecked Sendable {
    private let lock = NSLock()
    private var empty: [String] = []
    private var count = 0

    public init() {}

    /// Directory arguments, as given, whose walk yielded no input.
    public var emptyDirectories: [String] { lock.lock(); defer { lock.unlock() }; return empty }
    /// Records read, from every argument and stdin.
    public var records: Int { lock.lock(); defer { lock.unlock() }; return count }

    package func recordRead() { lock.lock(); count += 1; lock.unlock() }
    package func directoryWalked(_ path: String, yielded: Int) {
        guard yielded == 0 else { return }
        lock.lock(); empty.append(path); lock.unlock()
    }

    /// "no audio files found in “deliverables”" (a trailing slash left out).
    public static func noAudioMessage(_ directory: String) -> String {
        var d = directory
        while d.count > 1, d.hasSuffix("/") { d.removeLast() }
        return "no audio files found in \(ToolError.quoted(d))"
    }
}

/// The stream of input records for one run: path arguments (directories walked) or stdin lines.
/// Lazy, so a long stdin stream is never read into memory first.
public struct InputRecords: Sequence, IteratorProtocol {
    private var args: [String]
    private var argIndex = 0
    private var walker: DirectoryWalker?
    private var walkRoot = ""
    private var walkYielded = 0
    /// Records to give before reading on: folders the walk couldn't open, then the file after them.
    private var unopened: [Record] = []
    private var stdin: LineReader?
    private let tool: String
    private let includeHidden: (String) -> Bool
    private let skipNonAudio: Bool
    private let tally: WalkTally
    private let report: InputReport?
    /// An explicit `-` may be the audio itself; with no argument stdin is lines, as always.
    private let audioOnStdin: Bool

    /// `skipNonAudio` and `tally` as DirectoryWalker has them, for every folder argument.
    public init(paths: [String], tool: String, includeHidden: @escaping (String) -> Bool,
                skipNonAudio: Bool = true, tally: WalkTally = WalkTally(), report: InputReport? = nil) {
        self.args = paths.isEmpty ? ["-"] : paths
        audioOnStdin = paths.contains("-")
        self.tool = tool
        self.includeHidden = includeHidden
        self.skipNonAudio = skipNonAudio
        self.tally = tally
        self.report = report
    }

    public mutating func next() -> Record? {
        let r = nextRecord()
        if r != nil { report?.recordRead() }
        return r
    }

    private mutating func nextRecord() -> Record? {
        while true {
            if let r = unopened.first { unopened.removeFirst(); return r }
            if var w = walker {
                let p = w.next()
                // A folder the system wouldn't open (no descriptor left) fails as a record, before
                // what came after it: it isn't empty, and a run must not pass over it silently.
                unopened += w.takeUnopened().map { u in
                    Record(path: u.path).failing(ResourceFailure(u.path, errno: u.errno)!.toolError(path: u.path), tool: tool)
                }
                walker = w
                if !unopened.isEmpty {
                    walkYielded += 1
                    if let p { unopened.append(Record(path: p)) }
                    continue
                }
                if let p { walkYielded += 1; return Record(path: p) }
                walker = nil
                report?.directoryWalked(walkRoot, yielded: walkYielded)
            }
            if let r = stdin {
                guard let line = r.next() else { stdin = nil; continue }
                switch line {
                case .text(let t):
                    if let rec = RecordReader.record(fromLine: t, tool: tool) { return rec }
                case .overlong(let n):
                    return Record(["input": .string("(\(n) bytes)")]).failing(ToolError(.badInput,
                        "An input line is \(n) bytes long, more than a record can be.",
                        suggestion: "Give one JSON object or path per line."), tool: tool)
                }
                continue
            }
            guard argIndex < args.count else { return nil }
            let a = args[argIndex]
            argIndex += 1
            if a == "-" {
                if audioOnStdin, StandardInputArgument.holdsAudio() { return Record(path: a) }  // the audio itself
                stdin = LineReader(fd: 0, prefix: StandardInputArgument.takeLookedAt()); continue
            }
            var st = stat()
            if PathBytes.stat(a, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                walker = DirectoryWalker(root: a, includeHidden: includeHidden, skipNonAudio: skipNonAudio, tally: tally)
                walkRoot = a
                walkYielded = 0
                continue
            }
            return Record(path: a)
        }
    }
}
