import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// The words and record keys of `--channels` (`downmix`) and `--bit-rate` / `--quality` (`encoding`).
package enum DownmixWords {
    /// The matrix as a person reads it.
    package static func matrix(_ d: Downmix) -> String {
        let stereo = "ITU-R BS.775: L' = L + 0.7071 C + 0.7071 Ls, R' = R + 0.7071 C + 0.7071 Rs"
        let lfe = d.dropped.isEmpty ? "" : ", the LFE dropped"
        switch d.matrix {
        case .stereo: return stereo + lfe
        case .mid: return "mid: M = (L + R) / 2"
        case .stereoThenMid: return stereo + lfe + ", then the mid M = (L' + R') / 2"
        }
    }

    /// The losses list's words.
    package static func loss(_ d: Downmix) -> String {
        "downmixed from \(d.sourceChannelCount) channels to \(d.channelCount) (\(matrix(d))): the separate channels are gone"
    }

    /// `normalized.downmix`.
    package static func json(_ d: Downmix) -> JSON {
        .object(["from_channels": .int(d.sourceChannelCount), "channels": .int(d.channelCount),
                 "matrix": .string(d.matrix == .stereo ? "bs775" : d.matrix == .mid ? "mid" : "bs775-mid"),
                 "lfe_dropped": .bool(!d.dropped.isEmpty), "description": .string(matrix(d))])
    }
}

extension LossyRate {
    /// `normalized.encoding`: what steered the encoder (`--bit-rate` or `--quality`).
    package func json(codec: LossyRate.Codec?) -> JSON {
        var o: [String: JSON] = ["bit_rate": .null, "quality": .null]
        switch self {
        case .bitRate(let b): o["bit_rate"] = .int(b)
        case .quality(let q): o["quality"] = .double(q)
        }
        o["rate_control"] = .string(codec.map { rateControl($0) } ?? "vbr")
        return .object(o)
    }
}
