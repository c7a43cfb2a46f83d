import Foundation

/// One command-line option: `--name value`, `--name=value`, or a flag.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        case flag
        /// Takes a value; the string is the placeholder shown in help (`<LUFS>`).
        case value(String)
    }

    /// What a value is, for shell completion and man pages: free text, a file, a folder, or one
    /// of a list (the completion offers the list; the tool still checks the value itself).
    public enum Values: Sendable, Equatable {
        case text
        case file
        case directory
        case choices([String])
    }

    public var name: String
    public var short: Character?
    public var kind: Kind
    public var help: String
    public var repeatable: Bool
    /// What the value is; for a value option declared without one, a placeholder of FILE means a
    /// file and DIR a folder.
    public var values: Values
    /// Left out of --help, man pages and completions (the generators' own options).
    public var hidden: Bool

    public init(_ name: String, short: Character? = nil, _ kind: Kind = .flag, help: String, repeatable: Bool = false,
                values: Values? = nil, hidden: Bool = false) {
        self.name = name; self.short = short; self.kind = kind; self.help = help; self.repeatable = repeatable
        self.hidden = hidden
        if let values { self.values = values } else if case .value(let ph) = kind {
            self.values = ph == "FILE" ? .file : ph == "DIR" ? .directory : .text
        } else { self.values = .text }
    }

    public static func flag(_ name: String, short: Character? = nil, help: String, hidden: Bool = false) -> OptionSpec {
        OptionSpec(name, short: short, .flag, help: help, hidden: hidden)
    }

    /// A value option. `values:` marks a file or folder (inferred from a FILE or DIR placeholder)
    /// or lists the accepted choices, which shell completion offers.
    public static func value(_ name: String, _ placeholder: String, short: Character? = nil, help: String,
                             repeatable: Bool = false, values: Values? = nil, hidden: Bool = false) -> OptionSpec {
        OptionSpec(name, short: short, .value(placeholder), help: help, repeatable: repeatable, values: values, hidden: hidden)
    }

    /// The choices of an enumerated option, empty for any other.
    public var choices: [String] {
        if case .choices(let c) = values { return c }
        return []
    }
}

/// A bad command line: printed with the usage line, exit status 2, nothing on stdout.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What the command line said, with typed accessors that turn bad values into usage errors.
public struct ParsedOptions: Sendable {
    public private(set) var flags: Set<String> = []
    public private(set) var values: [String: [String]] = [:]
    public private(set) var paths: [String] = []

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
    public func string(_ name: String) -> String? { values[name]?.last }
    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    public func double(_ name: String, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let s = string(name) else { return nil }
        guard let v = Double(s.trimmingCharacters(in: .whitespaces)), v.isFinite else {
            throw UsageError("--\(name): '\(s)' is not a number.")
        }
        if let r = range, !r.contains(v) {
            throw UsageError("--\(name): \(s) is out of range (\(Self.fmt(r.lowerBound)) to \(Self.fmt(r.upperBound))).")
        }
        return v
    }

    public func int(_ name: String, in range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let s = string(name) else { return nil }
        guard let v = Int(s.trimmingCharacters(in: .whitespaces)) else {
            throw UsageError("--\(name): '\(s)' is not a whole number.")
        }
        if let r = range, !r.contains(v) {
            throw UsageError("--\(name): \(s) is out of range (\(r.lowerBound) to \(r.upperBound)).")
        }
        return v
    }

    /// The value of `name` when it is one of `choices`, else a usage error listing them.
    public func choice(_ name: String, _ choices: [String]) throws -> String? {
        guard let s = string(name) else { return nil }
        guard choices.contains(s) else {
            throw UsageError("--\(name): '\(s)' is not one of: \(choices.joined(separator: ", ")).")
        }
        return s
    }

    static func fmt(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }

    /// Parses `args` (without the program name) against `specs`.
    public static func parse(_ args: [String], specs: [OptionSpec]) throws -> ParsedOptions {
        var out = ParsedOptions()
        var byName: [String: OptionSpec] = [:]
        var byShort: [Character: OptionSpec] = [:]
        for s in specs {
            byName[s.name] = s
            if let c = s.short { byShort[c] = s }
        }
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
                    let near = specs.filter { !$0.hidden }.map(\.name).filter { $0.hasPrefix(String(name.prefix(3))) }
                    let hint = near.isEmpty ? "" : " Did you mean --\(near[0])?"
                    throw UsageError("Unknown option '--\(name)'.\(hint)")
                }
                try take(spec, inline: inline)
            } else {
                // -j 4, -j4, -h
                let chars = Array(a.dropFirst())
                guard let c = chars.first, let spec = byShort[c] else {
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
}
