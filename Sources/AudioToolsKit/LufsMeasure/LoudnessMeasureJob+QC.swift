import AudioIO
import AudioSignal
import Foundation
import JSONValue

/// lufs-measure --qc and --platforms, riding on the measurement's one decode: the QC analyser is
/// fed the same blocks as the meter, the platform figures come from the meter's result.
package struct LoudnessExtras: Sendable {
    /// Run the QC analysers (--qc, or any QC gate).
    package var qc = false
    package var qcGate: QCGate?
    /// The platform profiles to report (--platforms / --platform), nil for none.
    package var platforms: [PlatformProfile]?

    package var isEmpty: Bool { !qc && platforms == nil }
}

extension LoudnessMeasureJob {
    /// This job with `extras` (a builder, so the tool's construction of the job stays one call).
    package func adding(_ extras: LoudnessExtras) -> LoudnessMeasureJob {
        var j = self
        j.extras = extras
        return j
    }

    /// A QC analyser for a stream of `format` under `layout`, or nil without --qc; its overs are
    /// counted by `meter`'s true-peak oversamplers, which interpolate the same values anyway.
    package func qcAnalyser(_ format: AudioFormat, layout: ChannelLayout, meter: LoudnessMeter) -> QCAnalyser? {
        guard extras.qc else { return nil }
        let n = format.channelCount
        let labels = layout.roles.map(\.label)
        var pair: (Int, Int)?
        if n >= 2 {
            if let l = labels.firstIndex(of: "L"), let r = labels.firstIndex(of: "R"), l < n, r < n { pair = (l, r) } else { pair = (0, 1) }
        }
        let qc = QCAnalyser(sampleRate: format.sampleRate, channelCount: n, frontPair: pair, separateFrontLoudness: n > 2,
                            measuresLevels: extras.qcGate?.needsLevels ?? false)
        _ = qc.sharesOversampling(with: meter)
        return qc
    }

    /// `loudness` with `platforms` and (stashed for `takeQC`) `qc` added; `blocks` are the meter's
    /// 400-ms block energies (a stereo file's mono fold-down is estimated from them).
    package func addingExtras(_ loudness: JSON, _ m: LoudnessMeasurement, qc: QCAnalyser?, layout: ChannelLayout, blocks: [Double]) -> JSON {
        guard case .object(var o) = loudness else { return loudness }
        if let p = extras.platforms { o["platforms"] = PlatformsRecord.json(p, m) }
        if let a = qc {
            let r = a.finish(programmeBlocks: blocks)
            let names = (0..<a.channelCount).map { $0 < layout.roles.count ? layout.roles[$0].label : "ch\($0 + 1)" }
            o["qc"] = QCRecord.json(r, names: names, programmeLUFS: a.channelCount == 2 ? m.integratedLUFS : nil, gate: extras.qcGate)
        }
        return .object(o)
    }

    /// Takes the stashed `qc` out of `loudness` (and out of each of its streams): the record's
    /// `qc` is that of the stream measured as `loudness`.
    package func takeQC(_ loudness: inout JSON) -> JSON? {
        guard case .object(var o) = loudness, let q = o["qc"] else { return nil }
        o["qc"] = nil
        if let streams = o["streams"]?.arrayValue {
            o["streams"] = .array(streams.map { s in
                guard case .object(var so) = s else { return s }
                so["qc"] = nil
                return .object(so)
            })
        }
        loudness = .object(o)
        return q
    }
}
