# Limited normalisation against its floor: the bench's 10-minute pink-noise WAV to -9 and -8 LUFS
# (the true-peak limiter and its compensation), each beside lufs-normalize --decode-encode-only,
# with --jobs 1 and --jobs 2 (the default on two cores), and from the limiter analysis kept by
# lufs-measure --cache --keep-analysis; each against its target (KEPT_TARGET, PLAIN_TARGET), with
# "!! over target" when over. With BASE_BIN (a folder of older binaries) the same cases
# with those beside. The cases run interleaved, round after round, each after a sync, and each
# reports its best round (and, beside it, the ratio of the medians: on a host whose speed wanders
# the two differ, and neither alone is the figure). Last, the peak memory of lufs-measure
# --keep-analysis on the ten minutes and on an hour of silence: flat, whatever the length. Run with:
# python3 Tests/Bench/bench.py normalize_floor

import filecmp
import statistics

# The targets, as ratios of the best round's wall time to the floor's: the path through the
# analysis lufs-measure --cache --keep-analysis kept (the one a big batch of loud masters should
# take) and the plain path, which makes its own analysis pass first.
KEPT_TARGET, PLAIN_TARGET = 2.0, 2.6


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


def interleaved(cases, rounds=7):
    """{name: (best wall, best CPU, median wall)} of cases [(name, cmd, stdin path)], run round after round."""
    walls = {name: [] for name, _, _ in cases}
    cpus = {name: [] for name, _, _ in cases}
    for _ in range(rounds):
        for name, cmd, stdin in cases:
            # The last run's 170 MB still being written back to disk would slow this one.
            os.sync()
            t = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=open(stdin), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, ru = os.wait4(p.pid, 0)
            walls[name].append(time.perf_counter() - t)
            cpus[name].append(ru.ru_utime + ru.ru_stime)
    return {name: (min(walls[name]), min(cpus[name]), statistics.median(walls[name])) for name in walls}


def normalize_floor():
    section("lufs-normalize, limited: 10-minute 48 kHz stereo 24-bit WAV to -9 and -8 LUFS / -1 dBTP, against the decode + encode floor")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; every case run 7 times, interleaved; best of each)")
    started = cpu_ticks()
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    out = os.path.join(DIR, "normalize-floor-out")
    os.makedirs(out, exist_ok=True)
    measured = os.path.join(DIR, "music-10min.loudness.jsonl")
    if not os.path.exists(measured):
        with open(measured, "w") as m:
            subprocess.run([tool("lufs-measure"), "-j", "1", f], check=True, stdout=m)
    # An hour, cheap to decode, for the memory of keeping a long file's analysis.
    hour = make(os.path.join(DIR, "silence-60min.flac"), ["-r", "48000", "-c", "2", "-b", "24",
                                                          os.path.join(DIR, "silence-60min.flac"), "trim", "0", "3600"])
    while time.time() - os.path.getmtime(hour) < 3:
        time.sleep(0.5)   # the cache keeps nothing of a file modified in the last two seconds

    def keep_rss(binary, path):
        """(peak RSS in MiB, cache file in MB) of lufs-measure -j 1 --keep-analysis into a fresh cache."""
        cache = os.path.join(out, "rss-cache.sqlite")
        for leftover in [cache, cache + "-wal", cache + "-shm"]:
            if os.path.exists(leftover):
                os.remove(leftover)
        rss = max_rss_mib([os.path.join(binary, "lufs-measure"), "-j", "1", "--cache", cache, "--keep-analysis", path])
        return rss, os.path.getsize(cache) / 1e6

    builds = [("new", BIN)]
    base = os.environ.get("BASE_BIN")
    if base:
        builds.append(("base", base))

    cases, kept_by = [], {}
    for label, binary in builds:
        def norm(jobs, *args, dest, stdin=measured):
            return [os.path.join(binary, "lufs-normalize"), "-j", jobs, "--overwrite", "--true-peak", "-1",
                    "--out-dir", os.path.join(out, dest)] + list(args) + ["-"], stdin
        for jobs in ["1", "2"]:
            cases.append((f"{label} floor j{jobs}",) + norm(jobs, "--target", "-9", "--decode-encode-only", dest=f"{label}-floor-j{jobs}"))
            for target in ["-9", "-8"]:
                cases.append((f"{label} {target} j{jobs}",) + norm(jobs, "--target", target, dest=f"{label}{target}-j{jobs}"))
        help_text = subprocess.run([os.path.join(binary, "lufs-measure"), "--help"], capture_output=True, text=True).stdout
        if "--keep-analysis" not in help_text:
            continue
        # The analysis kept by lufs-measure --cache --keep-analysis (the bench file is old
        # enough for the cache to keep): lufs-normalize --cache then makes no analysis pass.
        cache = os.path.join(out, label + "-cache.sqlite")
        for leftover in [cache, cache + "-wal", cache + "-shm"]:
            if os.path.exists(leftover):
                os.remove(leftover)
        kept = os.path.join(out, label + "-kept.jsonl")
        with open(kept, "w") as k:
            subprocess.run([os.path.join(binary, "lufs-measure"), "-j", "1", "--cache", cache, "--keep-analysis", f], check=True, stdout=k)
        kept_by[label] = cache
        measure = [os.path.join(binary, "lufs-measure"), "-j", "1"]
        cases.append((f"{label} measure", measure + [f], measured))
        cases.append((f"{label} measure keep", ["sh", "-c", f"rm -f {cache}2*; exec \"$0\" \"$@\""] + measure
                      + ["--cache", cache + "2", "--keep-analysis", f], measured))
        for jobs in ["1", "2"]:
            for target in ["-9", "-8"]:
                cases.append((f"{label} {target} j{jobs} kept",) + norm(jobs, "--target", target, "--cache", cache,
                                                                       dest=f"{label}{target}-j{jobs}-kept", stdin=kept))
    t = interleaved(cases)

    def record_of(dest, stdin, *args):
        r = subprocess.run(args + ("--out-dir", os.path.join(out, dest), "-"), stdin=open(stdin), capture_output=True, text=True)
        try:
            return json.loads(r.stdout.splitlines()[0]).get("normalized", {})
        except Exception:
            return {}

    for label, binary in builds:
        for jobs in ["1", "2"]:
            floor, floor_cpu, floor_median = t[f"{label} floor j{jobs}"]
            print(f"  [{label}] --jobs {jobs}: decode + encode floor (--decode-encode-only)   {floor:6.3f} s   CPU {floor_cpu:6.3f} s")
            for target in ["-9", "-8"]:
                paths = [("plain (no kept analysis)", f"{label} {target} j{jobs}", PLAIN_TARGET),
                         ("from the kept analysis", f"{label} {target} j{jobs} kept", KEPT_TARGET)]
                for path, name, goal in paths:
                    if name not in t:
                        continue
                    wall, cpu, median = t[name]
                    ratio = wall / floor
                    print(f"  [{label}] --jobs {jobs}: target {target:>3} LUFS, {path:<25} {wall:6.3f} s = {ratio:4.2f}x the floor"
                          f" (median {median / floor_median:4.2f}x)   CPU {cpu / floor_cpu:4.2f}x   target <= {goal:.1f}x"
                          + ("   !! over target" if ratio > goal else ""), flush=True)
        for target in ["-9", "-8"]:
            norm = (os.path.join(binary, "lufs-normalize"), "-j", "1", "--overwrite", "--true-peak", "-1", "--target", target)
            n = record_of(f"{label}{target}-j1", measured, *norm)
            lufs = n.get("integrated_lufs")
            err = f"{lufs - float(target):+.2f} LU" if isinstance(lufs, (int, float)) else "n/a"
            rss = rss_from_record(list(norm) + ["--out-dir", os.path.join(out, f"{label}{target}-j1"), "-"], measured)
            line = (f"  [{label}] target {target:>3}: passes {n.get('passes')}   compensation {n.get('compensation_db')} dB"
                    f"   landed {lufs} LUFS ({err})   true peak {n.get('true_peak_dbtp')} dBTP"
                    f"   max reduction {n.get('limiter', {}).get('max_reduction_db')} dB   peak RSS {rss:5.1f} MiB")
            if label in kept_by:
                name = os.path.basename(f)
                same = all(filecmp.cmp(os.path.join(out, f"{label}{target}-j{j}-kept", name),
                                       os.path.join(out, f"{label}{target}-j1", name), shallow=False) for j in ["1", "2"])
                line += "   cache: " + ("the same bytes" if same else "DIFFERENT BYTES")
            print(line, flush=True)
        if f"{label} measure" in t:
            m, keep = t[f"{label} measure"][0], t[f"{label} measure keep"][0]
            print(f"  [{label}] lufs-measure -j 1 {m:6.3f} s; with --cache --keep-analysis (a fresh cache) {keep:6.3f} s = {keep / m:4.2f}x;"
                  f" the cache file {os.path.getsize(kept_by[label]) / 1e6:4.1f} MB")
        if label in kept_by:
            # Memory flat whatever the length: the analysis goes to the cache a piece at a time.
            rss = [keep_rss(binary, path) for path in (f, hour)]
            print(f"  [{label}] lufs-measure --keep-analysis peak RSS: the 10-minute file {rss[0][0]:5.1f} MiB,"
                  f" an hour of silence {rss[1][0]:5.1f} MiB (its analysis {rss[1][1]:4.1f} MB)", flush=True)
    # On a virtual machine the host may take CPU time away: ratios measured then are not to be trusted.
    ended = cpu_ticks()
    total, stolen = ended[0] - started[0], ended[1] - started[1]
    print(f"  (CPU time taken by the host during this section: {100 * stolen / max(1, total):.1f} %)")


EXTRA_SECTIONS.append("normalize_floor")
