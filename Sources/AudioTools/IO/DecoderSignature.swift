import CSndfile
import Foundation

/// What, besides a file and the options, decides what the decoders make of it: the libsndfile
/// version and which ffmpeg program (its path, size and modification time) is installed. A cached
/// result is only reused under the same signature, so installing ffmpeg or upgrading libsndfile
/// recomputes what they may now read differently.
public enum DecoderSignature {
    public static let current: String = {
        var s = "libsndfile=" + String(cString: sf_version_string())
        if let p = FFmpegSource.ffmpegPath, let st = FileStamp.of(p) {
            s += ";ffmpeg=\(p)@\(st.sizeBytes)/\(st.modifiedNanoseconds)"
        } else {
            s += ";ffmpeg=none"
        }
        return s
    }()
}
