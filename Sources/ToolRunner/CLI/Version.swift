/// The one version of audio-tools: `--version` on every tool, the man pages and the Debian
/// package (the Makefile reads it from this file) all say this.
public enum AudioToolsVersion {
    public static let string = "0.1.0"
}
