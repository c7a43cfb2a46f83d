/// Why one audio stream of a file with several can't take its gain in the bitstream: `stream`
/// counted among the audio streams from 0 (ffmpeg's 0:a:N), `reason` the stream's own refusal.
/// `lufs-normalize --lossless-gain` changes every audio stream of a file or none, so the whole
/// file is refused, before anything is written (the sentence is the tool's, in
/// Tools/Errors/BitstreamGainStreamSentences.swift).
public struct BitstreamGainStreamError: Error, Equatable, Sendable {
    public var stream: Int
    public var reason: BitstreamGainError

    public init(stream: Int, reason: BitstreamGainError) {
        self.stream = stream
        self.reason = reason
    }
}
