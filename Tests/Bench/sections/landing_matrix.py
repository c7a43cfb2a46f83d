# The lossy landing matrix: real loud masters (Tests/Bench/landing_material.py: excerpts of released
# game music from Debian packages, split TUNING / HELD-OUT) brought to -8, -9, -11, -14, -16 and
# -23 LUFS under a -1 dBTP ceiling with --allow-loss, into AAC in M4A (`--format m4a`), AAC in MP4
# (an MP4 made once per recording with ffmpeg: AAC at 256k and a tiny video stream, written back in
# its own container), MP3, Ogg Vorbis and Opus, each at its default bit rate, with `-j 1`.
#
# Each cell is judged on the written file decoded by lufs-measure: landing = integrated - target
# (|landing| <= 0.2 LU), over = true peak - ceiling (<= 0.1 dB); on the limiter's deepest reduction
# (normalized.limiter.max_reduction_db, the deepest over a media file's streams) beside the same job
# with `--format wav` (the PCM reference: what the limiter alone needs; for MP4 the MP4 input to
# WAV), at most 1.5 dB more; and at most 2 encodes. A cell whose record says which limit gave way
# (normalized.landing.gave_way, with its figure: a number in `landing` such as over_ceiling_db, or
# shortfall_lu) is counted as "rule", not "met", when the criteria its gave_way does not name still
# hold (a ceiling that gave way exempts "over", loudness "landing", limiting "limiting"): the
# target and the ceiling can't both hold there, and the documented rule chose. Otherwise it fails.
# A build without `landing` simply has no rule cells.
#
# Cells run on all cores (a pool of os.cpu_count() processes) and print in a fixed order: per format
# a grid (recording x target: landing LU, over dB, extra limiting dB, encodes; `*` marks a failed
# cell, `R` a rule cell), then per split the cells met / rule / failed and the worst of each figure
# over the cells that are not rule cells.
#
# Run: BIN=<build>/.build/release BENCH_DIR=<build>/.build/bench python3 Tests/Bench/bench.py landing_matrix
# Environment:
#   LANDING_SPLIT=tuning|held-out          one split only (default both)
#   LANDING_FORMATS=mp3,opus               formats among m4a,mp4,mp3,ogg,opus (default all)
#   LANDING_TARGETS=-9,-14                 targets (default -8,-9,-11,-14,-16,-23)
#   LANDING_RECORDINGS=etr-spunky,...      recordings by name (default all)
#   LANDING_SECONDS=30                     excerpt length (default 30; another length is another set of files)
#   LANDING_MATERIAL=<folder>              where the packages and excerpts are kept (default BENCH_DIR/landing-material)
#   LANDING_JSON=<file>                    also write every cell as one JSON line there
#   LANDING_JOBS=<n>                       processes (default os.cpu_count())
import multiprocessing

LANDING_TARGETS = [-8, -9, -11, -14, -16, -23]
LANDING_FORMATS = ["m4a", "mp4", "mp3", "ogg", "opus"]
LANDING_CEILING = -1.0
LANDING_CRITERIA = {"landing_lu": 0.2, "over_db": 0.1, "extra_db": 1.5, "encodes": 2}


def _landing_json_line(stdout):
    for line in stdout.splitlines():
        try:
            return json.loads(line)
        except ValueError:
            continue
    return {}


def _landing_numbers(v):
    """Every number inside a JSON value (to see that a rule gave its figure)."""
    if isinstance(v, bool):
        return []
    if isinstance(v, (int, float)):
        return [v]
    if isinstance(v, dict):
        return sum((_landing_numbers(x) for x in v.values()), [])
    if isinstance(v, list):
        return sum((_landing_numbers(x) for x in v), [])
    return []


def _landing_reduction(n):
    """The limiter's deepest reduction in a `normalized` object (over a media file's streams)."""
    values = []
    for o in [n] + [s for s in (n.get("streams") or []) if isinstance(s, dict)]:
        lim = o.get("limiter")
        if isinstance(lim, dict) and isinstance(lim.get("max_reduction_db"), (int, float)):
            values.append(lim["max_reduction_db"])
    return max(values) if values else None


def _landing_rule(n):
    """`landing` with its `gave_way` from a `normalized` object (or a media file's streams), or None."""
    for o in [n] + [s for s in (n.get("streams") or []) if isinstance(s, dict)]:
        landing = o.get("landing")
        if isinstance(landing, dict) and landing.get("gave_way") not in (None, False, "", [], {}):
            return landing
    return None


def _landing_gave_way(gave_way):
    """The criteria a rule's `gave_way` names (a word or list of words): landing, over, limiting."""
    words = " ".join(gave_way if isinstance(gave_way, list) else [str(gave_way)]).lower()
    named = set()
    if "ceiling" in words or "peak" in words:
        named.add("over")
    if "loudness" in words or "target" in words:
        named.add("landing")
    if "limiting" in words or "limiter" in words:
        named.add("limiting")
    return named


def _landing_job(job):
    """One lufs-normalize run (a cell, or the --format wav reference) and its written file measured."""
    kind, name, target, fmt, src, dest = job
    cmd = [tool("lufs-normalize"), "-j", "1", "--target", str(target), "--true-peak", str(LANDING_CEILING),
           "--allow-loss", "--overwrite", "--out-dir", dest]
    if fmt != "mp4":
        cmd += ["--format", fmt]
    t, ru = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd + [src], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - t
    rec = _landing_json_line(r.stdout)
    n = rec.get("normalized") if isinstance(rec.get("normalized"), dict) else None
    out = {"kind": kind, "name": name, "target": target, "format": fmt, "seconds": seconds}
    if r.returncode != 0 or n is None:
        err = rec.get("error", {}).get("message") if isinstance(rec.get("error"), dict) else None
        out["error"] = err or (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out["cpu_seconds"] = after.ru_utime + after.ru_stime - ru.ru_utime - ru.ru_stime
        return out
    out["reduction_db"] = _landing_reduction(n)
    out["encodes"] = n.get("encodes")
    out["shortfall_lu"] = n.get("shortfall_lu")
    rule = _landing_rule(n)
    out["gave_way"] = rule.get("gave_way") if rule else None
    # Its figure: a number in `landing` (e.g. over_ceiling_db), or the shortfall when the loudness gave way.
    out["rule_figures"] = bool(rule) and (bool(_landing_numbers(rule)) or isinstance(n.get("shortfall_lu"), (int, float)))
    out["landing"] = rule
    if kind == "cell":
        written = n.get("output")
        m = subprocess.run([tool("lufs-measure"), "--no-progress", written], capture_output=True, text=True) if written else None
        l = _landing_json_line(m.stdout).get("loudness", {}) if m else {}
        lufs, tp = l.get("integrated_lufs"), l.get("true_peak_dbtp")
        out["lufs"], out["tp"] = lufs, tp
        out["landing_lu"] = lufs - target if isinstance(lufs, (int, float)) else None
        out["over_db"] = tp - LANDING_CEILING if isinstance(tp, (int, float)) else None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["cpu_seconds"] = after.ru_utime + after.ru_stime - ru.ru_utime - ru.ru_stime
    return out


def _landing_mp4(job):
    """The recording as an MP4 (AAC at 256k and a small still video stream), made once."""
    wav, mp4 = job
    if not os.path.exists(mp4):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=5",
                        "-map", "1:v", "-map", "0:a", "-shortest", "-c:v", "libx264", "-preset", "ultrafast",
                        "-c:a", "aac", "-b:a", "256k", mp4 + ".part.mp4"], check=True, capture_output=True)
        os.replace(mp4 + ".part.mp4", mp4)
    return mp4


def _landing_judge(c, ref):
    """met / rule / failed, with what failed."""
    if "error" in c:
        return "failed", ["error: " + c["error"]]
    extra = None if ref is None or c.get("reduction_db") is None or ref.get("reduction_db") is None \
        else c["reduction_db"] - ref["reduction_db"]
    c["extra_db"] = extra
    why = []
    if c.get("landing_lu") is None or abs(c["landing_lu"]) > LANDING_CRITERIA["landing_lu"] + 1e-9:
        why.append("landing")
    if c.get("over_db") is None or c["over_db"] > LANDING_CRITERIA["over_db"] + 1e-9:
        why.append("over")
    if extra is None or extra > LANDING_CRITERIA["extra_db"] + 1e-9:
        why.append("limiting")
    if not isinstance(c.get("encodes"), int) or c["encodes"] > LANDING_CRITERIA["encodes"]:
        why.append("encodes")
    if c.get("gave_way") is not None:
        # A rule cell: the limit it names gave way, with its figure (the decoded overshoot as the
        # record gives it must be the written file's); every other criterion still holds.
        if not c.get("rule_figures"):
            return "failed", why + ["rule without its figure"]
        named = _landing_gave_way(c["gave_way"])
        rest = [w for w in why if w not in named]
        said = (c.get("landing") or {}).get("over_ceiling_db")
        if "over" in named and isinstance(said, (int, float)) and isinstance(c.get("over_db"), (int, float)) \
                and abs(said - c["over_db"]) > 0.05:
            rest.append("rule's over_ceiling_db is not the written file's")
        return ("rule" if not rest else "failed"), rest
    return ("met" if not why else "failed"), why


def landing_matrix():
    section("lufs-normalize: the lossy landing matrix on real loud masters (target, ceiling -1 dBTP, --allow-loss, -j 1 per job)")
    if not shutil.which("ffmpeg") or not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        missing("ffmpeg, apt-get and dpkg-deb (the landing matrix's material needs them)")
        return
    start = time.perf_counter()
    cores = int(os.environ.get("LANDING_JOBS") or os.cpu_count() or 1)
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {cores} processes)", flush=True)
    lm = bench_module("landing_material")
    seconds = int(os.environ.get("LANDING_SECONDS") or lm.DEFAULT_SECONDS)
    split = os.environ.get("LANDING_SPLIT", "").strip()
    formats = [f for f in (os.environ.get("LANDING_FORMATS") or ",".join(LANDING_FORMATS)).split(",") if f]
    targets = [float(t) if "." in t else int(t) for t in (os.environ.get("LANDING_TARGETS") or ",".join(map(str, LANDING_TARGETS))).split(",") if t]
    names = [n for n in (os.environ.get("LANDING_RECORDINGS") or "").split(",") if n]
    bad = [f for f in formats if f not in LANDING_FORMATS]
    if bad:
        missing(f"unknown LANDING_FORMATS {bad} (choose among {','.join(LANDING_FORMATS)})")
        return
    work = os.environ.get("LANDING_MATERIAL") or os.path.join(DIR, "landing-material")
    os.makedirs(work, exist_ok=True)
    try:
        recs = lm.build(BIN, work, seconds, names)
    except subprocess.CalledProcessError as e:
        missing(f"the landing matrix's material ({' '.join(e.cmd[:3])} failed: {(e.stderr or '').strip()[-200:]})")
        return
    if split:
        recs = [r for r in recs if r["split"] == split]
    if not recs:
        missing(f"no recordings chosen (LANDING_SPLIT={split!r}, LANDING_RECORDINGS={names})")
        return
    print(f"  material: {len(recs)} recordings, the loudest {seconds} s of each (Tests/Bench/landing_material.py)")
    for r in recs:
        print(f"    {r['name']:15s} {r['split']:8s}  {r['integrated_lufs']:6.2f} LUFS  {r['true_peak_dbtp']:+5.2f} dBTP"
              f"   ({r['package']}: {os.path.basename(r['file'])}, from {r['start_seconds']} s)")
    out_root = os.path.join(DIR, "landing-matrix-out")
    pool = multiprocessing.Pool(cores)
    try:
        if "mp4" in formats:
            mp4s = pool.map(_landing_mp4, [(r["path"], os.path.splitext(r["path"])[0] + ".mp4") for r in recs])
            for r, m in zip(recs, mp4s):
                r["mp4"] = m
        jobs = []
        for r in recs:
            for t in targets:
                jobs.append(("ref", r["name"], t, "wav", r["path"], os.path.join(out_root, r["name"], f"{t}", "ref-wav")))
                if "mp4" in formats:
                    jobs.append(("ref", r["name"], t, "wav-of-mp4", r["mp4"], os.path.join(out_root, r["name"], f"{t}", "ref-mp4")))
                for f in formats:
                    jobs.append(("cell", r["name"], t, f, r["mp4"] if f == "mp4" else r["path"], os.path.join(out_root, r["name"], f"{t}", f)))
        # The slow cells (AAC through ffmpeg) first, so the pool's tail is short; results keep their order.
        order = sorted(range(len(jobs)), key=lambda i: (jobs[i][3] not in ("m4a", "mp4"), i))
        results = [None] * len(jobs)
        for i, res in zip(order, pool.imap(_landing_job, [(*jobs[i][:3], "wav" if jobs[i][3] == "wav-of-mp4" else jobs[i][3], *jobs[i][4:]) for i in order])):
            if jobs[i][3] == "wav-of-mp4":
                res["format"] = "wav-of-mp4"
            results[i] = res
    finally:
        pool.close()
        pool.join()
    refs = {(c["name"], c["target"], c["format"]): c for c in results if c["kind"] == "ref"}
    cells = [c for c in results if c["kind"] == "cell"]
    split_of = {r["name"]: r["split"] for r in recs}
    for c in cells:
        ref = refs.get((c["name"], c["target"], "wav-of-mp4" if c["format"] == "mp4" else "wav"))
        c["ref_reduction_db"] = ref.get("reduction_db") if ref else None
        c["verdict"], c["why"] = _landing_judge(c, ref)
        c["split"] = split_of[c["name"]]
    bad_refs = [c for c in refs.values() if "error" in c]
    for c in bad_refs:
        print(f"  !! the WAV reference of {c['name']} at {c['target']} failed: {c['error']}")

    def fmt_cell(c):
        if "error" in c:
            return f"{'error':>18s} *"
        f = lambda v, spec: format(v, spec) if isinstance(v, (int, float)) else "  n/a"
        mark = {"met": " ", "rule": "R", "failed": "*"}[c["verdict"]]
        return f"{f(c.get('landing_lu'), '+5.2f')} {f(c.get('over_db'), '+4.1f')} {f(c.get('extra_db'), '+5.1f')} {c.get('encodes') or '?'}{mark}"

    titles = {"m4a": "AAC in M4A (--format m4a)", "mp4": "AAC in MP4 (written back; reference: the MP4 to WAV)",
              "mp3": "MP3 (--format mp3)", "ogg": "Ogg Vorbis (--format ogg)", "opus": "Opus (--format opus)"}
    by_key = {(c["name"], c["target"], c["format"]): c for c in cells}
    for f in formats:
        print(f"\n  {titles[f]}: landing LU, over the ceiling dB, limiting beyond the WAV output's dB, encodes   (* failed, R rule)")
        print("    " + f"{'recording':15s} {'split':8s}" + "".join(f"{str(t) + ' LUFS':>21s}" for t in targets))
        for r in recs:
            print("    " + f"{r['name']:15s} {r['split']:8s}" + "".join(f"{fmt_cell(by_key[(r['name'], t, f)]):>21s}" for t in targets))
    # The figures of failed cells, one line each, so a reader sees why.
    failed = [c for c in cells if c["verdict"] == "failed"]
    rules = [c for c in cells if c["verdict"] == "rule"]
    if rules:
        print("\n  rule cells (the record says which limit gave way):")
        for c in rules:
            print(f"    {c['format']:4s} {c['name']:15s} {c['target']:>4}: gave way: {json.dumps(c['gave_way'])}  landing {json.dumps(c['landing'])[:160]}")

    def worst(cs, key, absolute=False):
        vs = [c[key] for c in cs if isinstance(c.get(key), (int, float))]
        if not vs:
            return None
        return max(vs, key=abs) if absolute else max(vs)

    print(f"\n  summary (criteria: |landing| <= {LANDING_CRITERIA['landing_lu']} LU, over <= {LANDING_CRITERIA['over_db']} dB,"
          f" extra limiting <= {LANDING_CRITERIA['extra_db']} dB, encodes <= {LANDING_CRITERIA['encodes']}; worst figures over the cells that are not rule cells):")
    for label in ["tuning", "held-out", "all"]:
        cs = [c for c in cells if label == "all" or c["split"] == label]
        if not cs or (label == "all" and split):
            continue
        judged = [c for c in cs if c["verdict"] != "rule"]
        counts = {v: sum(1 for c in cs if c["verdict"] == v) for v in ("met", "rule", "failed")}
        fw = lambda v, spec: format(v, spec) if isinstance(v, (int, float)) else "n/a"
        print(f"    {label:9s} met {counts['met']:3d}  rule {counts['rule']:3d}  failed {counts['failed']:3d}  of {len(cs):3d}"
              f"   worst landing {fw(worst(judged, 'landing_lu', True), '+.2f')} LU"
              f"   worst over {fw(worst(judged, 'over_db'), '+.2f')} dB"
              f"   worst extra limiting {fw(worst(judged, 'extra_db'), '+.2f')} dB"
              f"   most encodes {fw(worst(cs, 'encodes'), 'd')}")
        for f in formats:
            fc = [c for c in cs if c["format"] == f]
            fj = [c for c in fc if c["verdict"] != "rule"]
            print(f"      {f:5s} met {sum(c['verdict'] == 'met' for c in fc):3d}  rule {sum(c['verdict'] == 'rule' for c in fc):3d}"
                  f"  failed {sum(c['verdict'] == 'failed' for c in fc):3d}  of {len(fc):3d}"
                  f"   landing {fw(worst(fj, 'landing_lu', True), '+.2f')}   over {fw(worst(fj, 'over_db'), '+.2f')}"
                  f"   extra {fw(worst(fj, 'extra_db'), '+.2f')}   encodes {fw(worst(fc, 'encodes'), 'd')}")
    if failed:
        why = {}
        for c in failed:
            for w in c["why"]:
                why[w] = why.get(w, 0) + 1
        print("    failed cells by what failed: " + ", ".join(f"{k} {v}" for k, v in sorted(why.items())))
    if os.environ.get("LANDING_JSON"):
        with open(os.environ["LANDING_JSON"], "w") as fh:
            for c in cells + list(refs.values()):
                fh.write(json.dumps(c) + "\n")
    cpu = sum(c.get("cpu_seconds", 0) for c in results)
    print(f"  {len(cells)} cells and {len(refs)} WAV references in {time.perf_counter() - start:.0f} s on {cores} processes;"
          f" their CPU time {cpu:.0f} s (about {cpu / max(min(cores, os.cpu_count() or 1), 1):.0f} s of wall time on an otherwise idle machine);"
          f" load average now {os.getloadavg()[0]:.1f}", flush=True)


EXTRA_SECTIONS.append("landing_matrix")
