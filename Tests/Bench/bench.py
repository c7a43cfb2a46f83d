#!/usr/bin/env python3
"""make bench: speed figures for audio-tools, as ratios measured in one run.

Every figure is the best of several runs of a release build, printed beside the baseline it is
compared with (the decode-only floor, another tool, or --jobs 1) measured in the same run.
Material is generated into BENCH_DIR on first use and reused afterwards.
"""
import json, os, resource, shutil, subprocess, sys, time

BIN = os.environ.get("BIN", ".build/release")
DIR = os.environ.get("BENCH_DIR", ".build/bench")
SECTIONS = sys.argv[1:] or ["measure", "probe", "normalize", "video", "align", "align_auto", "walk", "cache", "report", "albums"]
# Sections in Tests/Bench/sections/*.py (one file a feature) run after these, in name order.
EXTRA_SECTIONS = []
os.makedirs(DIR, exist_ok=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def best(cmd, runs=3, stdin=None):
    """Best wall time of `runs` runs of cmd (a list), output discarded."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       stdin=open(stdin) if stdin else subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return min(times)


def max_rss_mib(cmd):
    """Peak resident memory of one run of cmd, in MiB (GNU time's %M)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024


def tool(name):
    return os.path.join(BIN, name)


def make(path, sox_args):
    if not os.path.exists(path):
        print(f"  generating {os.path.basename(path)} ...", flush=True)
        # -R: sox's repeatable mode, so the noise (and how hard the limiter works on it) is the
        # same in every bench folder.
        sh(["sox", "-R", "-n"] + sox_args)
    return path


def music(path, seconds, rate=48000, bits=24):
    """Music-like material: pink noise with a slow swell and a tone bed, stereo."""
    return make(path, ["-r", str(rate), "-c", "2", "-b", str(bits), path,
                       "synth", str(seconds), "pinknoise", "synth", str(seconds), "sine", "mix", "110",
                       "tremolo", "0.3", "60", "gain", "-14"])


def build_ebur128_ref():
    """Compiles the libebur128 baseline (Tests/Bench/ebur128_ref.c) when the library is installed."""
    exe = os.path.join(DIR, "ebur128_ref")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ebur128_ref.c")
    if not os.path.exists(exe):
        r = subprocess.run(["gcc", "-O2", src, "-o", exe, "-lebur128", "-lsndfile", "-lm"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("  (libebur128 baseline not built: " + (r.stderr.strip().splitlines() or ["gcc failed"])[-1] + ")")
            return None
    return exe


MISSING = []


def bench_module(name):
    """The module `name`.py beside this file (a section's material builder), loaded by its path."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def missing(what):
    """A comparison that could not be made: printed now, and the bench exits 1 at the end."""
    MISSING.append(what)
    print(f"  !! MISSING: {what}: this comparison was NOT made", flush=True)


def section(title):
    print(f"\n== {title}", flush=True)


def best_wall_and_cpu(cmd, runs=5):
    """Best wall time and best CPU time (user + system, all threads) of `runs` runs of cmd. On a
    machine other work is loading, CPU time moves less than wall time."""
    walls, cpus = [], []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t)
        cpus.append(ru.ru_utime + ru.ru_stime)
    return min(walls), min(cpus)


def measure():
    section("lufs-measure: 10-minute 48 kHz stereo 24-bit WAV, one job")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    floor, floor_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--decode-only", f])
    full, full_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", f])
    print(f"  decode only (the floor)        {floor:7.3f} s   (cpu {floor_cpu:.3f} s)")
    print(f"  full measurement (incl. TP)    {full:7.3f} s   = {full / floor:5.2f}x the decode floor,"
          f" {600 / full:6.0f}x realtime   (cpu {full_cpu:.3f} s = {full_cpu / floor_cpu:4.2f}x)")
    full2, full2_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "2", f])
    print(f"  the same file with --jobs 2      {full2:7.3f} s   = {full2 / floor:5.2f}x the decode floor,"
          f" {full / full2:4.2f}x faster than --jobs 1 (target >= 1.5x; one file on two threads: decoding, and"
          f" K-weighting with true peak, balanced by their costs)   (cpu {full2_cpu:.3f} s)")
    same = subprocess.run([tool("lufs-measure"), "-j", "1", "--timeline", f], capture_output=True).stdout == \
        subprocess.run([tool("lufs-measure"), "-j", "2", "--timeline", f], capture_output=True).stdout
    print(f"    records byte-identical between --jobs 1 and --jobs 2 (with --timeline): {'yes' if same else 'NO'}")
    sine = make(os.path.join(DIR, "sine-10min.wav"),
                ["-r", "48000", "-c", "2", "-b", "24", os.path.join(DIR, "sine-10min.wav"), "synth", "600", "sine", "997", "gain", "-1"])
    sfloor, sfloor_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", "--decode-only", sine])
    sfull, sfull_cpu = best_wall_and_cpu([tool("lufs-measure"), "-j", "1", sine])
    sfull2, _ = best_wall_and_cpu([tool("lufs-measure"), "-j", "2", sine])
    print(f"  worst case, a steady -1 dBFS sine (no true-peak skipping possible): "
          f"{sfull:.3f} s = {sfull / sfloor:4.2f}x its decode floor ({sfloor:.3f} s) with --jobs 1 (target <= 3x), "
          f"{sfull2:.3f} s = {sfull2 / sfloor:4.2f}x with --jobs 2   "
          f"(cpu, --jobs 1: {sfull_cpu:.3f} s = {sfull_cpu / sfloor_cpu:4.2f}x the floor's {sfloor_cpu:.3f} s)")
    ref = build_ebur128_ref()
    if not ref:
        missing("libebur128 (make bench-deps installs libebur128-dev)")
    if ref:
        lib = best([ref, f], runs=1)
        out = subprocess.run([ref, f], capture_output=True, text=True).stdout.strip()
        print(f"  libebur128 (all modes, TP)     {lib:7.3f} s   = {lib / floor:5.1f}x the decode floor, {lib / full:4.1f}x lufs-measure")
        ours = subprocess.run([tool("lufs-measure"), f], capture_output=True, text=True).stdout
        import json
        l = json.loads(ours)["loudness"]
        print(f"    libebur128 reads   {out}")
        print(f"    lufs-measure reads {l['integrated_lufs']:.2f} LUFS, LRA {l['loudness_range_lu']:.2f} LU, "
              f"M max {l['momentary_max_lufs']:.2f}, S max {l['short_term_max_lufs']:.2f}, TP {l['true_peak_dbtp']:.2f} dBTP"
              "  (maxima every 1 ms here, every 8192 frames there)")
    if shutil.which("ffmpeg"):
        ff = best(["ffmpeg", "-nostdin", "-v", "error", "-i", f, "-af", "ebur128=peak=true", "-f", "null", "-"], runs=1)
        print(f"  ffmpeg ebur128=peak=true       {ff:7.3f} s   = {ff / full:5.1f}x slower than lufs-measure")
        others = [t for t in [lib if ref else None, ff] if t]
        print(f"  => lufs-measure: {full / floor:4.2f}x its floor; {min(others) / full:4.1f}x faster than the best other meter")
    else:
        missing("ffmpeg (make test-deps installs it)")

    section("lufs-measure: 8 files of 2 minutes, --jobs 1 against --jobs 2")
    files = [music(os.path.join(DIR, f"music-2min-{i}.wav"), 120 + i) for i in range(8)]
    j1 = best([tool("lufs-measure"), "-j", "1"] + files)
    j2 = best([tool("lufs-measure"), "-j", "2"] + files)
    print(f"  --jobs 1 {j1:7.3f} s   --jobs 2 {j2:7.3f} s   speed-up {j1 / j2:4.2f}x on {os.cpu_count()} cores")

    section("lufs-measure: memory on a 2-hour 48 kHz stereo file")
    long = music(os.path.join(DIR, "music-2h.wav"), 7200, bits=16)
    print(f"  peak resident memory            {max_rss_mib([tool('lufs-measure'), '-j', '1', long]):7.1f} MiB")


def film_10min():
    """A 10-minute 1080p25 H.264 (4 Mb/s) + stereo AAC 160 kb/s film, made once and kept in DIR."""
    f = os.path.join(DIR, "film-10min.mp4")
    if os.path.exists(f):
        return f
    print("  generating film-10min.mp4 (1080p25 H.264 at 4 Mb/s, stereo AAC 160 kb/s) ...", flush=True)
    # One minute of picture, repeated ten times by stream copy (encoding ten minutes of
    # 1080p costs more than the whole bench), under ten minutes of sound.
    minute, listing, picture = f + ".1min.mp4", f + ".list", f + ".video.mp4"
    sh(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=60",
        "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "4M", "-g", "50", minute])
    with open(listing, "w") as l:
        l.write(f"file '{os.path.abspath(minute)}'\n" * 10)
    sh(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing, "-c", "copy", picture])
    sh(["ffmpeg", "-v", "error", "-y", "-i", picture, "-f", "lavfi", "-i", "anoisesrc=d=600:c=pink:r=48000:a=0.05:seed=1",
        "-f", "lavfi", "-i", "sine=f=220:d=600:r=48000",
        "-filter_complex", "[1][2]amix=inputs=2,aformat=channel_layouts=stereo[a]", "-map", "0:v", "-map", "[a]",
        "-c:v", "copy", "-c:a", "aac", "-b:a", "160k", "-metadata:s:a:0", "language=eng", "-shortest", f + ".tmp.mp4"])
    for p in (minute, listing, picture):
        os.remove(p)
    os.rename(f + ".tmp.mp4", f)
    return f


def ffmpeg_normalize():
    """ffmpeg-normalize in a venv of DIR (installed once), or None with a MISSING line."""
    venv = os.path.join(DIR, "venv")
    ffn = os.path.join(venv, "bin", "ffmpeg-normalize")
    if not os.path.exists(ffn):
        try:
            sh(["python3", "-m", "venv", venv])
            sh([os.path.join(venv, "bin", "pip"), "install", "-q", "ffmpeg-normalize"])
        except Exception as e:
            missing(f"ffmpeg-normalize could not be installed ({e})")
    return ffn if os.path.exists(ffn) else None


def normalize():
    section("lufs-normalize: 10-minute 48 kHz stereo 24-bit WAV, one job")
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    out = os.path.join(DIR, "normalize-out")
    os.makedirs(out, exist_ok=True)
    measured = os.path.join(DIR, "music-10min.loudness.jsonl")
    with open(measured, "w") as m:
        subprocess.run([tool("lufs-measure"), "-j", "1", f], check=True, stdout=m)
    norm = [tool("lufs-normalize"), "-j", "1", "--overwrite", "--target", "-16", "--true-peak", "-1"]

    def loudness_of(path):
        r = subprocess.run([tool("lufs-measure"), path], capture_output=True, text=True)
        try:
            import json
            l = json.loads(r.stdout)["loudness"]
            return f"{l['integrated_lufs']} LUFS, {l['true_peak_dbtp']} dBTP"
        except Exception:
            return "(could not be measured)"

    # (a) From the record's measurement, against copying through the same decoder and encoder.
    floor = best(norm + ["--decode-encode-only", "--out-dir", os.path.join(out, "floor"), "-"], stdin=measured)
    given = best(norm + ["--out-dir", os.path.join(out, "given"), "-"], stdin=measured)
    hot = best(norm[:-4] + ["--target", "-9", "--true-peak", "-1", "--out-dir", os.path.join(out, "hot"), "-"], stdin=measured)
    # Hotter still: the first pass misses, so the gain search takes measuring passes.
    hotter = best(norm[:-4] + ["--target", "-8", "--true-peak", "-1", "--out-dir", os.path.join(out, "hotter"), "-"], stdin=measured)
    print(f"  decode + encode, no processing (the floor)   {floor:7.3f} s   (lufs-normalize --decode-encode-only: libsndfile both ways)")
    print(f"  normalise from the given measurement         {given:7.3f} s   = {given / floor:5.2f}x the floor,"
          f" {600 / given:5.0f}x realtime   -> {loudness_of(os.path.join(out, 'given', os.path.basename(f)))}")
    print(f"  same, target -9 (limiter + compensation)     {hot:7.3f} s   = {hot / floor:5.2f}x the floor"
          f"   -> {loudness_of(os.path.join(out, 'hot', os.path.basename(f)))}")
    print(f"  same, target -8 (deeper limiting, more passes) {hotter:7.3f} s   = {hotter / floor:5.2f}x the floor"
          f"   -> {loudness_of(os.path.join(out, 'hotter', os.path.basename(f)))}")
    print(f"  peak resident memory (normalise, limited)    {max_rss_mib(norm[:-4] + ['--target', '-9', '--out-dir', os.path.join(out, 'hot'), f]):7.1f} MiB")

    # (b) Measure and normalise end to end, beside ffmpeg-normalize doing the same job.
    section("measure + normalise to -16 LUFS / -1 dBTP end to end, beside ffmpeg-normalize")
    e2e_out = os.path.join(out, "e2e")
    pipeline = (f"{tool('lufs-measure')} -j 1 {f} | " + " ".join(norm) + f" --out-dir {e2e_out}")
    ours = best(["sh", "-c", pipeline])
    print(f"  lufs-measure | lufs-normalize                {ours:7.3f} s   -> {loudness_of(os.path.join(e2e_out, os.path.basename(f)))}")
    ffn = ffmpeg_normalize()
    if ffn and shutil.which("ffmpeg"):
        theirs_path = os.path.join(out, "ffmpeg-normalize.wav")
        # EBU mode (two passes of ffmpeg's loudnorm); keep the rate and 24-bit PCM like ours.
        theirs = best([ffn, f, "-f", "-nt", "ebu", "-t", "-16", "-tp", "-1", "-ar", "48000",
                       "-c:a", "pcm_s24le", "-o", theirs_path], runs=1)
        print(f"  ffmpeg-normalize (EBU, two-pass loudnorm)    {theirs:7.3f} s   -> {loudness_of(theirs_path)}"
              f"   ({theirs / ours:4.1f}x the time of ours)")
        print(f"  => lufs-normalize: {given / floor:4.2f}x its floor ({hot / floor:4.2f}x limited); "
              f"measure + normalise {theirs / ours:4.1f}x faster than ffmpeg-normalize")
    else:
        missing("ffmpeg-normalize or ffmpeg")


def video():
    """A 10-minute 1080p H.264 film with a stereo AAC track: measure + normalise (video copied,
    AAC re-encoded) beside ffmpeg-normalize doing the same job and a plain remux floor."""
    section("lufs-measure | lufs-normalize on a 10-minute 1080p H.264 + stereo AAC MP4, beside ffmpeg-normalize and a remux")
    if not shutil.which("ffmpeg"):
        missing("ffmpeg (the video section needs it)")
        return
    f = film_10min()
    out = os.path.join(DIR, "video-out")
    os.makedirs(out, exist_ok=True)

    def loudness_of(path):
        r = subprocess.run([tool("lufs-measure"), path], capture_output=True, text=True)
        try:
            import json
            l = json.loads(r.stdout)["loudness"]
            return f"{l['integrated_lufs']} LUFS, {l['true_peak_dbtp']} dBTP"
        except Exception:
            return "(could not be measured)"

    remux_path = os.path.join(out, "remux.mp4")
    remux = best(["ffmpeg", "-v", "error", "-y", "-i", f, "-map", "0", "-c:v", "copy", "-c:a", "aac", "-b:a", "160k", remux_path], runs=2)
    ours_dir = os.path.join(out, "ours")
    pipeline = (f"{tool('lufs-measure')} -j 1 {f} | {tool('lufs-normalize')} -j 1 --overwrite --preset social"
                f" --allow-loss --out-dir {ours_dir}")
    ours = best(["sh", "-c", pipeline], runs=2)
    print(f"  ffmpeg -c:v copy -c:a aac (the remux floor)  {remux:7.3f} s")
    print(f"  lufs-measure | lufs-normalize               {ours:7.3f} s   = {ours / remux:5.2f}x the floor"
          f"   -> {loudness_of(os.path.join(ours_dir, os.path.basename(f)))}")
    ffn = ffmpeg_normalize()
    if ffn:
        theirs_path = os.path.join(out, "ffmpeg-normalize.mp4")
        theirs = best([ffn, f, "-f", "-nt", "ebu", "-t", "-14", "-tp", "-1", "-c:a", "aac", "-b:a", "160k",
                       "-o", theirs_path], runs=1)
        print(f"  ffmpeg-normalize -c:a aac (video copied)     {theirs:7.3f} s   -> {loudness_of(theirs_path)}"
              f"   (ours is {theirs / ours:4.1f}x faster)")
    print(f"  peak resident memory (lufs-normalize)        {max_rss_mib([tool('lufs-normalize'), '--overwrite', '--preset', 'social', '--allow-loss', '--out-dir', ours_dir, f]):7.1f} MiB")


def align():
    section("vo-align: 10-minute 48 kHz take against a 10-minute 44.1 kHz reference, one job")
    import json
    ref = music(os.path.join(DIR, "align-reference-10min.wav"), 600, rate=44100, bits=16)
    take = os.path.join(DIR, "align-take-10min.wav")
    dry = os.path.join(DIR, "align-take-dry-10min.wav")  # the same voice on headphones: no bleed
    truth_frames = 8261  # the bleed's delay, in reference frames (44.1 kHz): 8991.56 frames at 48 kHz
    truth_ms = truth_frames / 44.1
    if not (os.path.exists(take) and os.path.exists(dry)):
        if not shutil.which("espeak-ng"):
            missing("espeak-ng (make test-deps installs it)")
            return
        print(f"  generating {os.path.basename(take)} ...", flush=True)
        text = ("A voiceover is performed against playback. The performer hears the music late, and "
                "the microphone hears the voice late again. Both delays land in the take, so the take "
                "has to be placed earlier by exactly the round trip. Clocks drift, rooms reflect, and "
                "the bleed of the backing track shows the latency directly.")
        speech, voice, bleed, noise = (os.path.join(DIR, f"align-{n}.wav") for n in ("speech", "voice", "bleed", "noise"))
        sh(["espeak-ng", "-w", speech, text])
        # Speech with pauses, repeated to ten minutes, at the microphone's 48 kHz.
        sh(["sox", speech, "-r", "48000", "-b", "24", voice, "pad", "0.5", "1.5", "repeat", "60", "trim", "0", "600"])
        # The backing heard by the microphone: mono, late, at 48 kHz, about 20 dB under the voice.
        sh(["sox", ref, "-b", "24", bleed, "remix", "-", "delay", f"{truth_frames}s", "rate", "-v", "48000",
            "gain", "-15", "trim", "0", "600"])
        sh(["sox", "-n", "-r", "48000", "-c", "1", "-b", "24", noise, "synth", "600", "whitenoise", "gain", "-65"])
        sh(["sox", "-m", "-v", "1", voice, "-v", "1", bleed, "-v", "1", noise, "-b", "24", take])
        sh(["sox", "-m", "-v", "1", voice, "-v", "1", noise, "-b", "24", dry])
        for f in (speech, voice, bleed, noise):
            os.remove(f)

    ours = best([tool("vo-align"), "-j", "1", "--reference", ref, take])
    out = subprocess.run([tool("vo-align"), "-j", "1", "--reference", ref, take], capture_output=True, text=True)
    a = json.loads(out.stdout.splitlines()[0]).get("alignment") or {}
    print(f"  vo-align                       {ours:7.3f} s   = {ours / 600:.4f} of the take's duration,"
          f" {600 / ours:5.0f}x realtime")
    if a:
        print(f"    found {a['latency_ms']:.3f} ms (truth {truth_ms:.3f} ms, error {a['latency_ms'] - truth_ms:+.3f} ms),"
              f" confidence {a['confidence']}, drift {a['drift_ppm']} ppm, bleed {a['bleed_db']} dB")
    else:
        print(f"    refused: {out.stdout.strip()}")
    out = subprocess.run([tool("vo-align"), "-j", "1", "--reference", ref, dry], capture_output=True, text=True)
    e = (json.loads(out.stdout.splitlines()[0]).get("error") or {}) if out.stdout else {}
    print(f"  vo-align, take without bleed   refused: {e.get('code')} ({e.get('message')})")

    venv = os.path.join(DIR, "venv")
    syncstart = os.path.join(venv, "bin", "syncstart")
    if not os.path.exists(syncstart):
        try:
            sh([sys.executable, "-m", "venv", venv])
            sh([os.path.join(venv, "bin", "pip"), "install", "-q", "syncstart"])
        except (subprocess.CalledProcessError, OSError) as e:
            missing(f"syncstart could not be installed ({e})")
            return
    for label, extra, f_take in (("syncstart (its default: 20 s)", [], take),
                                 ("syncstart -t 120 (2 minutes)", ["-t", "120"], take),
                                 ("syncstart, take without bleed", [], dry)):
        t = time.perf_counter()
        r = subprocess.run([syncstart, "-q", "-s"] + extra + [ref, f_take], capture_output=True, text=True)
        elapsed = time.perf_counter() - t
        try:
            f, sec = r.stdout.strip().splitlines()[-1].rsplit(",", 1)
            found = float(sec) * 1000 * (1 if os.path.basename(f) == os.path.basename(f_take) else -1)
            print(f"  {label:30} {elapsed:7.3f} s   = {elapsed / ours:5.1f}x vo-align's time;"
                  f" found {found:.3f} ms (error {found - truth_ms:+.3f} ms), no confidence")
        except (ValueError, IndexError):
            print(f"  {label:30} failed: {(r.stderr or r.stdout).strip()[-200:]}")


def align_auto():
    """vo-align --start-at auto: a 1-minute take from somewhere in a 10-minute and a 2-hour
    backing, beside syncstart and audio-offset-finder given the same files."""
    section("vo-align --start-at auto: a 1-minute take placed in a 10-minute and a 2-hour backing, one job")
    import json
    if not shutil.which("espeak-ng"):
        missing("espeak-ng (make test-deps installs it)")
        return
    latency = 0.1873  # seconds late; the take's first frame holds the backing at start - latency
    cases = [("10-minute", music(os.path.join(DIR, "align-reference-10min.wav"), 600, rate=44100, bits=16), 600, 240.0),
             ("2-hour", music(os.path.join(DIR, "music-2h.wav"), 7200, bits=16), 7200, 5000.0)]
    venv = os.path.join(DIR, "venv")
    tools = {}
    for name in ("syncstart", "audio-offset-finder"):
        exe = os.path.join(venv, "bin", name)
        if not os.path.exists(exe):
            try:
                if not os.path.exists(os.path.join(venv, "bin", "pip")):
                    sh([sys.executable, "-m", "venv", venv])
                sh([os.path.join(venv, "bin", "pip"), "install", "-q", name])
            except (subprocess.CalledProcessError, OSError) as e:
                print(f"  !!! {name} COULD NOT BE INSTALLED ({e}): it is missing from this comparison !!!")
        if os.path.exists(exe):
            tools[name] = exe
    for label, ref, length, start in cases:
        take = os.path.join(DIR, f"align-auto-take-{label}.wav")
        truth_ms = (latency - start) * 1000  # D = L - S
        if not os.path.exists(take):
            print(f"  generating {os.path.basename(take)} ...", flush=True)
            speech, voice, bleed = (os.path.join(DIR, f"align-auto-{n}.wav") for n in ("speech", "voice", "bleed"))
            sh(["espeak-ng", "-w", speech, "The take was recorded somewhere in the middle of the backing track, "
                "and nobody wrote down where. The bleed of the backing in the microphone says it exactly."])
            sh(["sox", speech, "-r", "48000", "-b", "24", voice, "pad", "0.5", "1.0", "repeat", "12", "trim", "0", "60"])
            sh(["sox", ref, "-b", "24", bleed, "trim", f"{start - latency}", "60", "remix", "-", "rate", "-v", "48000", "gain", "-15"])
            sh(["sox", "-m", "-v", "1", voice, "-v", "1", bleed, "-b", "24", take])
            for f in (speech, voice, bleed):
                os.remove(f)
        print(f"  {label} backing ({length} s at {subprocess.run(['soxi', '-r', ref], capture_output=True, text=True).stdout.strip()} Hz),"
              f" take from {start:.0f} s, {latency * 1000:.1f} ms late: truth delay {truth_ms:.3f} ms")
        def timed(args, limit=900):
            """Wall time, and the CPU time (user + system) the child used: on a loaded machine
            the CPU time is the fairer figure, so ratios are taken from it."""
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            try:
                r = subprocess.run(args, capture_output=True, text=True, timeout=limit)
            except subprocess.TimeoutExpired:
                return None, f"gave up after {limit} s"
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            return (wall, cpu), r

        cmd = [tool("vo-align"), "-j", "1", "--reference", ref, "--start-at", "auto", take]
        runs = [timed(cmd) for _ in range(2 if length < 1000 else 1)]
        (wall, ours), r = min(runs, key=lambda x: x[0][1])
        rec = json.loads(r.stdout.splitlines()[0]) if r.stdout else {}
        a = rec.get("alignment") or {}
        head = f"    {'vo-align --start-at auto':34} {ours:8.3f} s CPU ({wall:7.3f} s wall)"
        if a:
            print(f"{head}                              found {a['delay_ms']:.3f} ms"
                  f" (error {a['delay_ms'] - truth_ms:+.3f} ms), confidence {a['confidence']}")
        else:
            print(f"{head}   refused: {(rec.get('error') or {}).get('code')}")
        print(f"    vo-align peak resident memory   {max_rss_mib(cmd):8.1f} MiB")

        if "syncstart" in tools:
            runs = [([], "its default: first 20 s")]
            if length <= 600:
                runs.append((["-t", str(length)], f"-t {length}: the whole backing"))
            else:
                print(f"    syncstart -t {length} (the whole backing) NOT RUN: it FFTs both files whole in memory"
                      f" (complex128, padded), about {length * 48000 * 2 * 16 * 2 / 1e9:.0f} GB here")
            for extra, what in runs:
                t, r = timed([tools["syncstart"], "-q", "-s"] + extra + [ref, take])
                if t is None:
                    print(f"    syncstart ({what}) {r}")
                    continue
                try:
                    f, sec = r.stdout.strip().splitlines()[-1].rsplit(",", 1)
                    # syncstart names the file to cut at its start: the take is late by sec when it is the take.
                    found = float(sec) * 1000 * (1 if os.path.basename(f) == os.path.basename(take) else -1)
                    print(f"    {'syncstart (' + what + ')':34} {t[1]:8.3f} s CPU ({t[0]:7.3f} s wall) = {t[1] / ours:6.1f}x vo-align's CPU;"
                          f" found {found:.3f} ms (error {found - truth_ms:+.3f} ms), no confidence")
                except (ValueError, IndexError):
                    print(f"    syncstart ({what}) failed: {(r.stderr or r.stdout).strip()[-200:]}")
        if "audio-offset-finder" in tools:
            t, r = timed([tools["audio-offset-finder"], "--find-offset-of", take, "--within", ref, "--json"])
            if t is None:
                print(f"    audio-offset-finder {r}")
            else:
                try:
                    j = json.loads(r.stdout)
                    # Its offset: seconds from the backing's start to the take's start, i.e. -D.
                    found = -float(j["time_offset"]) * 1000
                    print(f"    {'audio-offset-finder (8 kHz MFCC)':34} {t[1]:8.3f} s CPU ({t[0]:7.3f} s wall) = {t[1] / ours:6.1f}x vo-align's CPU;"
                          f" found {found:.3f} ms (error {found - truth_ms:+.3f} ms), score {float(j['standard_score']):.1f}")
                except (ValueError, KeyError, TypeError):
                    print(f"    audio-offset-finder failed: {(r.stderr or r.stdout).strip()[-200:]}")


def probe():
    section("audio-probe / library-filter: 2,000 small files of mixed formats, against mediainfo")
    lib = os.path.join(DIR, "probe-library")
    count = 2000
    if not os.path.exists(os.path.join(lib, ".complete")):
        if not shutil.which("ffmpeg"):
            missing("ffmpeg (make test-deps installs it)")
            return
        print("  generating probe-library (2,000 files) ...", flush=True)
        shutil.rmtree(lib, ignore_errors=True)
        seeds = os.path.join(lib, "seeds")
        os.makedirs(seeds)
        # 8 distinct 2-4 s clips in each of five formats, with tags, then copies of them.
        clips = []
        for i in range(8):
            wav = os.path.join(seeds, f"clip{i}.wav")
            sh(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", str(2 + i % 3),
                "sine", str(220 + 55 * i), "gain", "-12"])
            tags = ["-metadata", f"title=Clip {i}", "-metadata", f"artist=Bench Artist {i % 3}",
                    "-metadata", "album=Bench", "-metadata", f"date={1990 + i}"]
            clips.append(wav)
            for ext, codec in (("flac", []), ("mp3", ["-b:a", "128k"]), ("ogg", ["-c:a", "libvorbis"]), ("m4a", ["-c:a", "aac"])):
                out = os.path.join(seeds, f"clip{i}.{ext}")
                sh(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav] + tags + codec + [out])
                clips.append(out)
        others = {"cover.jpg": b"\xff\xd8\xff\xe0" + bytes(2000), "notes.txt": b"liner notes\n" * 20,
                  "album.m3u": b"#EXTM3U\n01.mp3\n"}
        audio_count = count - 3 * 40
        for n in range(audio_count):
            folder = os.path.join(lib, f"album{n % 40:02d}")
            os.makedirs(folder, exist_ok=True)
            src = clips[n % len(clips)]
            shutil.copyfile(src, os.path.join(folder, f"{n:04d}{os.path.splitext(src)[1]}"))
        for a in range(40):
            for name, data in others.items():
                with open(os.path.join(lib, f"album{a:02d}", name), "wb") as f:
                    f.write(data)
        shutil.rmtree(seeds)
        open(os.path.join(lib, ".complete"), "w").close()
    files = sum(len(fs) for _, _, fs in os.walk(lib)) - 1
    print(f"  {files} files: wav, flac, mp3, ogg, m4a (AAC) copies of 8 clips, plus cover art, notes and playlists")
    print(f"  load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall figures suffer from other load; cpu figures less)")

    def timed(cmd, runs=2, stdin=None):
        """Best wall time and best CPU time (user + system, all threads) of `runs` runs."""
        walls, cpus = [], []
        for _ in range(runs):
            t = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 stdin=open(stdin) if stdin else subprocess.DEVNULL)
            _, _, usage = os.wait4(p.pid, 0)
            walls.append(time.perf_counter() - t)
            cpus.append(usage.ru_utime + usage.ru_stime)
        return min(walls), min(cpus)

    rows = []
    for label, cmd in (("audio-probe --jobs 1", [tool("audio-probe"), "-j", "1", lib]),
                       ("audio-probe --jobs 2", [tool("audio-probe"), "-j", "2", lib]),
                       ("library-filter --jobs 1", [tool("library-filter"), "-j", "1", "--no-summary", lib]),
                       ("library-filter --jobs 2", [tool("library-filter"), "-j", "2", "--no-summary", lib])):
        rows.append((label, *timed(cmd)))
    mi = mi_cpu = None
    if shutil.which("mediainfo"):
        mi, mi_cpu = timed(["mediainfo", "--Output=JSON", lib])
    for label, t, cpu in rows:
        extra = f"   = {mi / t:5.2f}x mediainfo's speed (cpu {mi_cpu / cpu:4.2f}x)" if mi else ""
        print(f"  {label:28} {t:7.3f} s   {files / t:7.0f} files/s   cpu {cpu:6.2f} s{extra}")
    if mi:
        print(f"  {'mediainfo --Output=JSON':28} {mi:7.3f} s   {files / mi:7.0f} files/s   cpu {mi_cpu:6.2f} s   (headers only; decodes nothing)")
    else:
        missing("mediainfo (make bench-deps installs it)")
    # Each format on its own. Lossy AAC in MP4 is checked by its structure (no decoder process);
    # every other format is decoded in-process, its first and last second.
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(lib) for f in fs if not f.startswith("."))
    subsets = [("M4A (AAC) only, structure", [p for p in paths if p.endswith(".m4a")]),
               ("everything but M4A", [p for p in paths if not p.endswith(".m4a")])]
    subsets += [(f"{ext.upper()} only", [p for p in paths if p.endswith("." + ext)]) for ext in ("wav", "flac", "mp3", "ogg")]
    for label, subset in subsets:
        listing = os.path.join(DIR, "probe-subset.txt")
        with open(listing, "w") as f:
            f.write("\n".join(subset) + "\n")
        t, cpu = timed([tool("audio-probe"), "-j", "2"], runs=1, stdin=listing)
        m = timed(["mediainfo", "--Output=JSON"] + subset, runs=1) if shutil.which("mediainfo") else None
        vs = f"   mediainfo {len(subset) / m[0]:6.0f} files/s, cpu {m[1]:5.2f} s" if m else ""
        print(f"  {label:28} audio-probe --jobs 2 {len(subset) / t:6.0f} files/s, cpu {cpu:5.2f} s{vs}   ({len(subset)} files)")


def run_measured(cmd):
    """Wall time, CPU time (user + system) and peak resident memory (MiB) of one run of cmd,
    output discarded. On a loaded machine the CPU time is the steadier figure."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cache_library(count):
    """`count` small files of mixed formats (WAV, FLAC, MP3, Ogg Vorbis) in artist/album folders,
    real copies of 32 seeds (8 half-second clips in four formats; every WAV made unique), with
    past modification times."""
    lib = os.path.join(DIR, f"cache-library-{count}")
    if os.path.exists(os.path.join(lib, ".complete")):
        return lib
    if not shutil.which("ffmpeg"):
        return None
    print(f"  generating {count:,} files ...", flush=True)
    t = time.perf_counter()
    shutil.rmtree(lib, ignore_errors=True)
    seeds = os.path.join(DIR, "cache-seeds")
    os.makedirs(seeds, exist_ok=True)
    clips = []
    for i in range(8):
        wav = os.path.join(seeds, f"clip{i}.wav")
        if not os.path.exists(wav):
            sh(["sox", "-n", "-r", "8000", "-c", "1", "-b", "16", wav, "synth", "0.5", "sine", str(200 + 60 * i), "gain", "-12"])
        clips.append(wav)
        for ext, codec in (("flac", []), ("mp3", ["-b:a", "32k"]), ("ogg", ["-c:a", "libvorbis"])):
            out = os.path.join(seeds, f"clip{i}.{ext}")
            if not os.path.exists(out):
                sh(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-metadata", f"title=Clip {i}",
                    "-metadata", f"artist=Artist {i % 3}"] + codec + [out])
            clips.append(out)
    data = [(os.path.splitext(c)[1], open(c, "rb").read()) for c in clips]
    base = 1_600_000_000 * 10**9
    per_album = 100
    for n in range(count):
        folder = os.path.join(lib, f"artist{n // (per_album * 10):03d}", f"album{(n // per_album) % 10:02d}")
        if n % per_album == 0:
            os.makedirs(folder, exist_ok=True)
        ext, blob = data[n % len(data)]
        if ext == ".wav":
            blob = blob[:-4] + n.to_bytes(4, "little")
        path = os.path.join(folder, f"{n % per_album:02d}{ext}")
        with open(path, "wb") as f:   # a real copy: its own inode
            f.write(blob)
        os.utime(path, ns=(base + n * 10**9, base + n * 10**9))
    open(os.path.join(lib, ".complete"), "w").close()
    print(f"  generated in {time.perf_counter() - t:.1f} s", flush=True)
    return lib


def read_all(roots):
    """Reads every file under `roots` once, so the timed run finds them in the page cache."""
    for root in roots:
        for d, _, fs in os.walk(root):
            for f in fs:
                with open(os.path.join(d, f), "rb") as fh:
                    while fh.read(1 << 20):
                        pass


def cache():
    section("--cache: cold (an empty cache) and warm runs over small files of mixed formats, --jobs 2")
    lib = cache_library(100_000)
    if lib is None:
        missing("ffmpeg (make test-deps installs it)")
        return
    artists = sorted(d for d in os.listdir(lib) if d.startswith("artist"))
    for count, roots in ((10_000, [os.path.join(lib, a) for a in artists[:10]]), (100_000, [lib])):
        print(f"  {count:,} files (WAV, FLAC, MP3, Ogg Vorbis; 0.5 s each, in {len(roots) * 10 if count == 10_000 else 1000} album folders)")
        for name, extra in (("audio-probe", []), ("library-filter", ["--no-summary"]), ("lufs-measure", [])):
            db = os.path.join(DIR, f"cache-{name}-{count}.sqlite")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            cmd = [tool(name), "-j", "2", "--cache", db] + extra + roots
            # "Cold" means an empty result cache, not files the kernel has to fetch from disk
            # again: the machine may have dropped them from its page cache since the last run.
            read_all(roots)
            cold, cold_cpu, cold_mem = run_measured(cmd)
            # Warm runs take a tenth of a second at 10,000 files: the best of three, as the
            # other sections take, so one stall of the machine doesn't stand for the tool.
            warms = [run_measured(cmd) for _ in range(3)]
            warm, warm_cpu, warm_mem = min(w[0] for w in warms), min(w[1] for w in warms), max(w[2] for w in warms)
            size = os.path.getsize(db) + (os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0)
            print(f"    {name:15} cold {cold:7.2f} s (cpu {cold_cpu:7.2f} s, {cold_mem:5.1f} MiB)"
                  f"   warm {warm:6.2f} s (cpu {warm_cpu:6.2f} s, {warm_mem:5.1f} MiB)"
                  f"   = {cold / warm:5.1f}x faster (cpu {cold_cpu / max(warm_cpu, 1e-3):5.1f}x);"
                  f"  cache {size / 2**20:5.1f} MiB = {size / count:4.0f} bytes/file")
        # A WAV copy is unique (its last two samples carry its number), so its id names one file.
        first = os.path.join(lib, "artist000", "album00", "00.wav")
        r = subprocess.run([tool("audio-probe"), first], capture_output=True, text=True)
        song_id = json.loads(r.stdout)["probe"]["content_id"] if r.stdout else None
        if song_id:
            db = os.path.join(DIR, f"cache-library-filter-{count}.sqlite")
            indexed, _, _ = run_measured([tool("library-filter"), "--no-summary", "--cache", db, "--get", song_id] + roots)
            print(f"    library-filter --get ID from the cache's index, no walk: {indexed:.3f} s")
    cache_songs()


def cache_songs():
    """The same with files of song-like length, where a cold run's cost grows with the audio and a
    warm run's doesn't (`make bench SECTIONS=cache_songs` runs only this)."""
    lib = os.path.join(DIR, "cache-songs-500")
    if not os.path.exists(os.path.join(lib, ".complete")):
        print("  generating 500 files of 10 s ...", flush=True)
        shutil.rmtree(lib, ignore_errors=True)
        os.makedirs(lib)
        seed = os.path.join(DIR, "cache-song-seed.wav")
        music(seed, 10, rate=22050, bits=16)
        blob = open(seed, "rb").read()
        base = 1_600_000_000 * 10**9
        for n in range(500):
            folder = os.path.join(lib, f"album{n // 50:02d}")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{n % 50:02d}.wav")
            with open(path, "wb") as f:
                f.write(blob[:-4] + n.to_bytes(4, "little"))
            os.utime(path, ns=(base + n * 10**9, base + n * 10**9))
        open(os.path.join(lib, ".complete"), "w").close()
    print("  500 WAV files of 10 s (22.05 kHz stereo, 16-bit)")
    for name in ("audio-probe", "lufs-measure"):
        db = os.path.join(DIR, f"cache-songs-{name}.sqlite")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        cmd = [tool(name), "-j", "2", "--cache", db, lib]
        read_all([lib])
        cold, cold_cpu, _ = run_measured(cmd)
        warms = [run_measured(cmd) for _ in range(3)]
        warm, warm_cpu = min(w[0] for w in warms), min(w[1] for w in warms)
        print(f"    {name:15} cold {cold:7.2f} s (cpu {cold_cpu:6.2f} s)   warm {warm:6.3f} s (cpu {warm_cpu:6.3f} s)"
              f"   = {cold / warm:6.1f}x faster (cpu {cold_cpu / max(warm_cpu, 1e-3):6.1f}x)")


def walk():
    section("directory walk: 200 folders x 100 files that aren't audio (cover art, playlists, notes), with folder links")
    root = os.path.join(DIR, "walk-tree")
    if not os.path.exists(root):
        tmp = root + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        for d in range(200):
            sub = os.path.join(tmp, f"album {d:03}")
            os.makedirs(sub)
            for i in range(100):
                ext = ["jpg", "m3u", "txt", "cue", "pdf"][i % 5]
                open(os.path.join(sub, f"file {i:03}.{ext}"), "w").close()
            os.symlink("..", os.path.join(sub, "up"))           # a loop back to the top
        os.symlink("album 000", os.path.join(tmp, "album link"))  # a folder reached twice
        os.rename(tmp, root)
    floor = best(["find", "-L", root, "-maxdepth", "2", "-type", "f"], runs=3)
    for name in ["audio-probe", "lufs-measure", "library-filter"]:
        t = best([tool(name), "-j", "1", root], runs=3)
        print(f"  {name:16} {20000 / t:9.0f} files/s skipped   ({t:.3f} s; find -L -type f {floor:.3f} s, x{t / floor:.1f})")


def report():
    section("lufs-measure --timeline / --report: what the series and the pictures cost, one job")
    f = music(os.path.join(DIR, "music-10min.wav"), 600)
    plain = best([tool("lufs-measure"), "-j", "1", f])
    timeline = best([tool("lufs-measure"), "-j", "1", "--timeline", f])
    out = os.path.join(DIR, "report")
    shutil.rmtree(out, ignore_errors=True)
    drawn = best([tool("lufs-measure"), "-j", "1", "--report", out, f])
    print(f"  measurement                    {plain:7.3f} s")
    print(f"  with --timeline                {timeline:7.3f} s   = {timeline / plain:5.2f}x the measurement")
    print(f"  with --report                  {drawn:7.3f} s   = {drawn / plain:5.2f}x the measurement")
    long = music(os.path.join(DIR, "music-2h.wav"), 7200, bits=16)
    shutil.rmtree(out, ignore_errors=True)
    rss = max_rss_mib([tool("lufs-measure"), "-j", "1", "--report", out, long])
    svg = os.path.getsize(os.path.join(out, "music-2h.wav.svg")) / 1024
    rec = subprocess.run([tool("lufs-measure"), "-j", "1", "--timeline", long], capture_output=True).stdout
    print(f"  2-hour file: picture {svg:6.0f} KiB, record with --timeline {len(rec) / 1024:6.0f} KiB,"
          f" peak memory with --report {rss:6.1f} MiB")
def albums():
    section("albums: 12 tracks of 4 minutes (FLAC, MP3, Ogg Vorbis, Opus, M4A), measured and ReplayGain-tagged as one album")
    import json
    src = os.path.join(DIR, "album-src")
    formats = [("flac", ["-c:a", "flac"]), ("mp3", ["-c:a", "libmp3lame", "-b:a", "256k"]),
               ("ogg", ["-c:a", "libvorbis", "-q:a", "6"]), ("opus", ["-c:a", "libopus", "-b:a", "128k"]),
               ("m4a", ["-c:a", "aac", "-b:a", "192k"])]
    if not os.path.exists(os.path.join(src, ".complete")):
        if not shutil.which("ffmpeg"):
            print("  ffmpeg is not installed (make test-deps): skipped")
            return
        print("  generating the album (12 x 4 min) ...", flush=True)
        shutil.rmtree(src, ignore_errors=True)
        os.makedirs(src)
        for i in range(12):
            wav = music(os.path.join(DIR, f"album-{i}.wav"), 240 + i, rate=44100, bits=16)
            ext, codec = formats[i % len(formats)]
            sh(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-af", f"volume={-2 * (i % 5)}dB",
                "-metadata", "album=Bench Album", "-metadata", "album_artist=Bench Artist",
                "-metadata", f"title=Track {i + 1}", "-metadata", f"track={i + 1}"] + codec
               + [os.path.join(src, f"{i + 1:02d}.{ext}")])
            os.remove(wav)
        open(os.path.join(src, ".complete"), "w").close()
    tracks = sorted(f for f in os.listdir(src) if not f.startswith("."))
    work = os.path.join(DIR, "album-work")

    def fresh():
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, work)
        return [os.path.join(work, t) for t in tracks]

    cpu = {}

    def timed(cmd):
        """Wall time of one run; its CPU time (user + system, children included) goes in cpu[]."""
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[" ".join(cmd)] = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
        return time.perf_counter() - t, r

    pipeline = ["sh", "-c", f"{tool('lufs-measure')} --album -j 2 {work} | {tool('lufs-normalize')} --album --write-tags -j 2"]
    ours = []
    for _ in range(2):
        fresh()
        t, r = timed(pipeline)
        ours.append(t)
    ours_cpu = cpu[" ".join(pipeline)]
    rewritten = sum(1 for l in r.stdout.splitlines() if json.loads(l).get("normalized", {}).get("rewritten"))
    album = json.loads(r.stdout.splitlines()[0]).get("loudness", {}).get("album", {})
    print(f"  lufs-measure --album | lufs-normalize --album --write-tags (-j 2)   {min(ours):7.3f} s"
          f"   {rewritten} of {len(tracks)} files tagged; album {album.get('integrated_lufs')} LUFS, {album.get('true_peak_dbtp')} dBTP;"
          f" CPU {ours_cpu:.1f} s")
    again, r2 = timed(pipeline)
    untouched = sum(1 for l in r2.stdout.splitlines() if json.loads(l).get("normalized", {}).get("rewritten") is False)
    print(f"  the same again over the tagged album (re-measures, rewrites nothing) {again:7.3f} s   {untouched} of {len(tracks)} files left as they were")
    if shutil.which("loudgain"):
        files = fresh()
        t_all, r_all = timed(["loudgain", "-a", "-k", "-s", "e"] + files)
        refused = r_all.returncode != 0
        if refused:
            why = [l for l in (r_all.stdout + r_all.stderr).splitlines() if "Opus" in l]
            print(f"  loudgain -a -k -s e on all 12 tracks: refused ({why[-1].strip() if why else 'exit ' + str(r_all.returncode)})")
        files = fresh()
        opus = [f for f in files if f.endswith(".opus")]
        rest = [f for f in files if not f.endswith(".opus")]
        t1, _ = timed(["loudgain", "-a", "-k", "-s", "e"] + rest)
        c1 = cpu[" ".join(["loudgain", "-a", "-k", "-s", "e"] + rest)]
        t2, _ = timed(["loudgain", "-a", "-k", "-s", "e"] + opus)
        c2 = cpu[" ".join(["loudgain", "-a", "-k", "-s", "e"] + opus)]
        lg = t1 + t2
        print(f"  loudgain -a -k -s e, as two albums (10 non-Opus, 2 Opus)          {lg:7.3f} s"
              f"   = {lg / min(ours):4.1f}x the time of ours (one thread; its album gain can't span the Opus tracks);"
              f" CPU {c1 + c2:.1f} s = {(c1 + c2) / ours_cpu:4.1f}x ours")
        print(f"  (machine load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: wall times are stretched by other work, CPU times much less)")
    else:
        print("  loudgain is not installed (make bench-deps installs the Debian package): no comparison")
    if shutil.which("rsgain"):
        files = fresh()
        t, _ = timed(["rsgain", "custom", "-a", "-s", "i"] + files)
        print(f"  rsgain custom -a                                                   {t:7.3f} s   = {t / min(ours):4.1f}x the time of ours")
    else:
        print("  !!! rsgain NOT MEASURED: it is not packaged for this Debian release and could not be built here;")
        print("  !!! the comparison above is against loudgain only.")
    shutil.rmtree(work, ignore_errors=True)


def load_section_files():
    """Runs each Tests/Bench/sections/*.py in this module's namespace, so a section file uses the
    helpers above; a file names its sections with `EXTRA_SECTIONS.append("name")`."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sections")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.endswith(".py"):
            path = os.path.join(folder, name)
            exec(compile(open(path).read(), path, "exec"), globals())


if __name__ == "__main__":
    load_section_files()
    if not sys.argv[1:]:
        SECTIONS = SECTIONS + EXTRA_SECTIONS
    for s in SECTIONS:
        fn = globals().get(s)
        if fn:
            fn()
        else:
            missing(f"no bench section named {s!r}")
    if MISSING:
        print("\n!! The bench is INCOMPLETE; these comparisons were not made:", file=sys.stderr)
        for m in MISSING:
            print(f"!!   {m}", file=sys.stderr)
        sys.exit(1)
