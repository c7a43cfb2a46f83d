import ToolRunner

/// lufs-normalize's --remove-tags and --id3v2 (rsgain's `-s d` and `-I 3|4`), declared here so the
/// tool's table only lists them.
extension LufsNormalize {
    package static let tagOptions: [OptionSpec] = [
        .flag("remove-tags", help: "Remove the ReplayGain (REPLAYGAIN_*) and R128 (R128_TRACK_GAIN, R128_ALBUM_GAIN) tags from the inputs instead of writing audio: nothing else in the file changes, a file without them is not rewritten, and no measurement is needed. With --dry-run: write nothing, and list in each record what would be removed.",
              rules: [.conflicts("write-tags", "out-dir", "output-template", "relative-to", "in-place", "overwrite", "format", "bit-depth",
                                 "sample-rate", "allow-loss", "fade-in", "fade-out", "fade-curve", "fade-velocity", "peak", "true-peak",
                                 "target", "preset", "gate-on", "album", "report", "stream", "output", "lossless-gain", "decode-encode-only",
                                 "bit-rate", "quality", "channels",
                                 message: "--remove-tags only deletes the gain tags of the inputs, so it can't be combined with --{other}.")]),
        .choice("id3v2", "3|4", ["3", "4"], help: "Save the ID3v2 tag of an MP3, WAV or AIFF as ID3v2.3 or ID3v2.4 when --write-tags or --remove-tags rewrites it (default: the file's own version; a new tag is 2.4). Other formats have no ID3v2 tag and are tagged as usual.",
                rules: [.needs("write-tags", "remove-tags", message: "--id3v2 says which ID3v2 version --write-tags or --remove-tags saves; give one of them.")]),
    ]
}
