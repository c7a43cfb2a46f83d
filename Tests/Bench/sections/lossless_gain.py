# lufs-normalize --lossless-gain: a folder of MP3s brought to a loudness in place as users run it
# (lufs-measure DIR | lufs-normalize --lossless-gain --in-place) against mp3gain -r on a copy of the
# same folder (the comparison the speed is judged on); a 10-minute MP3's gain changed in its
# bitstream, against mp3gain applying the same steps (information) and against re-encoding with
# ffmpeg; AAC-LC (a 1080p MP4, ADTS, M4A) against cp.
# Run by bench.py (exec'd with its helpers: sh, best, tool, section, missing, music, DIR).
import json
import shutil


def _encoded_and_measured(wav, name, record, codec, bitrate):
    """`wav` encoded once with ffmpeg into DIR/name, and its lufs-measure record (made each run,
    so it matches the file as it is)."""
    path = os.path.join(DIR, name)
    if not os.path.exists(path):
        sh(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", codec, "-b:a", bitrate, path])
    rec = os.path.join(DIR, record)
    with open(rec, "w") as f:
        subprocess.run([tool("lufs-measure"), path], check=True, stdout=f)
    return path, rec


def lossless_gain():
    if not lossless_gain_folder():
        return
    if not lossless_gain_mp3():
        return
    lossless_gain_opus()
    lossless_gain_aac()


FOLDER_FILES, FOLDER_SECONDS = 20, 180


def _folder_sources():
    """DIR/lossless-folder: FOLDER_FILES three-minute MP3s (44.1 kHz stereo), made once with sox
    and ffmpeg's libmp3lame from varied bench material: noise of three colours under tones,
    swells of several speeds, levels from about -12 to -24 LUFS, all within the bitstream gain's reach of -14, CBR 128-320 kb/s.
    (LAME VBR files are left out: their first frame can carry a global_gain the steps would take
    past 255, which --lossless-gain refuses.)"""
    folder = os.path.join(DIR, "lossless-folder")
    done = os.path.join(folder, ".complete")
    if os.path.exists(done):
        return folder
    print(f"  generating {FOLDER_FILES} three-minute MP3s ...", flush=True)
    os.makedirs(folder, exist_ok=True)
    colours = ["pinknoise", "brownnoise", "whitenoise"]
    rates = [["-b:a", "128k"], ["-b:a", "192k"], ["-b:a", "256k"], ["-b:a", "320k"], ["-b:a", "160k"]]
    wav = os.path.join(DIR, "lossless-folder-track.wav")
    for i in range(FOLDER_FILES):
        s = str(FOLDER_SECONDS)
        effects = ["synth", s, colours[i % 3], "synth", s, "sine", "mix", str(55 * (1 + i % 7)),
                   "tremolo", f"{0.1 + 0.15 * (i % 5):.2f}", str(30 + 5 * (i % 8))]
        if colours[i % 3] == "whitenoise":
            effects += ["lowpass", str(4000 + 1500 * (i % 4))]
        effects += ["gain", str(-4 - (i * 7) % 11)]
        sh(["sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", wav] + effects)
        sh(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame"] + rates[i % 5]
           + [os.path.join(folder, f"track{i + 1:02d}.mp3")])
    os.remove(wav)
    open(done, "w").close()
    return folder


def _first_global_gain(path):
    """global_gain of the first granule's first channel, in the 20th MPEG audio frame of an MP3
    (past the Xing/Info frame; MPEG-1 Layer III, as the folder's files are)."""
    data = open(path, "rb").read(1 << 16)
    i = 0
    if data[:3] == b"ID3":
        i = 10 + ((data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9])
    bitrates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    for _ in range(20):
        while not (data[i] == 0xFF and data[i + 1] & 0xFE == 0xFA):
            i += 1
        length = 144000 * bitrates[data[i + 2] >> 4] // [44100, 48000, 32000][(data[i + 2] >> 2) & 3] + ((data[i + 2] >> 1) & 1)
        frame, i = i, i + length
    side = frame + 4 + (0 if data[frame + 1] & 1 else 2)
    mono = data[frame + 3] >> 6 == 3
    bits = int.from_bytes(data[side:side + 8], "big")
    # main_data_begin 9, private bits 5 (mono) or 3, scfsi 4 a channel, then part2_3_length 12 and big_values 9.
    skip = 9 + (5 if mono else 3) + (4 if mono else 8) + 21
    return (bits >> (64 - skip - 8)) & 0xFF


def lossless_gain_folder():
    """A folder of MP3s to a loudness in place, as users run it, against mp3gain -r (track gain, in
    place) on a copy of the same folder in the same run; False when a program it needs is missing."""
    section(f"lossless gain in place: a folder of {FOLDER_FILES} three-minute MP3s, against mp3gain -r on the same folder"
            " (each run on a fresh copy, copy not timed; best of 3)")
    for prog in ("ffmpeg", "sox", "mp3gain"):
        if not shutil.which(prog):
            missing(f"lossless gain on a folder against mp3gain -r: {prog} is not installed")
            return False
    source = _folder_sources()
    names = sorted(n for n in os.listdir(source) if n.endswith(".mp3"))
    work = os.path.join(DIR, "lossless-folder-work")
    before = {n: _first_global_gain(os.path.join(source, n)) for n in names}
    mib = sum(os.path.getsize(os.path.join(source, n)) for n in names) / 2**20

    def timed(cmd):
        """(best wall, best CPU of the whole pipeline, files whose global_gain moved) over 3 fresh copies."""
        walls, cpus, moved = [], [], 0
        for _ in range(3):
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(source, work)
            os.sync()
            t = time.perf_counter()
            p = subprocess.Popen(["sh", "-c", cmd, "sh", work], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            walls.append(time.perf_counter() - t)
            # wait4's usage of the shell includes the programs it waited for.
            cpus.append(ru.ru_utime + ru.ru_stime)
            if status != 0:
                print(f"  !! {cmd} exited with status {status >> 8}")
            moved = sum(_first_global_gain(os.path.join(work, n)) != before[n] for n in names)
        return min(walls), min(cpus), moved

    target = "-14"
    ours_cmd = f'"{tool("lufs-measure")}" "$1" | "{tool("lufs-normalize")}" --lossless-gain --in-place --target {target}'
    ours = timed(ours_cmd)
    ours_j1 = timed(f'"{tool("lufs-measure")}" -j 1 "$1" | "{tool("lufs-normalize")}" -j 1 --lossless-gain --in-place --target {target}')
    measure_only = timed(f'"{tool("lufs-measure")}" "$1" > /dev/null')
    # mp3gain -r: track gain, in place; -k lowers the gain to keep the peak under full scale (as
    # ours keeps the true peak under its ceiling); -d 4: its 89 dB reference is about -18 LUFS.
    theirs = timed('mp3gain -q -r -k -d 4 "$1"/*.mp3')
    print(f"  {len(names)} files, {FOLDER_FILES * FOLDER_SECONDS // 60} minutes, {mib:.0f} MiB")
    rows = [(f"lufs-measure DIR | lufs-normalize --lossless-gain --in-place --target {target}", ours),
            ("the same with -j 1 on both", ours_j1),
            ("lufs-measure DIR alone (its decode of every MP3 is the floor)", measure_only),
            ("mp3gain -r -k (track gain, in place)", theirs)]
    for label, (wall, cpu, moved) in rows:
        changed = "" if label.startswith("lufs-measure DIR alone") else f"   global_gain moved in {moved}/{len(names)} files"
        print(f"  {label:<76} {wall:7.3f} s   CPU {cpu:7.3f} s{changed}")
    print(f"  ours against mp3gain -r: wall {theirs[0] / ours[0]:4.2f}x as fast, CPU {theirs[1] / ours[1]:4.2f}x as fast"
          f" (-j 1: wall {theirs[0] / ours_j1[0]:4.2f}x, CPU {theirs[1] / ours_j1[1]:4.2f}x; goal >= 1)"
          + ("" if theirs[0] >= ours[0] else "   !! slower than mp3gain -r"))
    print(f"  the in-place write after the measure: {ours[0] - measure_only[0]:6.3f} s wall"
          f" ({ours[1] - measure_only[1]:6.3f} s CPU)")
    shutil.rmtree(work, ignore_errors=True)
    return True


def lossless_gain_mp3():
    """The MP3 rows alone (`bench.py lossless_gain_mp3`); False when a program they need is missing."""
    section("lossless gain: a 10-minute MP3 (192 kb/s), best of 3 (the one-file mp3gain -g figure is information)")
    for prog in ("ffmpeg", "mp3gain"):
        if not shutil.which(prog):
            missing(f"lossless gain against {prog}: {prog} is not installed")
            return False
    wav = music(os.path.join(DIR, "lossless-10min.wav"), 600, rate=44100, bits=16)
    mp3, rec = _encoded_and_measured(wav, "lossless-10min.mp3", "lossless-10min.jsonl", "libmp3lame", "192k")
    out = os.path.join(DIR, "lossless-out")
    args = ["--lossless-gain", "--target", "-16", "--overwrite"]
    plan = subprocess.run([tool("lufs-normalize")] + args + ["--dry-run", "--out-dir", out],
                          stdin=open(rec), capture_output=True, text=True)
    steps = json.loads(plan.stdout)["normalized"]["lossless_gain"]["steps"]
    # Every run replaces the previous run's output, as mp3gain replaces its file.
    ours = best([tool("lufs-normalize")] + args + ["--out-dir", out], runs=3, stdin=rec)
    scan = best([tool("lufs-normalize")] + args + ["--dry-run", "--out-dir", out], runs=3, stdin=rec)
    start = best([tool("lufs-normalize"), "--version"], runs=5)
    # In place, as mp3gain works: each run on a fresh copy (not timed) with the original's
    # modification time, so the record measured of the copy stays true of every copy.
    copy = os.path.join(DIR, "lossless-copy.mp3")
    shutil.copy2(mp3, copy)
    copy_rec = os.path.join(DIR, "lossless-copy.jsonl")
    with open(copy_rec, "w") as f:
        subprocess.run([tool("lufs-measure"), copy], check=True, stdout=f)

    def in_place(cmd, stdin=None):
        times = []
        for _ in range(3):
            shutil.copy2(mp3, copy)
            t = time.perf_counter()
            sh(cmd, stdin=open(stdin) if stdin else subprocess.DEVNULL)
            times.append(time.perf_counter() - t)
        return min(times)

    ours_in_place = in_place([tool("lufs-normalize")] + args[:-1] + ["--in-place"], stdin=copy_rec)
    # mp3gain writes a new file, deletes the old one and renames the new one into its place.
    theirs = in_place(["mp3gain", "-q", "-g", str(steps), copy])
    reencode = []
    for _ in range(3):
        t = time.perf_counter()
        sh(["ffmpeg", "-v", "error", "-y", "-i", mp3, "-af", f"volume={steps * 1.50515:.4f}dB",
            "-c:a", "libmp3lame", "-b:a", "192k", os.path.join(DIR, "lossless-reencoded.mp3")])
        reencode.append(time.perf_counter() - t)
    reencode = min(reencode)
    print(f"  {steps:+d} steps of 1.505 dB, {os.path.getsize(mp3) / 1e6:.1f} MB")
    print(f"  lufs-normalize --lossless-gain, --in-place        {ours_in_place:7.3f} s")
    print(f"  lufs-normalize --lossless-gain, --out-dir         {ours:7.3f} s   (replacing the last run's output)")
    print(f"    the same with --dry-run                         {scan:7.3f} s   (start-up, record and frame scan; no output)")
    print(f"    lufs-normalize --version                        {start:7.3f} s   (start-up alone: the loader, the runtime, the option table)")
    print(f"  mp3gain -g {steps:<3d} (in place)                     {theirs:7.3f} s   (ours in place {theirs / ours_in_place:5.2f}x as fast; goal >= 1)")
    print(f"  ffmpeg re-encode (libmp3lame)                     {reencode:7.3f} s   (ours {reencode / ours_in_place:5.1f}x as fast; goal >= 50)")
    base = os.environ.get("BASE_BIN")
    if base:
        before = best([os.path.join(base, "lufs-normalize")] + args + ["--out-dir", out + "-base"], runs=3, stdin=rec)
        before_in_place = in_place([os.path.join(base, "lufs-normalize")] + args[:-1] + ["--in-place"], stdin=copy_rec)
        print(f"  before (BASE_BIN), --in-place                     {before_in_place:7.3f} s   (mp3gain {before_in_place / theirs:5.2f}x as fast as it; now {before_in_place / ours_in_place:5.2f}x faster)")
        print(f"  before (BASE_BIN), --out-dir                      {before:7.3f} s   (now {before / ours:5.2f}x faster)")
        before_start = best([os.path.join(base, "lufs-normalize"), "--version"], runs=5)
        print(f"  before (BASE_BIN), --version                      {before_start:7.3f} s")
    return True


def lossless_gain_opus():
    section("lossless gain: a 10-minute Opus (128 kb/s), best of 3")
    wav = music(os.path.join(DIR, "lossless-10min.wav"), 600, rate=44100, bits=16)
    out = os.path.join(DIR, "lossless-out")
    args = ["--lossless-gain", "--target", "-16", "--overwrite"]
    base = os.environ.get("BASE_BIN")
    opus, orec = _encoded_and_measured(wav, "lossless-10min.opus", "lossless-10min-opus.jsonl", "libopus", "128k")
    ours = best([tool("lufs-normalize")] + args + ["--out-dir", out], runs=3, stdin=orec)
    t = time.perf_counter()
    shutil.copyfile(opus, os.path.join(DIR, "lossless-copy.opus"))
    cp = time.perf_counter() - t
    print(f"  lufs-normalize --lossless-gain, --out-dir         {ours:7.3f} s   (a copy of the file: {cp:.3f} s)")
    if base:
        before = best([os.path.join(base, "lufs-normalize")] + args + ["--out-dir", out + "-base"], runs=3, stdin=orec)
        print(f"  before (BASE_BIN), --out-dir                      {before:7.3f} s   (now {before / ours:5.2f}x faster)")


def lossless_gain_aac():
    """AAC-LC: the 10-minute 1080p MP4 (samples patched in place) against cp, and a 10-minute
    ADTS and M4A against cp and against re-encoding with ffmpeg."""
    section("lossless gain: a 10-minute 1080p MP4 (H.264 + AAC 160 kb/s) against cp")
    if not shutil.which("ffmpeg"):
        missing("lossless gain on AAC: ffmpeg is not installed")
        return
    film = film_10min()
    cases = [("MP4 1080p", film)]
    wav = music(os.path.join(DIR, "lossless-10min.wav"), 600, rate=44100, bits=16)
    for ext in ("aac", "m4a"):
        p = os.path.join(DIR, f"lossless-10min.{ext}")
        if not os.path.exists(p):
            sh(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "160k", p])
        cases.append((ext.upper() if ext == "m4a" else "ADTS", p))
    for label, path in cases:
        if label == "ADTS":
            section("lossless gain: a 10-minute ADTS and M4A (AAC-LC 160 kb/s) against cp and re-encoding")
        rec = os.path.join(DIR, "lossless-aac.jsonl")
        with open(rec, "w") as f:
            subprocess.run([tool("lufs-measure"), path], check=True, stdout=f)
        out = os.path.join(DIR, "lossless-aac-out")
        plan = subprocess.run([tool("lufs-normalize"), "--lossless-gain", "--dry-run", "--target", "-16",
                               "--overwrite", "--out-dir", out], stdin=open(rec), capture_output=True, text=True)
        n = json.loads(plan.stdout).get("normalized")
        if not n:
            missing(f"lossless gain on {label}: {plan.stdout.strip()}")
            continue
        steps = n["lossless_gain"]["steps"]
        ours = best([tool("lufs-normalize"), "--lossless-gain", "--target", "-16", "--overwrite", "--out-dir", out],
                    runs=3, stdin=rec)
        copy = os.path.join(out, "cp-" + os.path.basename(path))
        cp = best(["cp", path, copy], runs=3)
        size = os.path.getsize(path) / 2**20
        print(f"  {label} ({size:.0f} MiB, {n['aac']['blocks']} AAC blocks, {steps:+d} steps of 1.505 dB)")
        goal = "; goal <= 3" if label == "MP4 1080p" else ", every codeword walked"
        print(f"    lufs-normalize --lossless-gain  {ours:7.3f} s   ({ours / cp:4.2f}x cp{goal})")
        print(f"    cp                              {cp:7.3f} s")
        if label != "MP4 1080p":
            t = time.perf_counter()
            sh(["ffmpeg", "-v", "error", "-y", "-i", path, "-af", f"volume={steps * 1.50515:.4f}dB",
                "-c:a", "aac", "-b:a", "160k", os.path.join(out, "reencoded-" + os.path.basename(path))])
            reencode = time.perf_counter() - t
            print(f"    ffmpeg re-encode (aac)          {reencode:7.3f} s   (ours {reencode / ours:5.1f}x as fast)")
        base = os.environ.get("BASE_BIN")
        if base:
            r = subprocess.run([os.path.join(base, "lufs-normalize"), "--lossless-gain", "--target", "-16", "--overwrite",
                                "--out-dir", out], stdin=open(rec), capture_output=True, text=True)
            print(f"    before (BASE_BIN): {json.loads(r.stdout).get('error', {}).get('code', 'written')}")


EXTRA_SECTIONS.append("lossless_gain")
