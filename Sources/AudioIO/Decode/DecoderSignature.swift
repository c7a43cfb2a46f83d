import AudioSignal
import CSndfile
import Foundation

/// What, besides a file and the options, decides what the decoders make of it: the libsndfile
/// version, which ffmpeg program (its path, size and modification time) is installed, and which
/// libopus and libopusfile decode Opus. A cached result is only reused under the same signature,
/// so installing ffmpeg or upgrading libsndfile or libopus recomputes what they may now read
/// differently.
public enum DecoderSignature {
    /// `decoders=` and a short digest of `text`: what cache keys carry.
    public static let current: String = "decoders=" + String(XXHash64.hex96(of: Array(text.utf8)).prefix(16))

    /// `libsndfile=libsndfile-1.2.0;ffmpeg=/usr/bin/ffmpeg@293288/1700000000000000000;libopus=…;libopusfile=…`.
    public static let text: String = {
        var s = "libsndfile=" + String(cString: sf_version_string())
        if let p = FFmpegSource.ffmpegPath, let st = FileStamp.of(p) {
            s += ";ffmpeg=\(p)@\(st.sizeBytes)/\(st.modifiedNanoseconds)"
        } else {
            s += ";ffmpeg=none"
        }
        s += ";" + OpusLibraries.signature
        return s
    }()
}
