"""Opus decoding (issue 26): lufs-measure on a 10-minute Opus file, a 3-minute 5.1 one (issue 43)
and on the album bench's two Opus tracks, decoded by libopusfile, against ffmpeg's own decoder and its libopus wrapper, against
libopusfile's plain decode loop (with and without the per-stream decode lufs-measure uses), and
against libsndfile's Opus decoder (the path used before); each read to the end with nothing else
done. With BASE_BIN (a folder of older binaries) the same cases run with those too."""

SNDFILE_DECODE_C = r"""
#include <sndfile.h>
#include <stdio.h>
int main(int argc, char **argv) {
    SF_INFO info = {0};
    SNDFILE *f = sf_open(argv[1], SFM_READ, &info);
    if (!f) { fprintf(stderr, "%s\n", sf_strerror(NULL)); return 1; }
    static float buf[8192 * 8];
    sf_count_t n, total = 0;
    while ((n = sf_readf_float(f, buf, 8192)) > 0) total += n;
    printf("%lld\n", (long long)total);
    return sf_error(f) ? 2 : 0;
}
"""

# libopusfile's op_read_float loop; with a second argument, packets of single-stream links are
# decoded by the stream's own decoder (the decode callback lufs-measure installs), which skips
# the CPU detection Debian's libopus runs for every packet in opus_multistream_decode_float.
OPUSFILE_DECODE_C = r"""
#include <opusfile.h>
#include <stdio.h>
static OpusMSDecoder *ms_seen; static OpusDecoder *stream;
static int direct(void *ctx, OpusMSDecoder *ms, void *pcm, const ogg_packet *op, int n, int nc, int fmt, int li) {
    if (fmt != OP_DEC_FORMAT_FLOAT || nc > 2) return OP_DEC_USE_DEFAULT;
    if (ms != ms_seen) { opus_multistream_decoder_ctl(ms, OPUS_MULTISTREAM_GET_DECODER_STATE(0, &stream)); ms_seen = ms; }
    int r = opus_decode_float(stream, op->packet, op->bytes, pcm, n, 0);
    return r == n ? 0 : r < 0 ? r : OPUS_INVALID_PACKET;
}
int main(int argc, char **argv) {
    int err; OggOpusFile *f = op_open_file(argv[1], &err);
    if (!f) return 1;
    if (argc > 2 && op_head(f, -1)->stream_count == 1) op_set_decode_callback(f, direct, NULL);
    static float buf[5760 * 2 * 8];
    long long total = 0; int n;
    while ((n = op_read_float(f, buf, sizeof buf / sizeof *buf, NULL)) > 0) total += n;
    printf("%lld\n", total); op_free(f); return n < 0;
}
"""


def _compiled(name, source, libs):
    exe = os.path.join(DIR, name)
    if not os.path.exists(exe):
        src = exe + ".c"
        open(src, "w").write(source)
        r = subprocess.run(["gcc", "-O2", src, "-o", exe] + libs, capture_output=True, text=True)
        if r.returncode != 0:
            return None
    return exe


def opus():
    section("Opus: lufs-measure (libopusfile) on a 10-minute 48 kHz stereo Opus file, one job")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU times are the figures to compare)")
    if not shutil.which("ffmpeg"):
        missing("ffmpeg (make test-deps installs it): no Opus file to measure")
        return
    wav = music(os.path.join(DIR, "music-10min.wav"), 600)
    f = os.path.join(DIR, "music-10min.opus")
    if not os.path.exists(f):
        print("  generating music-10min.opus ...", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "128k", f])
    base = os.environ.get("BASE_BIN")
    ff, ff_cpu = best_wall_and_cpu(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-i", f, "-f", "null", "-"])
    floor, floor_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--decode-only", f])
    full, full_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", f])
    print(f"  ffmpeg -i x.opus -f null - (its own decoder)  {ff:7.3f} s   (cpu {ff_cpu:.3f} s)")
    print(f"  lufs-measure --decode-only                    {floor:7.3f} s   (cpu {floor_cpu:.3f} s)"
          f"   => {ff_cpu / floor_cpu:4.2f}x ffmpeg's speed in CPU, {ff / floor:4.2f}x in wall time (target >= 1.0)")
    print(f"  lufs-measure (full measurement)               {full:7.3f} s   (cpu {full_cpu:.3f} s)   => {ff_cpu / full_cpu:4.2f}x ffmpeg's decode in CPU")
    if base:
        bfloor, bfloor_cpu = best_wall_and_cpu([os.path.join(base, "lufs-measure"), "-j", "1", "--decode-only", f])
        bfull, bfull_cpu = best_wall_and_cpu([os.path.join(base, "lufs-measure"), "-j", "1", f])
        print(f"  BASE_BIN lufs-measure --decode-only           {bfloor:7.3f} s   (cpu {bfloor_cpu:.3f} s)   => {ff_cpu / bfloor_cpu:4.2f}x ffmpeg's speed in CPU")
        print(f"  BASE_BIN lufs-measure (full measurement)      {bfull:7.3f} s   (cpu {bfull_cpu:.3f} s)"
              f"   => now {bfull_cpu / full_cpu:4.2f}x less CPU, {bfull / full:4.2f}x less time")
    lib, lib_cpu = best_wall_and_cpu(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-c:a", "libopus", "-i", f, "-f", "null", "-"])
    print(f"  ffmpeg -c:a libopus (libopus's multistream call) {lib:7.3f} s   (cpu {lib_cpu:.3f} s)")
    loop = _compiled("opusfile_decode", OPUSFILE_DECODE_C, ["-lopusfile", "-lopus", "-I/usr/include/opus"])
    if loop:
        plain, plain_cpu = best_wall_and_cpu([loop, f])
        fast, fast_cpu = best_wall_and_cpu([loop, f, "direct"])
        print(f"  C loop over op_read_float, libopusfile's decode {plain:7.3f} s   (cpu {plain_cpu:.3f} s)")
        print(f"  the same, each packet by the stream's decoder   {fast:7.3f} s   (cpu {fast_cpu:.3f} s)"
              f"   => the per-packet CPU detection was {1 - fast_cpu / plain_cpu:4.0%} of libopusfile's decode")
    else:
        missing("libopusfile's C decode loop (gcc or libopusfile-dev missing)")
    exe = _compiled("sndfile_decode", SNDFILE_DECODE_C, ["-lsndfile"])
    if not exe:
        missing("libsndfile's Opus decode (gcc or libsndfile1-dev missing)")
        return
    r = subprocess.run([exe, f], capture_output=True, text=True)
    sf, sf_cpu = best_wall_and_cpu([exe, f])
    verdict = "read it all" if r.returncode == 0 else f"stopped: {(r.stderr.strip() or 'read error')}, after {r.stdout.strip() or 0} frames"
    print(f"  libsndfile's Opus decoder (before issue 26)   {sf:7.3f} s   (cpu {sf_cpu:.3f} s; {verdict})")

    # 5.1 (mapping family 1: four streams, two coupled), decoded stream by stream (issue 43).
    print("  -- a 3-minute 5.1 Opus file (libopus 256k), one job")
    f51 = os.path.join(DIR, "music-3min-51.opus")
    if not os.path.exists(f51):
        print("  generating music-3min-51.opus ...", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-t", "180", "-i", wav, "-filter_complex",
            "[0]asplit=3[a][b][c];[a]channelsplit[l][r];[b]pan=mono|c0=0.5*c0+0.5*c1[m];"
            "[c]aecho=0.8:0.7:40|60:0.4|0.3,channelsplit[sl][sr];[m]asplit[ce][lf];[lf]lowpass=120[lfe];"
            "[l][r][ce][lfe][sl][sr]join=inputs=6:channel_layout=5.1[o]",
            "-map", "[o]", "-c:a", "libopus", "-b:a", "256k", f51])
    sff, sff_cpu = best_wall_and_cpu(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-i", f51, "-f", "null", "-"])
    sfloor, sfloor_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--decode-only", f51])
    slib, slib_cpu = best_wall_and_cpu(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-c:a", "libopus", "-i", f51, "-f", "null", "-"])
    print(f"  ffmpeg -i x.opus -f null - (its own decoder)  {sff:7.3f} s   (cpu {sff_cpu:.3f} s)")
    print(f"  lufs-measure --decode-only                    {sfloor:7.3f} s   (cpu {sfloor_cpu:.3f} s)"
          f"   => {sff_cpu / sfloor_cpu:4.2f}x ffmpeg's speed in CPU (target >= 0.91, 1.1x its CPU)")
    print(f"  ffmpeg -c:a libopus (libopus's multistream call) {slib:7.3f} s   (cpu {slib_cpu:.3f} s)")
    if base:
        b, b_cpu = best_wall_and_cpu([os.path.join(base, "lufs-measure"), "-j", "1", "--decode-only", f51])
        print(f"  BASE_BIN lufs-measure --decode-only           {b:7.3f} s   (cpu {b_cpu:.3f} s)   => {sff_cpu / b_cpu:4.2f}x ffmpeg's speed in CPU")

    # The album bench's Opus tracks: 4 minutes of 44.1 kHz material each, transcoded as there.
    print("  -- the album bench's two Opus tracks (4 min each, libopus 128k), one job")
    tracks = []
    for i in (3, 8):
        t = os.path.join(DIR, f"album-opus-{i}.opus")
        if not os.path.exists(t):
            w = music(os.path.join(DIR, f"album-opus-{i}.wav"), 240 + i, rate=44100, bits=16)
            sh(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", w, "-af", f"volume={-2 * (i % 5)}dB", "-c:a", "libopus", "-b:a", "128k", t])
            os.remove(w)
        tracks.append(t)
    aff, aff_cpu = best_wall_and_cpu(["sh", "-c", " && ".join(f"ffmpeg -nostdin -v error -threads 1 -i {t} -f null -" for t in tracks)])
    ours, ours_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--decode-only"] + tracks)
    print(f"  ffmpeg, each track decoded                    {aff:7.3f} s   (cpu {aff_cpu:.3f} s)")
    print(f"  lufs-measure --decode-only, both              {ours:7.3f} s   (cpu {ours_cpu:.3f} s)   => {aff_cpu / ours_cpu:4.2f}x ffmpeg's speed in CPU")
    if base:
        b, b_cpu = best_wall_and_cpu([os.path.join(base, "lufs-measure"), "-j", "1", "--decode-only"] + tracks)
        print(f"  BASE_BIN lufs-measure --decode-only, both     {b:7.3f} s   (cpu {b_cpu:.3f} s)   => {aff_cpu / b_cpu:4.2f}x ffmpeg's speed in CPU")


EXTRA_SECTIONS.append("opus")
