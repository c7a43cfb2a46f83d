import AudioIO
import Foundation

/// Which input writes which output, so that no two inputs write the same file and no output
/// replaces an input: every path argument's output is planned up front (inputs that would
/// collide are refused before anything is written), and each record read from standard input
/// claims its output in input order, the earlier record winning.
public final class OutputClaims: @unchecked Sendable {
    public let naming: LufsNormalizeNaming
    /// Output paths planned for the path arguments, by input path as the walk yields it.
    private let planned: [String: String]
    /// Path-argument inputs whose output another input also writes, with those others.
    private let collisions: [String: [String]]
    /// Every path-argument input, absolute.
    private let argumentInputs: Set<String>
    private let lock = NSLock()
    /// Output (absolute) → the input that claimed it.
    private var claims: [String: String] = [:]

    /// Plans the outputs of `paths` (files, and the files below directories; "-" is standard
    /// input and plans nothing).
    public init(naming: LufsNormalizeNaming, paths: [String]) {
        self.naming = naming
        var planned: [String: String] = [:]
        var byOutput: [String: [String]] = [:]
        func add(_ p: String, base: String?) {
            guard let out = naming.output(for: p, base: base) else { return }
            if planned[p] != nil { byOutput[LufsNormalizeNaming.absolute(out), default: []].append(p); return }
            planned[p] = out
            byOutput[LufsNormalizeNaming.absolute(out), default: []].append(p)
        }
        for a in paths where a != "-" {
            var st = stat()
            if PathBytes.stat(a, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                for p in DirectoryWalker(root: a) { add(p, base: a) }
            } else {
                add(a, base: nil)
            }
        }
        var collisions: [String: [String]] = [:]
        for (_, inputs) in byOutput where inputs.count > 1 {
            for i in inputs { collisions[i] = inputs.filter { $0 != i } }
        }
        self.planned = planned
        self.collisions = collisions
        argumentInputs = Set(planned.keys.map(LufsNormalizeNaming.absolute))
        // Records read from standard input may not take an output a path argument writes.
        claims = Dictionary(planned.map { (LufsNormalizeNaming.absolute($0.value), $0.key) }, uniquingKeysWith: { a, _ in a })
    }

    /// The output path for `path`, refusing (OutputClaimError) inputs that would write over
    /// another's output or an input.
    public func outputPath(for path: String) throws -> String {
        let planned = self.planned[path]
        guard let out = planned ?? naming.output(for: path, base: nil) else {
            throw OutputClaimError.outsideRelativeTo
        }
        if let others = collisions[path] {
            throw OutputClaimError.sharedWith(others, output: out)
        }
        let absIn = LufsNormalizeNaming.absolute(path)
        let absOut = LufsNormalizeNaming.absolute(out)
        if !naming.inPlace {
            if absOut == absIn {
                throw OutputClaimError.isTheInput
            }
            if argumentInputs.contains(absOut) {
                throw OutputClaimError.isAnotherInput(out)
            }
        }
        return out
    }

    /// Claims the output of a record read from standard input (call in input order), refusing
    /// one an earlier record or a path argument already writes. Path arguments are already claimed.
    public func claim(for path: String) throws {
        guard planned[path] == nil else { return }
        let out = try outputPath(for: path)
        let absOut = LufsNormalizeNaming.absolute(out)
        lock.lock()
        let earlier = claims[absOut]
        if earlier == nil { claims[absOut] = path }
        lock.unlock()
        if let earlier {
            throw OutputClaimError.claimedEarlier(output: out, by: earlier)
        }
    }
}

/// Why an input's output can't be claimed: facts only (the sentences are the tool's). The input
/// is the record's path.
public enum OutputClaimError: Error, Equatable, Sendable {
    /// The input is not inside the --relative-to folder.
    case outsideRelativeTo
    /// These other path arguments would write the same `output`.
    case sharedWith([String], output: String)
    /// The output path is the input itself.
    case isTheInput
    /// The output path is another input.
    case isAnotherInput(String)
    /// A record `by` earlier in the input already writes `output`.
    case claimedEarlier(output: String, by: String)
}
