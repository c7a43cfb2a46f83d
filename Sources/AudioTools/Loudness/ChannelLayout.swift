import Foundation

/// What a channel carries, and so its BS.1770 weight G_i.
public enum ChannelRole: String, CaseIterable, Sendable {
    case mono, left, right, centre, lfe
    case leftSurround, rightSurround, leftBack, rightBack
    /// A channel with no known position: weighted like a front channel.
    case unknown

    /// BS.1770-4 channel weight: 1.0 front, 1.41 (+1.5 dB) surround and back, 0 LFE.
    public var weight: Double {
        switch self {
        case .mono, .left, .right, .centre, .unknown: return 1.0
        case .leftSurround, .rightSurround, .leftBack, .rightBack: return 1.41
        case .lfe: return 0
        }
    }

    /// The short label used in layouts: L, R, C, LFE, Ls, Rs, Lb, Rb, M, X.
    public var label: String {
        switch self {
        case .mono: return "M"
        case .left: return "L"
        case .right: return "R"
        case .centre: return "C"
        case .lfe: return "LFE"
        case .leftSurround: return "Ls"
        case .rightSurround: return "Rs"
        case .leftBack: return "Lb"
        case .rightBack: return "Rb"
        case .unknown: return "X"
        }
    }

    /// Accepted spellings (lower case) of each role in an explicit layout list.
    static let aliases: [String: ChannelRole] = [
        "m": .mono, "mono": .mono,
        "l": .left, "fl": .left, "left": .left,
        "r": .right, "fr": .right, "right": .right,
        "c": .centre, "fc": .centre, "center": .centre, "centre": .centre,
        "lfe": .lfe, "sub": .lfe,
        "ls": .leftSurround, "sl": .leftSurround, "lss": .leftSurround,
        "rs": .rightSurround, "sr": .rightSurround, "rss": .rightSurround,
        "lb": .leftBack, "bl": .leftBack, "lrs": .leftBack,
        "rb": .rightBack, "br": .rightBack, "rrs": .rightBack,
        "x": .unknown, "unknown": .unknown, "other": .unknown,
    ]
}

/// The channel roles of a stream, in channel order, which fix the BS.1770 weights.
public struct ChannelLayout: Equatable, Sendable {
    public var roles: [ChannelRole]
    /// A mono stream meant for playback on two speakers: its one channel counts twice.
    public var isDualMono: Bool

    public init(roles: [ChannelRole], isDualMono: Bool = false) {
        precondition(!isDualMono || roles == [.mono], "dual mono is one mono channel")
        self.roles = roles
        self.isDualMono = isDualMono
    }

    /// A mono file counted as two channels (weight 2.0 on its single channel).
    public static let dualMono = ChannelLayout(roles: [.mono], isDualMono: true)

    /// The usual layout for a channel count (WAV/SMPTE order): 1 mono; 2 L R; 3 L R C;
    /// 4 L R Ls Rs; 5 L R C Ls Rs; 6 L R C LFE Ls Rs; 8 L R C LFE Lb Rb Ls Rs; otherwise all
    /// channels of unknown position (weight 1.0).
    public static func standard(channelCount: Int) -> ChannelLayout {
        switch channelCount {
        case 1: return ChannelLayout(roles: [.mono])
        case 2: return ChannelLayout(roles: [.left, .right])
        case 3: return ChannelLayout(roles: [.left, .right, .centre])
        case 4: return ChannelLayout(roles: [.left, .right, .leftSurround, .rightSurround])
        case 5: return ChannelLayout(roles: [.left, .right, .centre, .leftSurround, .rightSurround])
        case 6: return ChannelLayout(roles: [.left, .right, .centre, .lfe, .leftSurround, .rightSurround])
        case 8: return ChannelLayout(roles: [.left, .right, .centre, .lfe, .leftBack, .rightBack,
                                             .leftSurround, .rightSurround])
        default: return ChannelLayout(roles: Array(repeating: .unknown, count: max(channelCount, 0)))
        }
    }

    static let named: [String: ChannelLayout] = [
        "mono": standard(channelCount: 1), "1.0": standard(channelCount: 1),
        "dual-mono": dualMono, "dualmono": dualMono,
        "stereo": standard(channelCount: 2), "2.0": standard(channelCount: 2),
        "3.0": standard(channelCount: 3),
        "quad": standard(channelCount: 4), "4.0": standard(channelCount: 4),
        "5.0": standard(channelCount: 5),
        "5.1": standard(channelCount: 6),
        "7.1": standard(channelCount: 8),
    ]

    /// Parses a `--layout` value: a name (mono, dual-mono, stereo, 3.0, quad, 5.0, 5.1, 7.1) or a
    /// comma list of channel labels such as `L,R,C,LFE,Ls,Rs` (case-insensitive; SL/SR/BL/BR
    /// accepted). Throws a bad-input error naming the token it did not understand.
    public static func parse(_ text: String) throws -> ChannelLayout {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let layout = named[trimmed] { return layout }
        let tokens = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var roles: [ChannelRole] = []
        for (i, token) in tokens.enumerated() {
            guard let role = ChannelRole.aliases[token] else {
                let original = text.split(separator: ",", omittingEmptySubsequences: false)
                let shown = i < original.count ? original[i].trimmingCharacters(in: .whitespaces) : token
                throw ToolError(.badInput,
                                token.isEmpty
                                    ? "The layout “\(text)” has an empty channel name at position \(i + 1)."
                                    : "The layout “\(text)” has an unknown channel name “\(shown)” at position \(i + 1).",
                                suggestion: "Use a name such as stereo, 5.1 or 7.1, or a comma list of L, R, C, LFE, Ls, Rs, Lb, Rb (SL, SR, BL, BR also accepted).")
            }
            roles.append(role)
        }
        return ChannelLayout(roles: roles)
    }

    public var channelCount: Int { roles.count }

    /// The BS.1770 weight of each channel.
    public var weights: [Double] { isDualMono ? [2.0] : roles.map(\.weight) }

    /// The labels joined by commas, e.g. "L,R,C,LFE,Ls,Rs" ("dual-mono" for dual mono).
    public var description: String { isDualMono ? "dual-mono" : roles.map(\.label).joined(separator: ",") }
}
