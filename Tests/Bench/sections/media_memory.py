# Memory flat on a two-hour film: lufs-normalize --preset social on ten minutes and two hours of
# the same film (64x48 video at 1 frame/s, stereo AAC of pink noise), its own peak resident memory
# apart from its children's (the ffmpegs that decode, encode and write the file), so flatness can
# be read off one run. Beside it, ffmpeg's own stream copy of each film: what the MP4 container
# costs ffmpeg (its demuxer's and muxer's index grow with the number of packets), which the
# writing ffmpeg has whoever drives it.
# Run with: python3 Tests/Bench/bench.py media_memory
# BASE_BIN (optional): a folder of older binaries, measured on the two-hour film too.


def _proc_status(pid, key):
    """A field of /proc/<pid>/status in KiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _children(pid):
    kids = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                kids += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return kids


def _what(pid):
    """What a child ffmpeg does, from its arguments."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return "?"
    name = os.path.basename(args[0]) if args else "?"
    joined = " ".join(args)
    if ".partial-" in joined:
        return f"{name} writing the file"
    if "matroska" in joined:
        return f"{name} of the codec trial"
    if "pcm_f32le" in joined:
        return f"{name} decoding"
    return name


def peak_memory(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd; its own peak resident memory (VmHWM, sampled every 20 ms until it ends), the
    largest child's (each descendant's VmHWM, what it is) in MiB, GNU time's figure (the largest
    of the process and the children it waited for, from wait4) and the wall time."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    own, kids, ru = 0, {}, None
    while True:
        hwm = _proc_status(p.pid, "VmHWM")
        if hwm is not None:
            own = max(own, hwm)
        todo = _children(p.pid)
        while todo:
            c = todo.pop()
            h = _proc_status(c, "VmHWM")
            if h is not None and h >= kids.get(c, (0, ""))[0]:
                kids[c] = (h, kids[c][1] if c in kids else _what(c))
            todo += _children(c)
        try:
            pid, _, ru = os.wait4(p.pid, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == p.pid:
            break
        time.sleep(0.02)
    largest = max(kids.values(), default=(0, "none"))
    return own / 1024, largest[0] / 1024, largest[1], (ru.ru_maxrss / 1024 if ru else float("nan")), time.perf_counter() - t


def _encodes(record_path):
    """The record's encodes and, per stream, passes, what the trial predicted of the codec's peak
    overshoot and the written true peak."""
    import json
    try:
        with open(record_path) as f:
            n = json.loads(f.readline())["normalized"]
        return f"encodes {n.get('encodes')}; per stream (passes, trial overshoot dB, dBTP): " + "; ".join(
            f"{s.get('passes')}, {(s.get('codec_trial') or {}).get('peak_overshoot_db')}, {s.get('true_peak_dbtp')}"
            for s in n.get("streams", [n]))
    except Exception:
        return "(no record)"


def media_memory():
    section("lufs-normalize --preset social on a two-hour film (64x48 video, stereo AAC) and ten minutes of it: "
            "peak resident memory of the tool itself and of its largest child (sampled every 20 ms)")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    if not shutil.which("ffmpeg"):
        missing("ffmpeg (the media sections need it)")
        return
    f = os.path.join(DIR, "film-2h.mp4")
    if not os.path.exists(f):
        print("  generating film-2h.mp4 (tiny picture at 1 frame/s, two hours of stereo AAC) ...", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=1:duration=7200",
            "-f", "lavfi", "-i", "anoisesrc=d=7200:c=pink:r=48000:a=0.1", "-ac", "2",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "96k", "-shortest", f + ".tmp.mp4"])
        os.rename(f + ".tmp.mp4", f)
    short = os.path.join(DIR, "film-10min-small.mp4")
    if not os.path.exists(short):
        # The same picture and sound as the two-hour film, ten minutes: memory must not grow with length.
        sh(["ffmpeg", "-v", "error", "-y", "-i", f, "-t", "600", "-c", "copy", short + ".tmp.mp4"])
        os.rename(short + ".tmp.mp4", short)
    out = os.path.join(DIR, "media-memory-out")
    os.makedirs(out, exist_ok=True)
    print(f"  {'':22s} {'itself':>8s} {'largest child':>14s}   {'GNU time':>8s}   {'time':>7s}")
    for film in (short, f):
        own, child, what, total, t = peak_memory(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", film, "-map", "0", "-c", "copy",
                                                  os.path.join(out, "copy.mp4")])
        label = "ffmpeg -c copy, " + ("10 min" if film == short else "2 h")
        print(f"  {label:22s} {own:7.1f}M {'':>14s}   {total:7.1f}M   {t:6.1f}s   (the container's cost to ffmpeg itself)", flush=True)
    runs = [("this build, 10 min", BIN, short), ("this build, 2 h", BIN, f)]
    if os.environ.get("BASE_BIN"):
        runs.append(("BASE_BIN, 2 h", os.environ["BASE_BIN"], f))
    for label, bin_dir, film in runs:
        record = os.path.join(out, "record.jsonl")
        with open(record, "w") as rec:
            own, child, what, total, t = peak_memory([os.path.join(bin_dir, "lufs-normalize"), "--overwrite", "--preset", "social",
                                                      "--allow-loss", "--out-dir", out, film], stdout=rec)
        print(f"  {label:22s} {own:7.1f}M {child:13.1f}M   {total:7.1f}M   {t:6.1f}s   (largest child: {what}; {_encodes(record)})",
              flush=True)


EXTRA_SECTIONS.append("media_memory")
