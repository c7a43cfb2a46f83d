import Foundation

/// The decoder of the file's first audio stream that opening the input already started (its
/// ffmpeg has probed the file and waits with the samples), handed to the first reader of that
/// stream instead of starting another ffmpeg. Taken at most once; left untaken, its owner ends it.
public final class MediaDecoderHandOff: @unchecked Sendable {
    private let lock = NSLock()
    private var source: FFmpegSource?

    /// `source`: kept only when it decodes audio stream 0, whole, and nothing was read from it.
    public init(_ source: AudioSource) {
        if let s = source as? FFmpegSource, s.audioStream == 0, s.isUnread { self.source = s }
    }

    /// The waiting decoder when it is of `ordinal` and still unread, else a new one.
    func decoder(path: String, ordinal: Int) throws -> FFmpegSource {
        lock.lock()
        let s = ordinal == 0 && source?.path == path && source?.isUnread == true ? source : nil
        if s != nil { source = nil }
        lock.unlock()
        return try s ?? FFmpegSource(path: path, audioStream: ordinal)
    }
}

extension Optional where Wrapped == MediaDecoderHandOff {
    /// The handed-off decoder for `ordinal` when there is one, else a new one.
    func decoder(path: String, ordinal: Int) throws -> FFmpegSource {
        try self?.decoder(path: path, ordinal: ordinal) ?? FFmpegSource(path: path, audioStream: ordinal)
    }
}
