# Media write-back at the remux floor: a 30-second MP4 (two AAC streams, a mov_text subtitle,
# chapters, which an MP4 keeps as a data stream) to --preset social, beside the remux floor and
# ffmpeg-normalize in the same run; and peak memory on a two-hour film.
# Run with: python3 Tests/Bench/bench.py media_floor media_floor_film media_memory
# BASE_BIN (optional): a folder of older binaries, printed beside the new ones.


def _media_record(bin_dir, f, out):
    import json
    pipeline = (f"{os.path.join(bin_dir, 'lufs-measure')} {f} | {os.path.join(bin_dir, 'lufs-normalize')} --overwrite"
                f" --preset social --allow-loss --out-dir {out}")
    r = subprocess.run(["sh", "-c", pipeline], capture_output=True, text=True)
    try:
        n = json.loads(r.stdout.splitlines()[0])["normalized"]
        streams = n.get("streams", [n])
        return (f"encodes {n.get('encodes')}, per stream (LUFS, dBTP, passes): "
                + "; ".join(f"{s.get('integrated_lufs')}, {s.get('true_peak_dbtp')}, {s.get('passes')}" for s in streams))
    except Exception:
        return "(no record: " + (r.stdout + r.stderr)[:200] + ")"


def _ready():
    """Prints the load the section starts under; False (said as missing) without ffmpeg."""
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    if not shutil.which("ffmpeg"):
        missing("ffmpeg (the media sections need it)")
        return False
    return True


def media_floor():
    section("lufs-measure | lufs-normalize --preset social on a 30-second MP4 (2 AAC streams, one limited, mov_text eng, chapters), "
            "beside the remux floor and ffmpeg-normalize")
    if not _ready():
        return
    f = os.path.join(DIR, "film-30s.mp4")
    if not os.path.exists(f):
        srt, meta = f + ".srt", f + ".meta"
        with open(srt, "w") as s:
            s.write("1\n00:00:01,000 --> 00:00:04,000\nHello\n\n2\n00:00:10,000 --> 00:00:12,000\nAgain\n")
        with open(meta, "w") as m:
            m.write(";FFMETADATA1\ntitle=Bench film\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=15000\ntitle=One\n"
                    "[CHAPTER]\nTIMEBASE=1/1000\nSTART=15000\nEND=30000\ntitle=Two\n")
        sh(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=30",
            # A loud, peaky master (a kick twice a second over noise: the limiter works on it at
            # -14 LUFS) and a quieter stem.
            "-f", "lavfi", "-i", "aevalsrc=exprs=0.9*sin(2*PI*55*t)*exp(-10*mod(t\\,0.5))+0.1*(random(0)-0.5):d=30:s=48000",
            "-f", "lavfi", "-i", "anoisesrc=d=30:c=pink:r=48000:a=0.2:seed=1",
            "-i", srt, "-i", meta, "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3",
            "-map_metadata", "4", "-map_chapters", "4", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-c:s", "mov_text",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Dialogue",
            "-metadata:s:s:0", "language=eng", "-disposition:a:1", "comment", f + ".tmp.mp4"])
        os.rename(f + ".tmp.mp4", f)
        for p in (srt, meta):
            os.remove(p)
    _media_case(f, "media-floor-out", runs=3)


def _media_case(f, out_name, runs):
    """The remux floor, this build (and BASE_BIN) and ffmpeg-normalize on one file, in the same
    run: best wall time and its CPU time (user + system, children included; steadier when other
    work loads the machine)."""
    out = os.path.join(DIR, out_name)
    os.makedirs(out, exist_ok=True)
    remux, remux_cpu = best_wall_and_cpu(["ffmpeg", "-v", "error", "-y", "-i", f, "-map", "0", "-c:v", "copy", "-c:a", "aac",
                                          "-b:a", "128k", "-c:s", "copy", os.path.join(out, "remux.mp4")], runs=runs)
    print(f"  ffmpeg -c:v copy -c:a aac (the remux floor)  {remux:7.3f} s  cpu {remux_cpu:7.3f} s", flush=True)

    def ours(bin_dir, label, name):
        d = os.path.join(out, name)
        pipeline = (f"{os.path.join(bin_dir, 'lufs-measure')} {f} | {os.path.join(bin_dir, 'lufs-normalize')} --overwrite"
                    f" --preset social --allow-loss --out-dir {d}")
        t, cpu = best_wall_and_cpu(["sh", "-c", pipeline], runs=runs)
        print(f"  {label:44s} {t:7.3f} s  cpu {cpu:7.3f} s   = {t / remux:5.2f}x the floor (cpu {cpu / remux_cpu:5.2f}x)"
              f"   {_media_record(bin_dir, f, d)}", flush=True)
        return t

    new = ours(BIN, "lufs-measure | lufs-normalize (this build)", "new")
    base = os.environ.get("BASE_BIN")
    if base:
        ours(base, "lufs-measure | lufs-normalize (BASE_BIN)", "base")
        # How the file is encoded may change; what is written needn't (the same plan, the same bytes).
        a, b = (os.path.join(out, d, os.path.basename(f)) for d in ("new", "base"))
        same = os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read()
        print(f"  this build's output is {'byte for byte' if same else 'NOT'} the same as BASE_BIN's", flush=True)
    ffn = ffmpeg_normalize()
    if ffn:
        theirs, theirs_cpu = best_wall_and_cpu([ffn, f, "-f", "-nt", "ebu", "-t", "-14", "-tp", "-1", "-c:a", "aac", "-b:a", "128k",
                                                "-o", os.path.join(out, "ffmpeg-normalize.mp4")], runs=runs)
        print(f"  ffmpeg-normalize -c:a aac (video copied)     {theirs:7.3f} s  cpu {theirs_cpu:7.3f} s   = {theirs / remux:5.2f}x the floor"
              f"   (this build is {theirs / new:4.1f}x faster)", flush=True)


def media_floor_film():
    section("lufs-measure | lufs-normalize --preset social on the 10-minute 1080p film (one stereo AAC stream), "
            "beside the remux floor and ffmpeg-normalize")
    if not _ready():
        return
    # ffmpeg-normalize takes two passes over ten minutes: one run of each here.
    _media_case(film_10min(), "media-floor-film-out", runs=1)


EXTRA_SECTIONS.append("media_floor")
EXTRA_SECTIONS.append("media_floor_film")
