# lufs-measure --qc --platforms against a plain measurement: the QC analysers ride on the same
# decode, so the figure is the ratio of CPU times (target: at most 1.3x).


def qc():
    section("lufs-measure --qc --platforms: 10-minute 48 kHz stereo 24-bit WAV, one job, CPU time")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    # A loud master (peaks at -0.1 dBFS): the overs check then interpolates wherever a peak could
    # pass 0 dBTP, the QC's worst case.
    loud = os.path.join(DIR, "music-10min-loud.wav")
    if not os.path.exists(loud):
        print("  generating music-10min-loud.wav ...", flush=True)
        sh(["sox", f, loud, "gain", "-n", "-0.1"])
    for label, path in [("music (peaks -14 dBFS)", f), ("loud master (peaks -0.1 dBFS)", loud)]:
        plain, plain_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", path])
        full, full_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--qc", "--platforms", path])
        ratio = full_cpu / plain_cpu
        print(f"  {label:32s} plain {plain_cpu:6.3f} s cpu ({plain:6.3f} s wall)   --qc --platforms {full_cpu:6.3f} s cpu"
              f" ({full:6.3f} s wall)   = {ratio:4.2f}x (target <= 1.3x){'' if ratio <= 1.3 else '   !! over target'}")
    # BASE_BIN (a folder of older binaries): the same cases with them, and their records compared.
    base = os.environ.get("BASE_BIN")
    if base:
        old = os.path.join(base, "lufs-measure")
        for label, path in [("music (peaks -14 dBFS)", f), ("loud master (peaks -0.1 dBFS)", loud)]:
            plain, plain_cpu = best_wall_and_cpu([old, "-j", "1", path])
            full, full_cpu = best_wall_and_cpu([old, "-j", "1", "--qc", "--platforms", path])
            print(f"  BASE {label:27s} plain {plain_cpu:6.3f} s cpu ({plain:6.3f} s wall)   --qc --platforms {full_cpu:6.3f} s cpu"
                  f" ({full:6.3f} s wall)   = {full_cpu / plain_cpu:4.2f}x")
            args = ["-j", "1", "--no-progress", "--qc", "--platforms", path]
            same = subprocess.run([old] + args, capture_output=True).stdout == subprocess.run([tool("lufs-measure")] + args, capture_output=True).stdout
            print(f"    {label}: record with --qc {'identical' if same else 'DIFFERENT'} to BASE_BIN's")
    r = subprocess.run([tool("lufs-measure"), "-j", "1", "--qc", "--platforms", f], capture_output=True, text=True)
    import json
    q = json.loads(r.stdout).get("qc", {})
    print(f"    qc of the music file: clipped runs {q.get('clipping', {}).get('runs')}, overs {q.get('clipping', {}).get('overs')},"
          f" min correlation {q.get('phase', {}).get('min_correlation')}, mono loss {q.get('phase', {}).get('mono_loss_db')} dB")


EXTRA_SECTIONS.append("qc")
