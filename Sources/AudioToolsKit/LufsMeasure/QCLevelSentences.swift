import AudioSignal
import Foundation

/// The sentences of the level gates (ACX's sample peak, RMS and noise floor, the DC offset) and of
/// the loudness-range gate: each names its option, its figure and, where it has one, its time.
extension QCGate.LevelFault {
    /// The option the gate is (the record's `qc.gate.failures[].gate`).
    package var gate: String {
        switch kind {
        case .samplePeak: "max-sample-peak"
        case .rmsLow: "min-rms"
        case .rmsHigh: "max-rms"
        case .noiseFloor: "max-noise-floor"
        case .dcOffset: "max-dc-offset"
        }
    }

    /// "--max-noise-floor -60: the noise floor is -52.3 dBFS (the quietest 0.5 s, from 72.500 s), over -60 dBFS".
    package func reason(names: [String]) -> String {
        func name(_ c: Int) -> String { c < names.count ? names[c] : "ch\(c + 1)" }
        func level(_ v: Double?) -> String { v.map { "\(LoudnessGate.oneDecimal($0)) dBFS" } ?? "-inf dBFS (digital silence)" }
        let head = "--\(gate) \(QCGate.compact(limit)): "
        let limitText = "\(QCGate.compact(limit)) dBFS"
        switch kind {
        case .samplePeak:
            return head + "the sample peak is \(level(dBFS)), in \(channels.first.map { name($0.channel) } ?? "?") at \(String(format: "%.3f s", atSeconds ?? 0)), over \(limitText)"
        case .rmsLow:
            return head + "the RMS level is \(level(dBFS)), under \(limitText)"
        case .rmsHigh:
            return head + "the RMS level is \(level(dBFS)), over \(limitText)"
        case .noiseFloor:
            let place = wholeFile ? "the whole file, shorter than 0.5 s" : "the quietest 0.5 s, from \(String(format: "%.3f s", atSeconds ?? 0))"
            return head + "the noise floor is \(level(dBFS)) (\(place)), over \(limitText)"
        case .dcOffset:
            let list = channels.map { "\(LoudnessGate.oneDecimal($0.dBFS)) dBFS in \(name($0.channel))" }.joined(separator: ", ")
            return head + "the DC offset (a channel's mean) is \(list), over \(limitText)"
        }
    }
}

extension LoudnessGate {
    /// Whether `m` passes, with one sentence per failed condition: `evaluate`'s and the loudness range's.
    package func verdict(_ m: LoudnessMeasurement) -> (pass: Bool, reasons: [String]) {
        var v = evaluate(m)
        switch rangeFault(m) {
        case .over(let r, let limit)?:
            v.reasons.append("loudness range \(Self.oneDecimal(r)) LU is above the \(Self.compact(limit)) LU maximum")
        case .tooShort(let limit)?:
            v.reasons.append("loudness range is undefined (shorter than 3 s), so it cannot be checked against the \(Self.compact(limit)) LU maximum")
        case nil: break
        }
        return (v.reasons.isEmpty, v.reasons)
    }
}
