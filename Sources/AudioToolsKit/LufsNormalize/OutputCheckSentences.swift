import AudioSignal
import Foundation
import ToolRunner

/// What a person reads when the file lufs-normalize wrote contradicts what its record promises.
extension WrittenOutputCheck.Miss: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        func f(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "null" }
        var what: [String] = []
        if offTarget, let l = integratedLUFS {
            what.append("\(f(abs(l - targetLUFS))) LU \(l < targetLUFS ? "under" : "over") the \(LoudnessGate.compact(targetLUFS)) LUFS target (the tolerance is \(LoudnessGate.compact(toleranceLU)) LU)")
        }
        if overCeiling { what.append("over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling") }
        let figures = "\(ToolError.quoted(path)) came out at \(f(integratedLUFS)) LUFS and \(f(truePeakDBTP)) dBTP, \(what.joined(separator: " and "))"
        if measuredHere {
            return ToolError(.offTarget, "\(figures), though it was measured here at \(f(sourceLUFS)) LUFS; nothing was written.",
                             suggestion: "Report this with the file: the written audio doesn't match its own measurement.")
        }
        return ToolError(.offTarget, "\(figures): the record's loudness (\(f(sourceLUFS)) LUFS), which the gain was planned from, can't be the file's own measurement, so nothing was written.",
                         suggestion: "Measure it again (lufs-measure \(RecordedLoudness.Refusal.shellQuoted(path)) | lufs-normalize ...), or pass the bare path to have it measured here.")
    }
}
