import AudioIO

/// What a `-` argument reads from standard input: the audio itself (its first bytes are audio,
/// or anything but text) or, as before, lines of JSON records or paths.
public enum StandardInputArgument {
    /// Set by a tool given `--raw`: standard input is headerless audio, never lines.
    nonisolated(unsafe) public static var holdsRawAudio = false

    /// The usage error for `-` when standard input is a terminal.
    public static let terminalMessage = "`-` reads audio (or records, one per line) from standard input, but standard input is a terminal: pipe audio in, e.g. `ffmpeg -i input.mkv -f wav - | lufs-measure -` or `arecord -f cd | lufs-measure -`."

    /// Whether standard input holds audio. Looks at its first bytes without taking them, so the
    /// line reader or the decoder then reads them from the start.
    public static func holdsAudio() -> Bool {
        if holdsRawAudio { return true }
        return isAudio(PipeReader.standardInput.peekAvailable(atLeast: 4))
    }

    /// The rule on the first bytes: a known audio signature, or bytes no text has (a NUL, a
    /// control character) — garbage too, which the decoder then calls unrecognised. Text (a JSON
    /// record, a path) is lines; nothing at all is no lines.
    package static func isAudio(_ head: [UInt8]) -> Bool {
        guard !head.isEmpty else { return false }
        let magic = String(decoding: head.prefix(4), as: UTF8.self)
        if ["RIFF", "RF64", "fLaC", "OggS", "caff", "riff", ".snd", "FORM"].contains(magic) { return true }
        return head.prefix(512).contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
    }

    /// The bytes looked at ahead, for the line reader to start with.
    package static func takeLookedAt() -> [UInt8] {
        let r = PipeReader.standardInput
        r.handedToLines = true
        return r.take(r.buffered)
    }
}
