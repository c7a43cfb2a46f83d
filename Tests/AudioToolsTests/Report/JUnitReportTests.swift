import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct JUnitReportTests {
    @Test func junitReport() {
        let xml = JUnitReport.xml(suiteName: "lufs-measure", cases: [
            .init(name: "a&b.wav", passed: true, reasons: [], seconds: 1.5),
            .init(name: "<loud>.wav", passed: false, reasons: ["-12.0 LUFS is 2.0 LU above the -14 ±1 target", "x \"y\""], seconds: 0.25),
        ])
        #expect(xml == """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="lufs-measure" tests="2" failures="1" errors="0" time="1.750">
          <testsuite name="lufs-measure" tests="2" failures="1" errors="0" skipped="0" time="1.750">
            <testcase classname="lufs-measure" name="a&amp;b.wav" time="1.500"/>
            <testcase classname="lufs-measure" name="&lt;loud&gt;.wav" time="0.250">
              <failure message="-12.0 LUFS is 2.0 LU above the -14 ±1 target; x &quot;y&quot;" type="loudness">-12.0 LUFS is 2.0 LU above the -14 ±1 target&#10;x &quot;y&quot;</failure>
            </testcase>
          </testsuite>
        </testsuites>

        """)
        #expect(JUnitReport.escape("a\u{1}b") == "a\u{FFFD}b")
    }

    @Test func junitCarriesErrors() {
        let xml = JUnitReport.xml(suiteName: "lufs-measure", cases: [
            .init(name: "deliverables", passed: false, reasons: ["no audio files found in “deliverables”"], isError: true),
        ])
        #expect(xml.contains("tests=\"1\" failures=\"0\" errors=\"1\""))
        #expect(xml.contains("<error message=\"no audio files found in “deliverables”\" type=\"no-input\">"))
        #expect(!xml.contains("<failure"))
    }
}
