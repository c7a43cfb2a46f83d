import Foundation

/// What the command line said, read through the declarations it was parsed against: typed
/// accessors turn bad values into usage errors with the declared range or choices, `checkRules`
/// checks an option's declared rules, and `validate` checks everything declared at once.
public struct ParsedOptions: Sendable {
    public private(set) var flags: Set<String> = []
    public private(set) var values: [String: [String]] = [:]
    public private(set) var paths: [String] = []
    /// The declarations, by name.
    private var specs: [String: OptionSpec] = [:]
    /// The declarations in table order (validation follows it).
    private var order: [OptionSpec] = []

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
    public func string(_ name: String) -> String? { values[name]?.last }
    public func strings(_ name: String) -> [String] { values[name] ?? [] }
    /// Whether the input comes from stdin (no path arguments, or only `-`).
    public var readsStdin: Bool { paths.isEmpty || paths == ["-"] }

    /// The number given (or the declared default), checked against the declared range.
    /// `s` without the spaces and tabs around it: what `trimmingCharacters(in: .whitespaces)`
    /// removes (Unicode's space separators and the tab), without the NSString it goes through,
    /// which was a start-up cost of every run given a number.
    package static func trimmed(_ s: String) -> Substring {
        func blank(_ c: Unicode.Scalar) -> Bool { c == "\t" || c.properties.generalCategory == .spaceSeparator }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blank($0) })!
        return s[first...last]
    }

    public func double(_ name: String) throws -> Double? {
        guard let s = string(name) ?? specs[name]?.defaultValue else { return nil }
        let spec = specs[name]
        guard let v = Double(Self.trimmed(s)) else {
            throw UsageError(spec?.invalid?(s) ?? "--\(name): '\(s)' is not a number.")
        }
        guard v.isFinite else { throw UsageError("--\(name): '\(s)' is not a number.") }
        if case .number(let range?) = spec?.type, !range.contains(v) {
            throw UsageError("--\(name): \(s) is out of range (\(Self.fmt(range.lowerBound)) to \(Self.fmt(range.upperBound))).")
        }
        return v
    }

    /// The number given, or the declared default (for an option declared with one).
    public func number(_ name: String) throws -> Double {
        guard let v = try double(name) else { preconditionFailure("--\(name) is read as a number with a default but declares none") }
        return v
    }

    /// The choice given, or the declared default (for an option declared with one).
    public func chosen(_ name: String) throws -> String {
        guard let v = try choice(name) else { preconditionFailure("--\(name) is read as a choice with a default but declares none") }
        return v
    }

    /// The whole number given, checked against the declared range.
    public func int(_ name: String) throws -> Int? {
        guard let s = string(name) ?? specs[name]?.defaultValue else { return nil }
        guard let v = Int(Self.trimmed(s)) else {
            throw UsageError("--\(name): '\(s)' is not a whole number.")
        }
        if case .whole(let range?) = specs[name]?.type, !range.contains(v) {
            throw UsageError("--\(name): \(s) is out of range (\(range.lowerBound) to \(range.upperBound)).")
        }
        return v
    }

    /// The value given (or the declared default) when it is one of the declared choices, else a
    /// usage error listing them.
    public func choice(_ name: String) throws -> String? {
        guard let s = string(name) ?? specs[name]?.defaultValue else { return nil }
        guard let spec = specs[name] else { return s }
        return try canonical(spec, s)
    }

    package static func fmt(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }

    /// Checks everything declared: the value of every given option (table order), the
    /// requirements, then the rules of every given option (table order). The tool's init checks
    /// the same things as it reads the options, in the order it reads them (which decides which
    /// error a command line with several gets); ToolMain runs this after the init as well, so a
    /// rule the init doesn't place is still enforced.
    public func validate(requirements: [OptionRequirement] = []) throws {
        for spec in order where values[spec.name] != nil { try checkValue(spec) }
        try check(requirements)
        for spec in order { try checkRules(spec.name) }
    }

    /// Throws the message of the first requirement not met.
    public func check(_ requirements: [OptionRequirement]) throws {
        for r in requirements where !r.oneOf.contains(where: has) {
            if r.exceptReadingStdin, readsStdin { continue }
            throw UsageError(r.message)
        }
    }

    /// The declared rules of each option named that is given, in the order named.
    public func checkRules(_ names: String...) throws {
        for n in names { try checkRules(n, where: { _ in true }) }
    }

    /// Only the declared rules of option `name` that name `other`, for a tool that checks an
    /// option's rules at different points.
    public func checkRules(_ name: String, about other: String) throws {
        try checkRules(name, where: { $0.names.contains(other) })
    }

    private func checkRules(_ name: String, where include: (OptionRule) -> Bool) throws {
        guard has(name), let spec = specs[name] else { return }
        for rule in spec.rules where include(rule) {
            if let message = rule.violation(of: name, in: self) { throw UsageError(message) }
        }
    }

    private func checkValue(_ spec: OptionSpec) throws {
        if let s = string(spec.name), spec.words.contains(s) { return }
        switch spec.type {
        case .text: if let check = spec.check { for v in strings(spec.name) { try check(v) } }
        case .number: _ = try double(spec.name)
        case .whole: _ = try int(spec.name)
        case .choice: _ = try choice(spec.name)
        }
    }

    /// Parses `args` (without the program name) against `specs`: unknown options, missing values
    /// and repeats, then every value given against its declared type (table order), before any
    /// tool reads it or touches a file. A choice is kept in its declared spelling, whatever case
    /// it was typed in. `validate` checks the requirements and rules too.
    public static func parse(_ args: [String], specs: [OptionSpec]) throws -> ParsedOptions {
        var out = try spell(args, specs: specs)
        for spec in out.order where out.values[spec.name] != nil {
            if !spec.words.isEmpty {
                out.values[spec.name] = out.values[spec.name]!.map { v in OptionSpec.canonical(v, in: spec.words) ?? v }
            }
            try out.checkValue(spec)
            if case .choice = spec.type { out.values[spec.name] = try out.values[spec.name]!.map { try out.canonical(spec, $0) } }
        }
        return out
    }

    /// `value` of choice option `spec` in its declared spelling, or the usage error naming the choices.
    private func canonical(_ spec: OptionSpec, _ value: String) throws -> String {
        guard case .choice(let choices) = spec.type else { return value }
        guard let known = OptionSpec.canonical(value, in: choices) else {
            throw UsageError(spec.invalid?(value) ?? "--\(spec.name): '\(value)' is not one of: \(choices.joined(separator: ", ")).")
        }
        return known
    }

    /// The spelling of the command line: options, their values as typed, and the paths.
    private static func spell(_ args: [String], specs: [OptionSpec]) throws -> ParsedOptions {
        var out = ParsedOptions()
        for s in specs { out.specs[s.name] = s }
        out.order = specs
        let byName = out.specs
        var i = 0
        var onlyPaths = false
        func take(_ spec: OptionSpec, inline: String?) throws {
            switch spec.kind {
            case .flag:
                if inline != nil { throw UsageError("--\(spec.name) takes no value.") }
                out.flags.insert(spec.name)
            case .value(let ph):
                let v: String
                if let inline { v = inline } else {
                    guard i + 1 < args.count else { throw UsageError("--\(spec.name) needs a value <\(ph)>.") }
                    i += 1
                    v = args[i]
                }
                if !spec.repeatable, out.values[spec.name] != nil {
                    throw UsageError("--\(spec.name) is given more than once.")
                }
                out.values[spec.name, default: []].append(v)
            }
        }
        while i < args.count {
            let a = args[i]
            if onlyPaths || a == "-" || !a.hasPrefix("-") {
                out.paths.append(a)
            } else if a == "--" {
                onlyPaths = true
            } else if a.hasPrefix("--") {
                let body = a.dropFirst(2)
                let name: String
                var inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq]); inline = String(body[body.index(after: eq)...])
                } else { name = String(body) }
                guard let spec = byName[name] else {
                    let hint = nearest(to: name, among: specs.filter { !$0.hidden }.map(\.name)).map { " Did you mean --\($0)?" }
                    throw UsageError("Unknown option '--\(name)'.\(hint ?? "")")
                }
                try take(spec, inline: inline)
            } else {
                // -j 4, -j4, -h
                let chars = Array(a.dropFirst())
                // The last declaration of the letter, looked up in the table: a dictionary keyed
                // by Character would cost every run a search of the runtime's conformance records.
                guard let c = chars.first, let spec = specs.last(where: { $0.short == c }) else {
                    // A negative number where a path was expected is not an option.
                    throw UsageError("Unknown option '\(a)'.")
                }
                let rest = chars.count > 1 ? String(chars.dropFirst()) : nil
                if spec.kind == .flag, rest != nil { throw UsageError("Unknown option '\(a)'.") }
                try take(spec, inline: rest.map { $0.hasPrefix("=") ? String($0.dropFirst()) : $0 })
            }
            i += 1
        }
        return out
    }

    /// The declared option nearest to a mistyped `name`, for the unknown-option error: the fewest
    /// edits (a letter added, dropped, changed, or two neighbours swapped), ties in table order;
    /// nil when even the nearest needs more than a third of the name changed (at least 1, at most 3).
    package static func nearest(to name: String, among names: [String]) -> String? {
        let typed = Array(name.utf8)
        let limit = max(1, min(3, typed.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in names {
            let d = editDistance(typed, Array(candidate.utf8))
            if d <= limit, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        if let best { return best.name }
        // A name cut short (`--dry` for `--dry-run`) when only one option starts so.
        let longer = names.filter { $0.hasPrefix(name) }
        return name.count >= 3 && longer.count == 1 ? longer[0] : nil
    }

    /// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of neighbours, each 1.
    package static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
