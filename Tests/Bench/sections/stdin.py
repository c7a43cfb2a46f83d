# Audio on standard input (`lufs-measure -`) and the live meter (`--follow`), against measuring
# the same file from disk. Run with: python3 Tests/Bench/bench.py stdin


def stdin():
    section("lufs-measure -: 10-minute 48 kHz stereo 24-bit audio on a pipe vs the file")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    flac = os.path.join(DIR, "music-10min-stdin.flac")
    if not os.path.exists(flac):
        if shutil.which("ffmpeg") is None:
            missing("ffmpeg, to make the FLAC for the pipe figures")
            return
        sh(["ffmpeg", "-v", "error", "-i", f, "-c:a", "flac", flac])
    m = tool("lufs-measure")
    rows = [
        ("WAV file", [m, f]),
        ("WAV on a pipe (cat | -)", ["sh", "-c", f"cat '{f}' | '{m}' -"]),
        ("WAV on a pipe, --follow", ["sh", "-c", f"cat '{f}' | '{m}' --follow - > /dev/null"]),
        ("WAV on a pipe, --follow --interval 0.1", ["sh", "-c", f"cat '{f}' | '{m}' --follow --interval 0.1 - > /dev/null"]),
        ("FLAC file (libsndfile)", [m, flac]),
        ("FLAC on a pipe (ffmpeg child)", ["sh", "-c", f"cat '{flac}' | '{m}' -"]),
        ("FLAC on a pipe, --follow", ["sh", "-c", f"cat '{flac}' | '{m}' --follow - > /dev/null"]),
    ]
    base = None
    for name, cmd in rows:
        wall, cpu = best_wall_and_cpu(cmd, runs=3)
        if "file" in name:
            base = wall
        print(f"  {name:42s} {wall:6.2f} s wall  {cpu:6.2f} s CPU   {wall / base:5.2f}x the file row above", flush=True)


EXTRA_SECTIONS.append("stdin")
