import Foundation

/// A fixed downmix matrix to stereo or mono (`--channels 2|1`): 5.1 to stereo by ITU-R BS.775
/// (L' = L + 0.7071 C + 0.7071 Ls, R' = R + 0.7071 C + 0.7071 Rs, the LFE dropped), anything with
/// a left and a right to mono as their mid ((L′ + R′) / 2). Unnormalised, as the recommendation
/// gives it: the loudness is measured again on the downmix, so the gain makes up for the sum.
public struct Downmix: Equatable, Sendable {
    /// Which matrix: `stereo` (BS.775), `mid` (a stereo source's (L + R) / 2), or `stereoThenMid`
    /// (a surround source: BS.775, then the mid of the result).
    public enum Matrix: String, Equatable, Sendable {
        case stereo, mid, stereoThenMid
    }

    /// Why a layout can't be downmixed: facts only.
    public enum Refusal: Error, Equatable, Sendable {
        /// The source has no more channels than asked for.
        case notFewer(sourceChannels: Int, channels: Int)
        /// The matrix has no place for these channels (wide, top, back-centre...).
        case unplaced([ChannelRole])
        /// Only 1 or 2 channels can be asked for.
        case unsupportedCount(Int)
    }

    /// The BS.775 weight of the centre and each surround channel into its side: 1/√2 (−3 dB).
    public static let sideGain: Float = 0.70710678

    public let matrix: Matrix
    /// One row per output channel: the weight of each source channel.
    public let rows: [[Float]]
    /// The source's roles whose signal the matrix drops (the LFE).
    public let dropped: [ChannelRole]

    public var channelCount: Int { rows.count }
    public var sourceChannelCount: Int { rows.first?.count ?? 0 }

    /// The output's roles: left and right, or mono.
    public var roles: [ChannelRole] { rows.count == 1 ? [.mono] : [.left, .right] }

    /// The matrix taking a source whose channels are `roles` to `channels` (1 or 2).
    public init(roles: [ChannelRole], to channels: Int) throws(Refusal) {
        guard channels == 1 || channels == 2 else { throw .unsupportedCount(channels) }
        guard roles.count > channels else { throw .notFewer(sourceChannels: roles.count, channels: channels) }
        var left = [Float](repeating: 0, count: roles.count), right = left
        var dropped: [ChannelRole] = [], unplaced: [ChannelRole] = []
        var surround = false
        for (k, role) in roles.enumerated() {
            switch role {
            case .left: left[k] = 1
            case .right: right[k] = 1
            case .mono, .centre:
                left[k] = Self.sideGain; right[k] = Self.sideGain
                surround = surround || role == .centre
            case .leftSurround, .leftSideSurround, .leftBack:
                left[k] = Self.sideGain; surround = true
            case .rightSurround, .rightSideSurround, .rightBack:
                right[k] = Self.sideGain; surround = true
            case .lfe, .lfe2: dropped.append(role); surround = true
            default: unplaced.append(role)
            }
        }
        guard unplaced.isEmpty else { throw .unplaced(unplaced) }
        self.dropped = dropped
        if channels == 2 {
            matrix = .stereo
            rows = [left, right]
        } else {
            matrix = surround ? .stereoThenMid : .mid
            rows = [zip(left, right).map { ($0 + $1) / 2 }]
        }
    }

    /// `block` (the source's channels) through the matrix into `out` (resized to fit).
    public func apply(_ block: AudioBlock, into out: inout AudioBlock) {
        let n = block.frames
        if out.channels.count != rows.count { out.channels = Array(repeating: [], count: rows.count) }
        for (o, row) in rows.enumerated() {
            if out.channels[o].count < n { out.channels[o] = [Float](repeating: 0, count: n) }
            out.channels[o].withUnsafeMutableBufferPointer { dst in
                for i in 0..<n { dst[i] = 0 }
                for (c, w) in row.enumerated() where w != 0 {
                    block.channels[c].withUnsafeBufferPointer { src in
                        for i in 0..<n { dst[i] += w * src[i] }
                    }
                }
            }
        }
        out.frames = n
    }
}
