# Limited normalisation against its floor: the bench's 10-minute pink-noise WAV to -9 and -8 LUFS
# (the true-peak limiter and its compensation), each beside lufs-normalize --decode-encode-only
# measured in the same run. With BASE_BIN (a folder of older binaries) the same cases with those
# beside. Run with: python3 Tests/Bench/bench.py normalize_floor

import filecmp


def rss_from_record(cmd, stdin):
    """Peak resident memory (MiB) of one run of cmd reading the record on standard input."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdin=open(stdin), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024


def cpu_ticks():
    """The machine's CPU time so far, in clock ticks: (all, stolen by the host)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return sum(fields[:8]), fields[7] if len(fields) > 7 else 0


def wall_and_cpu_from_record(cmd, stdin, runs=5):
    """Best wall time and best CPU time (user + system) of `runs` runs of cmd reading the record."""
    walls, cpus = [], []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=open(stdin), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t)
        cpus.append(ru.ru_utime + ru.ru_stime)
    return min(walls), min(cpus)


def normalize_floor():
    section("lufs-normalize, limited: 10-minute 48 kHz stereo 24-bit WAV to -9 and -8 LUFS / -1 dBTP, against the decode + encode floor")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; best of 5)")
    started = cpu_ticks()
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    out = os.path.join(DIR, "normalize-floor-out")
    os.makedirs(out, exist_ok=True)
    measured = os.path.join(DIR, "music-10min.loudness.jsonl")
    if not os.path.exists(measured):
        with open(measured, "w") as m:
            subprocess.run([tool("lufs-measure"), "-j", "1", f], check=True, stdout=m)
    builds = [("new", BIN)]
    base = os.environ.get("BASE_BIN")
    if base:
        builds.append(("base", base))

    def run_once(binary, args, dest):
        r = subprocess.run([os.path.join(binary, "lufs-normalize"), "-j", "1", "--overwrite", "--true-peak", "-1",
                            "--out-dir", dest] + args + ["-"], stdin=open(measured), capture_output=True, text=True)
        try:
            return json.loads(r.stdout.splitlines()[0]).get("normalized", {})
        except Exception:
            return {}

    for label, binary in builds:
        norm = [os.path.join(binary, "lufs-normalize"), "-j", "1", "--overwrite", "--true-peak", "-1"]
        floor, floor_cpu = wall_and_cpu_from_record(
            norm + ["--target", "-9", "--decode-encode-only", "--out-dir", os.path.join(out, label + "-floor"), "-"], measured)
        print(f"  [{label}] decode + encode floor (--decode-encode-only)   {floor:7.3f} s   CPU {floor_cpu:6.3f} s")
        for target in ["-9", "-8"]:
            dest = os.path.join(out, f"{label}{target}")
            t, cpu = wall_and_cpu_from_record(norm + ["--target", target, "--out-dir", dest, "-"], measured)
            n = run_once(binary, ["--target", target], dest)
            lufs = n.get("integrated_lufs")
            err = f"{lufs - float(target):+.2f} LU" if isinstance(lufs, (int, float)) else "n/a"
            rss = rss_from_record(norm + ["--target", target, "--out-dir", dest, "-"], measured)
            print(f"  [{label}] target {target:>3} LUFS  {t:7.3f} s = {t / floor:5.2f}x the floor"
                  f"   CPU {cpu:6.3f} s = {cpu / floor_cpu:5.2f}x   passes {n.get('passes')}"
                  f"   compensation {n.get('compensation_db')} dB   landed {lufs} LUFS ({err})"
                  f"   true peak {n.get('true_peak_dbtp')} dBTP   max reduction {n.get('limiter', {}).get('max_reduction_db')} dB"
                  f"   peak RSS {rss:6.1f} MiB", flush=True)
        # The analysis kept by lufs-measure --cache --keep-analysis: lufs-normalize --cache then
        # makes no analysis pass of its own (the same file written).
        help_text = subprocess.run([os.path.join(binary, "lufs-measure"), "--help"], capture_output=True, text=True).stdout
        if "--keep-analysis" not in help_text:
            continue
        cache = os.path.join(out, label + "-cache.sqlite")
        for leftover in [cache, cache + "-wal", cache + "-shm"]:
            if os.path.exists(leftover):
                os.remove(leftover)
        kept = os.path.join(out, label + "-kept.jsonl")
        measure = [os.path.join(binary, "lufs-measure"), "-j", "1", f]
        plain_m, plain_m_cpu = wall_and_cpu_from_record(measure, measured)
        with open(kept, "w") as k:
            t0 = time.perf_counter()
            subprocess.run(measure[:-1] + ["--cache", cache, "--keep-analysis", f], check=True, stdout=k)
            keep_m = time.perf_counter() - t0
        print(f"  [{label}] lufs-measure {plain_m:7.3f} s; with --cache --keep-analysis (first run, stores it) {keep_m:7.3f} s"
              f" = {keep_m / plain_m:4.2f}x; cache file {os.path.getsize(cache) / 1e6:5.1f} MB")
        for target in ["-9", "-8"]:
            dest = os.path.join(out, f"{label}{target}-kept")
            args = ["--target", target, "--cache", cache, "--out-dir", dest, "-"]
            t, cpu = wall_and_cpu_from_record(norm + args, kept)
            r = subprocess.run(norm + args, stdin=open(kept), capture_output=True, text=True)
            n = json.loads(r.stdout.splitlines()[0]).get("normalized", {}) if r.stdout else {}
            same = filecmp.cmp(os.path.join(dest, os.path.basename(f)), os.path.join(out, f"{label}{target}", os.path.basename(f)), shallow=False)
            print(f"  [{label}] target {target:>3} LUFS, analysis from the cache  {t:7.3f} s = {t / floor:5.2f}x the floor"
                  f"   CPU {cpu:6.3f} s = {cpu / floor_cpu:5.2f}x   landed {n.get('integrated_lufs')} LUFS"
                  f"   {'the same bytes as without the cache' if same else 'DIFFERENT BYTES FROM THE RUN WITHOUT THE CACHE'}", flush=True)
    # On a virtual machine the host may take CPU time away: ratios measured then are not to be trusted.
    ended = cpu_ticks()
    total, stolen = ended[0] - started[0], ended[1] - started[1]
    print(f"  (CPU time taken by the host during this section: {100 * stolen / max(1, total):.1f} %)")


EXTRA_SECTIONS.append("normalize_floor")
