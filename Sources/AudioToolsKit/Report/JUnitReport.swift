import Foundation
import ToolRunner

/// JUnit XML for CI systems: one testcase per measured file, failed gates as failures, and
/// inputs that held nothing to measure (an empty folder) as errors.
public enum JUnitReport {
    public struct Case: Equatable, Sendable {
        public var name: String
        public var passed: Bool
        public var reasons: [String]
        public var seconds: Double?
        /// Not a failed check but nothing to check (reported as a JUnit `error`).
        public var isError: Bool

        public init(name: String, passed: Bool, reasons: [String], seconds: Double? = nil, isError: Bool = false) {
            self.name = name
            self.passed = passed
            self.reasons = reasons
            self.seconds = seconds
            self.isError = isError
        }
    }

    /// The report as a string; identical input gives identical bytes.
    public static func xml(suiteName: String, cases: [Case]) -> String {
        let errors = cases.filter { !$0.passed && $0.isError }.count
        let failures = cases.filter { !$0.passed && !$0.isError }.count
        let total = cases.compactMap(\.seconds).reduce(0, +)
        let hasTimes = cases.contains { $0.seconds != nil }
        let timeAttr = hasTimes ? " time=\"\(format(total))\"" : ""
        let suite = escape(suiteName)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"\(suite)\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\"\(timeAttr)>\n"
        out += "  <testsuite name=\"\(suite)\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\"\(timeAttr)>\n"
        for c in cases {
            let time = c.seconds.map { " time=\"\(format($0))\"" } ?? ""
            let head = "    <testcase classname=\"\(suite)\" name=\"\(escape(c.name))\"\(time)"
            if c.passed {
                out += head + "/>\n"
            } else {
                let reasons = c.reasons.isEmpty ? ["failed"] : c.reasons
                out += head + ">\n"
                let tag = c.isError ? "error" : "failure"
                out += "      <\(tag) message=\"\(escape(reasons.joined(separator: "; ")))\" type=\"\(c.isError ? "no-input" : "loudness")\">"
                out += escape(reasons.joined(separator: "\n")) + "</\(tag)>\n"
                out += "    </testcase>\n"
            }
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// Seconds with millisecond precision, "." decimal point whatever the locale.
    package static func format(_ s: Double) -> String {
        String(format: "%.3f", s.isFinite ? max(s, 0) : 0)
    }

    /// Escapes markup characters (see XMLText).
    package static func escape(_ s: String) -> String { XMLText.escaped(s) }
}
