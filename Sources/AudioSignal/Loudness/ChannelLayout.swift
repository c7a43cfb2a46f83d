import Foundation

/// The BS.1770 weighting rule by loudspeaker position (ITU-R BS.1770-4 and -5, Annex 1,
/// "position-dependent channel weightings"): 1.41 (+1.5 dB) for a loudspeaker less than 30°
/// above or below the listener's ear height and between 60° and 120° to either side, 1.0 for
/// every other position. The LFE channels are not counted at all.
package enum ChannelPosition {
    public static let lateralWeight = 1.41

    /// The weight of a loudspeaker at `azimuth` (degrees, either sign) and `elevation` (degrees).
    public static func weight(azimuth: Double, elevation: Double) -> Double {
        let a = abs(azimuth), e = abs(elevation)
        return e < 30 && a >= 60 && a <= 120 ? lateralWeight : 1.0
    }
}

/// What a channel carries: a loudspeaker at a nominal position (ITU-R BS.2051 and BS.775
/// angles, azimuth positive to the left), an LFE, or an unknown position.
public enum ChannelRole: String, CaseIterable, Sendable {
    case mono
    case left, right, centre
    case leftCentre, rightCentre
    case leftWide, rightWide
    case leftSideSurround, rightSideSurround
    case leftSurround, rightSurround
    case leftBack, rightBack, backCentre
    case topFrontLeft, topFrontRight, topFrontCentre
    case topMiddleLeft, topMiddleRight, topCentre
    case topBackLeft, topBackRight, topBackCentre
    case bottomFrontLeft, bottomFrontRight, bottomFrontCentre
    case lfe, lfe2
    /// A channel with no known position: weighted 1.0.
    case unknown

    /// Nominal azimuth and elevation in degrees; nil for the LFEs and unknown channels.
    public var position: (azimuth: Double, elevation: Double)? {
        switch self {
        case .mono, .centre: return (0, 0)
        case .left: return (30, 0)
        case .right: return (-30, 0)
        case .leftCentre: return (15, 0)
        case .rightCentre: return (-15, 0)
        case .leftWide: return (60, 0)
        case .rightWide: return (-60, 0)
        case .leftSideSurround: return (90, 0)
        case .rightSideSurround: return (-90, 0)
        case .leftSurround: return (110, 0)
        case .rightSurround: return (-110, 0)
        case .leftBack: return (135, 0)
        case .rightBack: return (-135, 0)
        case .backCentre: return (180, 0)
        case .topFrontLeft: return (45, 30)
        case .topFrontRight: return (-45, 30)
        case .topFrontCentre: return (0, 30)
        case .topMiddleLeft: return (90, 30)
        case .topMiddleRight: return (-90, 30)
        case .topCentre: return (0, 90)
        case .topBackLeft: return (135, 30)
        case .topBackRight: return (-135, 30)
        case .topBackCentre: return (180, 30)
        case .bottomFrontLeft: return (45, -30)
        case .bottomFrontRight: return (-45, -30)
        case .bottomFrontCentre: return (0, -30)
        case .lfe, .lfe2, .unknown: return nil
        }
    }

    /// Nominal azimuth in degrees, positive to the left; nil for the LFEs and unknown channels.
    public var azimuth: Double? { position?.azimuth }
    /// Nominal elevation in degrees; nil for the LFEs and unknown channels.
    public var elevation: Double? { position?.elevation }
    /// Whether the channel is a low-frequency effects channel (not counted in loudness).
    public var isLFE: Bool { self == .lfe || self == .lfe2 }

    /// The BS.1770 weight G_i: by position (see ChannelPosition), 0 for an LFE, 1.0 unknown.
    public var weight: Double {
        if isLFE { return 0 }
        guard let p = position else { return 1.0 }
        return ChannelPosition.weight(azimuth: p.azimuth, elevation: p.elevation)
    }

    /// The short label used in layouts and records.
    public var label: String {
        switch self {
        case .mono: return "M"
        case .left: return "L"
        case .right: return "R"
        case .centre: return "C"
        case .leftCentre: return "Lc"
        case .rightCentre: return "Rc"
        case .leftWide: return "Lw"
        case .rightWide: return "Rw"
        case .leftSideSurround: return "Lss"
        case .rightSideSurround: return "Rss"
        case .leftSurround: return "Ls"
        case .rightSurround: return "Rs"
        case .leftBack: return "Lb"
        case .rightBack: return "Rb"
        case .backCentre: return "Cb"
        case .topFrontLeft: return "Ltf"
        case .topFrontRight: return "Rtf"
        case .topFrontCentre: return "Ctf"
        case .topMiddleLeft: return "Ltm"
        case .topMiddleRight: return "Rtm"
        case .topCentre: return "Tc"
        case .topBackLeft: return "Ltb"
        case .topBackRight: return "Rtb"
        case .topBackCentre: return "Ctb"
        case .bottomFrontLeft: return "Lbf"
        case .bottomFrontRight: return "Rbf"
        case .bottomFrontCentre: return "Cbf"
        case .lfe: return "LFE"
        case .lfe2: return "LFE2"
        case .unknown: return "X"
        }
    }

    /// Accepted spellings (lower case) in an explicit layout list: our labels; Dolby's (Lrs,
    /// Ltr, ...); ffmpeg's and the WAVE channel mask's (FL, SL, TFL, ...); SMPTE ST 2036-2's
    /// 22.2 names where they don't clash (SiL, TpFL, BtFC, ...); and BS.2051 codes (M+030,
    /// U+045, B+000, LFE1).
    package static let aliases: [String: ChannelRole] = {
        var a: [String: ChannelRole] = [:]
        for r in ChannelRole.allCases { a[r.label.lowercased()] = r }
        let more: [(ChannelRole, [String])] = [
            (.mono, ["mono"]),
            (.left, ["fl", "left", "m+030"]), (.right, ["fr", "right", "m-030"]),
            (.centre, ["fc", "center", "centre", "m+000"]),
            (.leftCentre, ["flc", "loc"]), (.rightCentre, ["frc", "roc"]),
            (.leftWide, ["wl", "m+060"]), (.rightWide, ["wr", "m-060"]),
            (.leftSideSurround, ["sl", "sil", "m+090"]), (.rightSideSurround, ["sr", "sir", "m-090"]),
            (.leftSurround, ["m+110"]), (.rightSurround, ["m-110"]),
            (.leftBack, ["lrs", "bl", "m+135"]), (.rightBack, ["rrs", "br", "m-135"]),
            (.backCentre, ["bc", "cs", "m+180"]),
            (.topFrontLeft, ["tfl", "tpfl", "vhl", "u+030", "u+045"]),
            (.topFrontRight, ["tfr", "tpfr", "vhr", "u-030", "u-045"]),
            (.topFrontCentre, ["tfc", "tpfc", "u+000"]),
            (.topMiddleLeft, ["tsl", "tpsil", "lts", "u+090"]), (.topMiddleRight, ["tsr", "tpsir", "rts", "u-090"]),
            (.topCentre, ["tpc", "t+000"]),
            (.topBackLeft, ["ltr", "tbl", "tpbl", "u+110", "u+135"]), (.topBackRight, ["rtr", "tbr", "tpbr", "u-110", "u-135"]),
            (.topBackCentre, ["tbc", "tpbc", "u+180"]),
            (.bottomFrontLeft, ["bfl", "btfl", "b+045"]), (.bottomFrontRight, ["bfr", "btfr", "b-045"]),
            (.bottomFrontCentre, ["bfc", "btfc", "b+000"]),
            (.lfe, ["sub", "lfe1"]),
            (.unknown, ["unknown", "other"]),
        ]
        for (role, names) in more { for n in names { a[n] = role } }
        return a
    }()

    /// The WAVE channel mask's and ffmpeg's "back" names: the 5.1 surround pair in a layout
    /// without a side pair, the back pair in one with it.
    package static let maskBackNames: Set<String> = ["bl", "br"]
}

/// The channel roles of a stream, in channel order, which fix the BS.1770 weights.
public struct ChannelLayout: Equatable, Sendable {
    /// What each channel carries, in channel order.
    public var roles: [ChannelRole]
    /// A mono stream meant for playback on two speakers: its one channel counts twice.
    public var isDualMono: Bool

    /// A layout of `roles` in channel order; `isDualMono` only with `roles == [.mono]`.
    public init(roles: [ChannelRole], isDualMono: Bool = false) {
        precondition(!isDualMono || roles == [.mono], "dual mono is one mono channel")
        self.roles = roles
        self.isDualMono = isDualMono
    }

    /// A mono file counted as two channels (weight 2.0 on its single channel).
    public static let dualMono = ChannelLayout(roles: [.mono], isDualMono: true)

    /// The named layouts, in the channel order a WAVE/ffmpeg file holds them (22.2 in SMPTE
    /// ST 2036-2 order).
    package static let namedRoles: [(names: [String], roles: [ChannelRole])] = [
        (["mono", "1.0"], [.mono]),
        (["stereo", "2.0"], [.left, .right]),
        (["3.0"], [.left, .right, .centre]),
        (["quad", "4.0"], [.left, .right, .leftSurround, .rightSurround]),
        (["5.0"], [.left, .right, .centre, .leftSurround, .rightSurround]),
        (["5.1"], [.left, .right, .centre, .lfe, .leftSurround, .rightSurround]),
        (["7.1"], [.left, .right, .centre, .lfe, .leftBack, .rightBack, .leftSideSurround, .rightSideSurround]),
        (["5.1.2"], [.left, .right, .centre, .lfe, .leftSurround, .rightSurround, .topMiddleLeft, .topMiddleRight]),
        (["5.1.4"], [.left, .right, .centre, .lfe, .leftSurround, .rightSurround,
                     .topFrontLeft, .topFrontRight, .topBackLeft, .topBackRight]),
        (["7.1.2"], [.left, .right, .centre, .lfe, .leftBack, .rightBack, .leftSideSurround, .rightSideSurround,
                     .topMiddleLeft, .topMiddleRight]),
        (["7.1.4"], [.left, .right, .centre, .lfe, .leftBack, .rightBack, .leftSideSurround, .rightSideSurround,
                     .topFrontLeft, .topFrontRight, .topBackLeft, .topBackRight]),
        (["9.1.6"], [.left, .right, .centre, .lfe, .leftBack, .rightBack, .leftWide, .rightWide,
                     .leftSideSurround, .rightSideSurround, .topFrontLeft, .topFrontRight, .topBackLeft, .topBackRight,
                     .topMiddleLeft, .topMiddleRight]),
        (["22.2"], [.leftWide, .rightWide, .centre, .lfe, .leftBack, .rightBack, .left, .right, .backCentre, .lfe2,
                    .leftSideSurround, .rightSideSurround, .topFrontLeft, .topFrontRight, .topFrontCentre, .topCentre,
                    .topBackLeft, .topBackRight, .topMiddleLeft, .topMiddleRight, .topBackCentre,
                    .bottomFrontCentre, .bottomFrontLeft, .bottomFrontRight]),
    ]

    /// The names `--layout` accepts, for help text.
    package static let names = "mono, dual-mono, stereo, 3.0, quad, 5.0, 5.1, 7.1, 5.1.2, 5.1.4, 7.1.2, 7.1.4, 9.1.6, 22.2"

    /// The usual layout for a channel count (WAV/SMPTE order): 1 mono; 2 L R; 3 L R C;
    /// 4 L R Ls Rs; 5 L R C Ls Rs; 6 5.1; 8 7.1; 12 7.1.4; 16 9.1.6; 24 22.2; otherwise all
    /// channels of unknown position (weight 1.0).
    public static func standard(channelCount: Int) -> ChannelLayout {
        let byCount: [Int: String] = [1: "mono", 2: "stereo", 3: "3.0", 4: "quad", 5: "5.0", 6: "5.1", 8: "7.1",
                                      12: "7.1.4", 16: "9.1.6", 24: "22.2"]
        if let name = byCount[channelCount], let l = named[name] { return l }
        return ChannelLayout(roles: Array(repeating: .unknown, count: max(channelCount, 0)))
    }

    package static let named: [String: ChannelLayout] = {
        var d: [String: ChannelLayout] = ["dual-mono": dualMono, "dualmono": dualMono]
        for (names, roles) in namedRoles { for n in names { d[n] = ChannelLayout(roles: roles) } }
        return d
    }()

    /// Parses a `--layout` value: a name (see `names`) or a comma list of channel labels such as
    /// `L,R,C,LFE,Ls,Rs` or `L,R,C,LFE,Lss,Rss,Lb,Rb,Ltf,Rtf,Ltb,Rtb` (case-insensitive; the
    /// spellings of `ChannelRole.aliases` accepted). BL/BR, as a WAVE channel mask or ffmpeg
    /// names them, are the ±110° surround pair when the list has no side pair. Throws the
    /// position of the token it did not understand.
    public static func parse(_ text: String) throws(LayoutError) -> ChannelLayout {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let layout = named[trimmed] { return layout }
        let tokens = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var roles: [ChannelRole] = []
        for (i, token) in tokens.enumerated() {
            guard let role = ChannelRole.aliases[token] else {
                let original = text.split(separator: ",", omittingEmptySubsequences: false)
                let shown = i < original.count ? original[i].trimmingCharacters(in: .whitespaces) : token
                throw LayoutError(text: text, position: i + 1, channel: token.isEmpty ? nil : shown)
            }
            roles.append(role)
        }
        let hasSidePair = roles.contains(.leftSideSurround) || roles.contains(.rightSideSurround)
        if !hasSidePair {
            for (i, token) in tokens.enumerated() where ChannelRole.maskBackNames.contains(token) {
                roles[i] = token == "bl" ? .leftSurround : .rightSurround
            }
        }
        return ChannelLayout(roles: roles)
    }

    /// The speaker names of a WAVE_FORMAT_EXTENSIBLE channel mask (as ffmpeg also writes it), in
    /// channel order, when the mask names exactly `channelCount` speakers; nil otherwise (no
    /// mask, or one that leaves channels unaccounted for). Bit 31 (SPEAKER_ALL) is ignored.
    package static func speakerNames(waveMask: UInt32, channelCount: Int) -> [String]? {
        let bits = ["FL", "FR", "FC", "LFE", "BL", "BR", "FLC", "FRC", "BC", "SL", "SR",
                    "TC", "TFL", "TFC", "TFR", "TBL", "TBC", "TBR"]
        let mask = waveMask & 0x7FFF_FFFF
        var names: [String] = []
        for (bit, name) in bits.enumerated() where mask & (1 << UInt32(bit)) != 0 { names.append(name) }
        guard !names.isEmpty, names.count == channelCount, mask >> UInt32(bits.count) == 0 else { return nil }
        return names
    }

    /// The layout to weight a stream with: the file's own speaker map when it names every
    /// channel (`fromFile`), else the usual layout for the channel count (`guessed` true when
    /// more than two channels make that a guess).
    package static func resolve(speakerNames: [String]?, channelCount: Int) -> (layout: ChannelLayout, guessed: Bool, fromFile: Bool) {
        if let names = speakerNames, names.count == channelCount, !names.contains("?"),
           let l = try? parse(names.joined(separator: ",")), l.channelCount == channelCount {
            return (l, false, true)
        }
        return (standard(channelCount: channelCount), channelCount > 2, false)
    }

    /// Where the layout a stream is weighted with came from: `--layout`, the file's own speaker
    /// map, or the usual layout for its channel count (`rawValue` as records spell it).
    package enum Source: String, Sendable { case option, file, channelCount = "channel-count" }

    /// The layout to weight a file's stream with: `override` (`--layout`) when given, which must
    /// name as many channels as the stream has, else `resolve`'s, with `guessNote` when guessed.
    package static func choose(override: ChannelLayout?, speakerNames: [String]?, channelCount: Int)
        throws(LayoutCountMismatch) -> (layout: ChannelLayout, note: String?, source: Source) {
        if let l = override {
            guard l.roles.count == channelCount else { throw LayoutCountMismatch(channels: channelCount, named: l.roles.count) }
            return (l, nil, .option)
        }
        let resolved = resolve(speakerNames: speakerNames, channelCount: channelCount)
        return (resolved.layout, resolved.guessed ? resolved.layout.guessNote : nil, resolved.fromFile ? .file : .channelCount)
    }

    /// The weight ffmpeg's `ebur128` filter gives a channel: 1.41 for every back, side and top
    /// back channel of its channel mask, 0 for the LFE, 1.0 otherwise (not by position).
    package static func ffmpegWeight(_ role: ChannelRole) -> Double {
        switch role {
        case .lfe, .lfe2: return 0
        case .leftSurround, .rightSurround, .leftSideSurround, .rightSideSurround, .leftBack, .rightBack, .backCentre,
             .topBackLeft, .topBackRight, .topBackCentre:
            return ChannelPosition.lateralWeight
        default: return 1.0
        }
    }

    /// For a layout ffmpeg's `ebur128` weighs otherwise (7.1's back pair, top back channels,
    /// wides): the sentence for a record's notes naming those channels, so a reader comparing
    /// with ffmpeg knows why it differs; nil where the two agree (mono to 5.1).
    package var ffmpegWeightingNote: String? {
        guard !isDualMono else { return nil }
        let differ = roles.filter { $0 != .unknown && $0.weight != Self.ffmpegWeight($0) }
        guard !differ.isEmpty else { return nil }
        func list(_ rs: [ChannelRole]) -> String { rs.map(\.label).joined(separator: ", ") }
        let heavier = differ.filter { Self.ffmpegWeight($0) > $0.weight }, lighter = differ.filter { Self.ffmpegWeight($0) < $0.weight }
        var parts: [String] = []
        if !heavier.isEmpty { parts.append("\(list(heavier)) 1.41 where BS.1770-4 by position (as here) weighs them 1.0") }
        if !lighter.isEmpty { parts.append("\(list(lighter)) 1.0 where BS.1770-4 weighs them 1.41") }
        return "ffmpeg's ebur128 filter weighs \(parts.joined(separator: ", and ")), so its integrated loudness of this layout differs from this one where those channels carry sound."
    }

    /// The sentence for a record's notes when `resolve` guessed.
    package var guessNote: String {
        if roles.allSatisfy({ $0 == .unknown }) {
            return "The file has no channel map and \(channelCount) channels is no usual layout, so every channel was weighted 1.0 (an LFE among them would be counted); give --layout to weight by position."
        }
        return "The channel layout was guessed from the channel count (\(channelCount) channels: \(description)), since the file has no channel map; give --layout if the channels are in another order."
    }

    /// The number of channels.
    public var channelCount: Int { roles.count }

    /// The layout's usual name ("stereo", "5.1", "7.1.4", ...) when it is one of the named ones.
    public var name: String? {
        if isDualMono { return "dual-mono" }
        return Self.namedRoles.first { $0.roles == roles }?.names.first
    }

    /// The BS.1770 weight of each channel.
    public var weights: [Double] { isDualMono ? [2.0] : roles.map(\.weight) }

    /// The labels joined by commas, e.g. "L,R,C,LFE,Ls,Rs" ("dual-mono" for dual mono).
    public var description: String { isDualMono ? "dual-mono" : roles.map(\.label).joined(separator: ",") }
}

/// A layout text that names no layout: the channel name at `position` (from 1) is empty
/// (`channel` nil) or unknown (`channel` as it was written).
public struct LayoutError: Error, Equatable, Sendable {
    /// The layout text as given.
    public var text: String
    /// Which channel name is wrong, counted from 1.
    public var position: Int
    /// That name as it was written; nil when it is empty.
    public var channel: String?

    /// The error for `text`'s channel name at `position`.
    public init(text: String, position: Int, channel: String?) {
        self.text = text
        self.position = position
        self.channel = channel
    }
}

/// A `--layout` that names `named` channels for a stream of `channels`.
package struct LayoutCountMismatch: Error, Equatable, Sendable {
    public var channels: Int
    public var named: Int
}
