# lufs-measure --per-channel and --timeline-csv against a plain measurement of the same file, in
# one run: the ratio of CPU times (target: at most 1.1x). --per-channel keeps each channel's
# energy beside the weighted sum the meter computes anyway; --timeline-csv collects the series
# --timeline and --report collect (see the "report" section for those).


def series():
    section("lufs-measure --per-channel / --timeline-csv: 10-minute 48 kHz WAV, stereo and 5.1, one job, CPU time")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    stereo = music(os.path.join(DIR, "music-10min.wav"), 600)
    surround = os.path.join(DIR, "music-10min-51.wav")
    if not os.path.exists(surround):
        print("  generating music-10min-51.wav ...", flush=True)
        # The stereo music in L, R, C (-6 dB), LFE, Ls, Rs.
        sh(["sox", stereo, surround, "remix", "1", "2", "1v0.5,2v0.5", "1v0.3", "1", "2"])
    out = os.path.join(DIR, "series-csv")
    for label, path in [("stereo", stereo), ("5.1", surround)]:
        plain, plain_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", path])
        per, per_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--per-channel", path])
        shutil.rmtree(out, ignore_errors=True)
        csv, csv_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--timeline-csv", out, path])
        print(f"  {label:7s} plain          {plain_cpu:6.3f} s cpu ({plain:6.3f} s wall)")
        for name, cpu, wall in [("--per-channel", per_cpu, per), ("--timeline-csv", csv_cpu, csv)]:
            ratio = cpu / plain_cpu
            print(f"  {label:7s} {name:14s} {cpu:6.3f} s cpu ({wall:6.3f} s wall)   = {ratio:4.2f}x (target <= 1.1x)"
                  f"{'' if ratio <= 1.1 else '   !! over target'}")
    shutil.rmtree(out, ignore_errors=True)


EXTRA_SECTIONS.append("series")
