import Foundation

/// One command-line option, declared once: its spelling, what its value is (with the range or
/// choices parsing accepts), its default, help, and the rules it has with other options.
/// Parsing, validation, `--help`, the man page and the shell completions all read this.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        case flag
        /// Takes a value; the string is the placeholder shown in help (`<LUFS>`).
        case value(String)
    }

    /// What a value is, for shell completion and man pages: free text, a file, a folder, or one
    /// of a list (the completion offers the list).
    public enum Values: Sendable, Equatable {
        case text
        case file
        case directory
        case choices([String])
    }

    /// What validation accepts as the value: any text, a number or whole number (in a range when
    /// one is given), or one of a list.
    public enum ValueType: Sendable, Equatable {
        case text
        case number(ClosedRange<Double>?)
        case whole(ClosedRange<Int>?)
        case choice([String])
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
    /// What validation accepts.
    public var type: ValueType
    /// The value read when the option isn't given (the help text says it in its own words).
    public var defaultValue: String?
    /// Words accepted besides a number (`--start-at auto`).
    public var words: [String]
    /// The usage error for a value that isn't of the type (or in the list), when it has its own
    /// wording; given the value as typed.
    public var invalid: (@Sendable (String) -> String)?
    /// Rules with other options, checked in order when this option is given.
    public var rules: [OptionRule]
    /// For a text value the tool reads itself (a list, a layout): throws the usage error for a
    /// value it would refuse, so the parser refuses it before any file is touched.
    public var check: (@Sendable (String) throws -> Void)?

    public init(_ name: String, short: Character? = nil, _ kind: Kind = .flag, help: String, repeatable: Bool = false,
                values: Values? = nil, hidden: Bool = false, type: ValueType = .text, defaultValue: String? = nil,
                words: [String] = [], invalid: (@Sendable (String) -> String)? = nil, rules: [OptionRule] = []) {
        self.name = name; self.short = short; self.kind = kind; self.help = help; self.repeatable = repeatable
        self.hidden = hidden; self.type = type; self.defaultValue = defaultValue; self.words = words
        self.invalid = invalid; self.rules = rules
        if let values { self.values = values } else if case .choice(let c) = type {
            self.values = .choices(c)
        } else if case .value(let ph) = kind {
            self.values = ph == "FILE" ? .file : ph == "DIR" ? .directory : .text
        } else { self.values = .text }
    }

    public static func flag(_ name: String, short: Character? = nil, help: String, hidden: Bool = false,
                            rules: [OptionRule] = []) -> OptionSpec {
        OptionSpec(name, short: short, .flag, help: help, hidden: hidden, rules: rules)
    }

    /// A text value option. `values:` marks a file or folder (inferred from a FILE or DIR
    /// placeholder) or lists choices for shell completion only (the tool parses the value itself,
    /// and `check` refuses what it would refuse, when the command line is parsed).
    public static func value(_ name: String, _ placeholder: String, short: Character? = nil, help: String,
                             repeatable: Bool = false, values: Values? = nil, hidden: Bool = false,
                             check: (@Sendable (String) throws -> Void)? = nil, rules: [OptionRule] = []) -> OptionSpec {
        var spec = OptionSpec(name, short: short, .value(placeholder), help: help, repeatable: repeatable, values: values,
                              hidden: hidden, rules: rules)
        spec.check = check
        return spec
    }

    /// A number (finite), within `range` when given; `words` are accepted too.
    public static func number(_ name: String, _ placeholder: String, in range: ClosedRange<Double>? = nil,
                              default value: Double? = nil, words: [String] = [], help: String,
                              invalid: (@Sendable (String) -> String)? = nil, rules: [OptionRule] = []) -> OptionSpec {
        OptionSpec(name, .value(placeholder), help: help, type: .number(range), defaultValue: value.map { String($0) },
                   words: words, invalid: invalid, rules: rules)
    }

    /// A whole number, within `range` when given.
    public static func whole(_ name: String, _ placeholder: String, short: Character? = nil, in range: ClosedRange<Int>? = nil,
                             help: String, rules: [OptionRule] = []) -> OptionSpec {
        OptionSpec(name, short: short, .value(placeholder), help: help, type: .whole(range), rules: rules)
    }

    /// One of `choices`, matched without regard to case and read back in the declared spelling
    /// (`--format MP3` is `mp3`), as every enumerated option is. Shell completion offers them
    /// unless `completes` says otherwise.
    public static func choice(_ name: String, _ placeholder: String, _ choices: [String],
                              default value: String? = nil, help: String, completes: Values? = nil, hidden: Bool = false,
                              invalid: (@Sendable (String) -> String)? = nil, rules: [OptionRule] = []) -> OptionSpec {
        OptionSpec(name, .value(placeholder), help: help, values: completes, hidden: hidden, type: .choice(choices),
                   defaultValue: value, invalid: invalid, rules: rules)
    }

    /// The declared spelling of `value` among `choices`, ignoring case; nil when it is none of them.
    package static func canonical(_ value: String, in choices: [String]) -> String? {
        if choices.contains(value) { return value }
        let lower = value.lowercased()
        return choices.first { $0.lowercased() == lower }
    }

    /// The choices shell completion offers for an enumerated option, empty for any other.
    public var choices: [String] {
        if case .choices(let c) = values { return c }
        return []
    }
}

/// A rule between options, declared on the option it constrains: given, it needs one of some
/// others, or can't go with any of some others (with `value`, only when it has that value). The
/// message is the usage error; in it `{other}` stands for the option found in conflict. The
/// tool's init says when each is checked (`ParsedOptions.checkRules`), so which error of several
/// comes first stays the tool's.
public struct OptionRule: Sendable {
    public enum Test: Sendable, Equatable {
        case needsOneOf([String])
        case conflictsWith([String])
    }

    public var test: Test
    public var value: String?
    public var message: String?

    /// Given, this option needs at least one of `others` (default message: "--A needs --B or --C.").
    public static func needs(_ others: String..., when value: String? = nil, message: String? = nil) -> OptionRule {
        OptionRule(test: .needsOneOf(others), value: value, message: message)
    }

    /// Given, this option can't go with any of `others` (checked in that order; default message:
    /// "--B and --A contradict each other; give one.").
    public static func conflicts(_ others: String..., message: String? = nil) -> OptionRule {
        OptionRule(test: .conflictsWith(others), value: nil, message: message)
    }

    /// The options the rule names.
    package var names: [String] {
        switch test {
        case .needsOneOf(let n), .conflictsWith(let n): return n
        }
    }

    /// The usage error this rule finds in `o` for option `name`, or nil.
    package func violation(of name: String, in o: ParsedOptions) -> String? {
        if let value, o.string(name) != value { return nil }
        switch test {
        case .needsOneOf(let others):
            if others.contains(where: o.has) { return nil }
            return message ?? "--\(name) needs \(others.map { "--" + $0 }.joined(separator: " or "))."
        case .conflictsWith(let others):
            guard let other = others.first(where: o.has) else { return nil }
            return (message ?? "--{other} and --\(name) contradict each other; give one.")
                .replacingOccurrences(of: "{other}", with: other)
        }
    }
}

/// A requirement of the whole command line: one of some options must be given (unless the input
/// comes from stdin, when `exceptReadingStdin`, where each record may carry what is missing).
public struct OptionRequirement: Sendable {
    public var oneOf: [String]
    public var exceptReadingStdin: Bool
    public var message: String

    public init(oneOf: [String], exceptReadingStdin: Bool = false, message: String) {
        self.oneOf = oneOf; self.exceptReadingStdin = exceptReadingStdin; self.message = message
    }
}

/// A bad command line: printed with the usage line, exit status 2, nothing on stdout.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
