import Foundation

/// The level gates of `QCGate` (ACX's sample peak, RMS and noise floor, and the DC offset) as
/// typed faults: the figure, the limit, where and in which channel; the tools write the sentences.
extension QCGate {
    public struct LevelFault: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            case samplePeak, rmsLow, rmsHigh, noiseFloor, dcOffset
        }

        public var kind: Kind
        public var limit: Double
        /// The figure, dBFS; nil for digital silence (−∞ dBFS).
        public var dBFS: Double?
        public var atSeconds: Double?
        /// The channel (sample peak), or the channels over the limit with their figures (DC offset).
        public var channels: [(channel: Int, dBFS: Double)]
        /// Noise floor: the file is shorter than one window, so the figure is the whole file's.
        public var wholeFile = false

        public static func == (l: LevelFault, r: LevelFault) -> Bool {
            l.kind == r.kind && l.limit == r.limit && l.dBFS == r.dBFS && l.atSeconds == r.atSeconds
                && l.channels.map(\.channel) == r.channels.map(\.channel)
        }
    }

    /// The level gates `r` fails, in the order sample peak, RMS, noise floor, DC offset.
    public func levelFaults(_ r: QCAnalyser.Result) -> [LevelFault] {
        var out: [LevelFault] = []
        let slack = 1e-9
        if let l = r.levels {
            if let m = maxSamplePeakDBFS, let p = l.samplePeakDBFS, p > m + slack {
                out.append(LevelFault(kind: .samplePeak, limit: m, dBFS: p, atSeconds: l.samplePeakAtSeconds,
                                      channels: [(l.samplePeakChannel, p)]))
            }
            if let m = minRMSDBFS, (l.rmsDBFS.map { $0 < m - slack } ?? true) {
                out.append(LevelFault(kind: .rmsLow, limit: m, dBFS: l.rmsDBFS, atSeconds: nil, channels: []))
            }
            if let m = maxRMSDBFS, let v = l.rmsDBFS, v > m + slack {
                out.append(LevelFault(kind: .rmsHigh, limit: m, dBFS: v, atSeconds: nil, channels: []))
            }
            if let m = maxNoiseFloorDBFS, let v = l.noiseFloorDBFS, v > m + slack {
                out.append(LevelFault(kind: .noiseFloor, limit: m, dBFS: v, atSeconds: l.noiseFloorAtSeconds, channels: [],
                                      wholeFile: l.shorterThanWindow))
            }
        }
        if let m = maxDCOffsetDBFS {
            let over = r.dcOffsetDBFS.enumerated().compactMap { c, v in v.flatMap { $0 > m + slack ? (c, $0) : nil } }
            if let worst = over.map(\.1).max() {
                out.append(LevelFault(kind: .dcOffset, limit: m, dBFS: worst, atSeconds: nil, channels: over))
            }
        }
        return out
    }
}
