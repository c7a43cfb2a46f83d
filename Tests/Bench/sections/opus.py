"""Opus decoding (issue 26): lufs-measure on a 10-minute Opus file, decoded by libopusfile,
against ffmpeg's own decode of the same file and against libsndfile's Opus decoder (the path
used before), each read to the end with nothing else done."""

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


def opus():
    section("Opus: lufs-measure (libopusfile) on a 10-minute 48 kHz stereo Opus file, one job")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    if not shutil.which("ffmpeg"):
        missing("ffmpeg (make test-deps installs it): no Opus file to measure")
        return
    wav = music(os.path.join(DIR, "music-10min.wav"), 600)
    f = os.path.join(DIR, "music-10min.opus")
    if not os.path.exists(f):
        print("  generating music-10min.opus ...", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "128k", f])
    floor, floor_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--decode-only", f])
    full, full_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", f])
    ff, ff_cpu = best_wall_and_cpu(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-i", f, "-f", "null", "-"])
    print(f"  lufs-measure --decode-only       {floor:7.3f} s   (cpu {floor_cpu:.3f} s)")
    print(f"  lufs-measure (full measurement)  {full:7.3f} s   (cpu {full_cpu:.3f} s)")
    print(f"  ffmpeg -i x.opus -f null -       {ff:7.3f} s   (cpu {ff_cpu:.3f} s)"
          f"   => our decode is {ff / floor:4.2f}x ffmpeg's speed (target >= 1.0), the full measurement {ff / full:4.2f}x")
    lib, lib_cpu = best_wall_and_cpu(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-c:a", "libopus", "-i", f, "-f", "null", "-"])
    print(f"  ffmpeg -c:a libopus (libopus, the decoder libopusfile uses) {lib:7.3f} s   (cpu {lib_cpu:.3f} s)"
          f"   => our decode's cpu is {lib_cpu / floor_cpu:4.2f}x of that")
    exe = os.path.join(DIR, "sndfile_decode")
    if not os.path.exists(exe):
        src = os.path.join(DIR, "sndfile_decode.c")
        open(src, "w").write(SNDFILE_DECODE_C)
        r = subprocess.run(["gcc", "-O2", src, "-o", exe, "-lsndfile"], capture_output=True, text=True)
        if r.returncode != 0:
            missing("libsndfile's Opus decode (gcc or libsndfile1-dev missing)")
            return
    r = subprocess.run([exe, f], capture_output=True, text=True)
    sf, sf_cpu = best_wall_and_cpu([exe, f])
    verdict = "read it all" if r.returncode == 0 else f"stopped: {(r.stderr.strip() or 'read error')}, after {r.stdout.strip() or 0} frames"
    print(f"  libsndfile's Opus decoder (before) {sf:7.3f} s   (cpu {sf_cpu:.3f} s; {verdict})"
          f"   => libopusfile is {sf / floor:4.2f}x its speed")


EXTRA_SECTIONS.append("opus")
