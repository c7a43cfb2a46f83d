import Foundation

/// Decoders started before their reader needs them, each handed to the first reader of its
/// stream instead of starting another ffmpeg: the one of the file's first audio stream that
/// opening the input started (its ffmpeg has probed the file and waits with the samples), and
/// those `prestart` starts for the encode while a stream is still being prepared. Each is taken
/// at most once; left untaken, it is ended when this is released.
public final class MediaDecoderHandOff: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [Int: FFmpegSource] = [:]

    /// `source`: kept only when it decodes audio stream 0, whole, and nothing was read from it.
    public init(_ source: AudioSource) {
        if let s = source as? FFmpegSource, s.audioStream == 0, s.isUnread { sources[0] = s }
    }

    /// The waiting decoder when it is of `ordinal` and still unread, else a new one.
    package func decoder(path: String, ordinal: Int) throws -> FFmpegSource {
        lock.lock()
        let waiting = sources[ordinal]
        let s = waiting?.path == path && waiting?.isUnread == true ? waiting : nil
        sources[ordinal] = nil
        lock.unlock()
        return try s ?? FFmpegSource(path: path, audioStream: ordinal)
    }

    /// Starts the decoder the next reader of `ordinal` takes, unless one waits already. A decoder
    /// that can't start is left to that reader to start and report.
    package func prestart(path: String, ordinal: Int) {
        lock.lock()
        let waiting = sources[ordinal] != nil
        lock.unlock()
        guard !waiting, let s = try? FFmpegSource(path: path, audioStream: ordinal) else { return }
        lock.lock()
        if sources[ordinal] == nil { sources[ordinal] = s }
        lock.unlock()
    }
}

extension Optional where Wrapped == MediaDecoderHandOff {
    /// The handed-off decoder for `ordinal` when there is one, else a new one.
    package func decoder(path: String, ordinal: Int) throws -> FFmpegSource {
        try self?.decoder(path: path, ordinal: ordinal) ?? FFmpegSource(path: path, audioStream: ordinal)
    }
}
