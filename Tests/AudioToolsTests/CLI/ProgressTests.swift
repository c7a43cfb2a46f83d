import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The progress line on a terminal: cleared before stdout is written when stdout is the same
/// terminal, so a record never starts on it; left alone when stdout goes elsewhere.
@Suite struct ProgressTests {
    final class Sink { var text = "" }

    @Test func theLineIsClearedBeforeRecordsOnTheSameTerminal() {
        let sink = Sink()
        let p = Progress(enabled: true, terminal: true, sharesTerminalWithStdout: true, tool: "t") { sink.text += $0 }
        p.step(failed: false, path: "/a/one.wav")
        #expect(sink.text == "\r\u{1B}[Kt: 1 done, 0 failed — one.wav")
        p.yieldToStdout()
        #expect(sink.text == "\r\u{1B}[Kt: 1 done, 0 failed — one.wav\r\u{1B}[K")
        // Cleared already: nothing more until the line is drawn again.
        p.yieldToStdout()
        p.clear()
        #expect(sink.text == "\r\u{1B}[Kt: 1 done, 0 failed — one.wav\r\u{1B}[K")
    }

    @Test func stdoutElsewhereLeavesTheLineUntilTheEnd() {
        let sink = Sink()
        let p = Progress(enabled: true, terminal: true, sharesTerminalWithStdout: false, tool: "t") { sink.text += $0 }
        p.step(failed: true, path: nil)
        p.yieldToStdout()
        #expect(sink.text == "\r\u{1B}[Kt: 1 done, 1 failed")
        p.clear()
        #expect(sink.text == "\r\u{1B}[Kt: 1 done, 1 failed\r\u{1B}[K")
    }
}
