import ToolRunner

/// Limits a usable song must also meet: duration between `minDuration` and `maxDuration`
/// seconds, a sample rate of at least `minSampleRate`, exactly `channels` channels. Nil means no
/// limit. A limit that can't be checked because the value is unknown counts as not met.
public struct LibraryConstraints: Equatable, Sendable {
    public var minDuration: Double?
    public var maxDuration: Double?
    public var minSampleRate: Int?
    public var channels: Int?

    public init(minDuration: Double? = nil, maxDuration: Double? = nil,
                minSampleRate: Int? = nil, channels: Int? = nil) {
        self.minDuration = minDuration
        self.maxDuration = maxDuration
        self.minSampleRate = minSampleRate
        self.channels = channels
    }

    /// True when no limit is set.
    public var isEmpty: Bool { minDuration == nil && maxDuration == nil && minSampleRate == nil && channels == nil }

    /// Refuses limits no song could meet or that make no sense, naming the option.
    public func validate() throws {
        func refuse(_ message: String, _ suggestion: String) -> ToolError {
            ToolError(.badInput, message, suggestion: suggestion)
        }
        if let d = minDuration, !(d.isFinite && d >= 0) {
            throw refuse("--min-duration is \(d), but it must be a number of seconds, 0 or more.",
                         "Give --min-duration in seconds, e.g. --min-duration 30.")
        }
        if let d = maxDuration, !(d.isFinite && d > 0) {
            throw refuse("--max-duration is \(d), but it must be a number of seconds above 0.",
                         "Give --max-duration in seconds, e.g. --max-duration 900.")
        }
        if let lo = minDuration, let hi = maxDuration, lo > hi {
            throw refuse("--min-duration (\(LibraryText.duration(lo))) is above --max-duration (\(LibraryText.duration(hi))), so no song could pass.",
                         "Swap the two values or widen the range.")
        }
        if let r = minSampleRate, r <= 0 {
            throw refuse("--min-sample-rate is \(r), but it must be a rate in Hz above 0.",
                         "Give --min-sample-rate in Hz, e.g. --min-sample-rate 44100.")
        }
        if let c = channels, c <= 0 {
            throw refuse("--channels is \(c), but a song has at least 1 channel.",
                         "Give --channels 1 for mono or 2 for stereo.")
        }
    }

    /// Why `item` falls outside the limits, and how to keep it.
    public struct Violation: Equatable, Sendable {
        /// Names the file and the limit, e.g. "“intro.wav” is 4.2 s long, shorter than the 30 s minimum."
        public var message: String
        /// Which option to change to keep the file.
        public var suggestion: String
    }

    /// The sentence saying which limit `item` breaks, or nil when it meets them all.
    public func violation(_ item: LibraryItem) -> String? { check(item)?.message }

    /// The first limit `item` breaks (duration, then sample rate, then channels), or nil.
    public func check(_ item: LibraryItem) -> Violation? {
        var name: String { ToolError.quoted(item.path) }  // only a violation names the file
        if minDuration != nil || maxDuration != nil {
            guard let d = item.durationSeconds, d.isFinite else {
                return Violation(message: "\(name) has no known duration, so the duration limits can't be checked.",
                                 suggestion: "Leave out --min-duration and --max-duration to keep songs of unknown length.")
            }
            if let lo = minDuration, d < lo {
                let (length, limit) = Self.distinctDurations(d, lo)
                return Violation(message: "\(name) is \(length) long, shorter than the \(limit) minimum.",
                                 suggestion: "Lower --min-duration to \(LibraryText.number(d, decimals: 1)) or less to keep it.")
            }
            if let hi = maxDuration, d > hi {
                let (length, limit) = Self.distinctDurations(d, hi)
                return Violation(message: "\(name) is \(length) long, longer than the \(limit) maximum.",
                                 suggestion: "Raise --max-duration to \(LibraryText.number((d * 10).rounded(.up) / 10, decimals: 1)) or more to keep it.")
            }
        }
        if let minRate = minSampleRate {
            guard let rate = item.sampleRate else {
                return Violation(message: "\(name) has no known sample rate, so the \(LibraryText.count(minRate)) Hz minimum can't be checked.",
                                 suggestion: "Leave out --min-sample-rate to keep it.")
            }
            if rate < minRate {
                return Violation(message: "\(name) is at \(LibraryText.count(rate)) Hz, below the \(LibraryText.count(minRate)) Hz minimum.",
                                 suggestion: "Lower --min-sample-rate to \(rate) or less to keep it.")
            }
        }
        if let wanted = channels {
            guard let have = item.channels else {
                return Violation(message: "\(name) has no known channel count, so the \(Self.channelText(wanted)) requirement can't be checked.",
                                 suggestion: "Leave out --channels to keep it.")
            }
            if have != wanted {
                return Violation(message: "\(name) has \(Self.channelText(have)), not the \(Self.channelText(wanted)) required.",
                                 suggestion: "Set --channels \(have), or leave it out, to keep it.")
            }
        }
        return nil
    }

    /// "1 channel (mono)", "2 channels (stereo)", "6 channels".
    package static func channelText(_ n: Int) -> String {
        switch n {
        case 1: return "1 channel (mono)"
        case 2: return "2 channels (stereo)"
        default: return "\(n) channels"
        }
    }

    /// Both durations as text, with enough decimals that they don't read the same
    /// (29.96 s against 30 s shows "29.96 s", not "30 s").
    package static func distinctDurations(_ value: Double, _ limit: Double) -> (String, String) {
        for decimals in 1...3 {
            let a = LibraryText.duration(value, decimals: decimals)
            let b = LibraryText.duration(limit, decimals: decimals)
            if a != b { return (a, b) }
        }
        return (LibraryText.number(value, decimals: 6) + " s", LibraryText.number(limit, decimals: 6) + " s")
    }
}
