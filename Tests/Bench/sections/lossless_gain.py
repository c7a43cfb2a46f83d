# lufs-normalize --lossless-gain: a 10-minute MP3's gain changed in its bitstream, against
# mp3gain applying the same steps and against re-encoding with ffmpeg; AAC-LC (a 1080p MP4, ADTS,
# M4A) against cp.
# Run by bench.py (exec'd with its helpers: sh, best, tool, section, missing, music, DIR).
import json
import shutil


def lossless_gain():
    section("lossless gain: a 10-minute MP3 (192 kb/s)")
    for prog in ("ffmpeg", "mp3gain"):
        if not shutil.which(prog):
            missing(f"lossless gain against {prog}: {prog} is not installed")
            return
    wav = music(os.path.join(DIR, "lossless-10min.wav"), 600, rate=44100, bits=16)
    mp3 = os.path.join(DIR, "lossless-10min.mp3")
    if not os.path.exists(mp3):
        sh(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame", "-b:a", "192k", mp3])
    rec = os.path.join(DIR, "lossless-10min.jsonl")
    with open(rec, "w") as f:
        subprocess.run([tool("lufs-measure"), mp3], check=True, stdout=f)
    out = os.path.join(DIR, "lossless-out")
    plan = subprocess.run([tool("lufs-normalize"), "--lossless-gain", "--dry-run", "--target", "-16",
                           "--overwrite", "--out-dir", out], stdin=open(rec), capture_output=True, text=True)
    steps = json.loads(plan.stdout)["normalized"]["lossless_gain"]["steps"]
    ours = best([tool("lufs-normalize"), "--lossless-gain", "--target", "-16", "--overwrite", "--out-dir", out],
                runs=5, stdin=rec)
    # mp3gain changes the file in place: a fresh copy for each run, not timed.
    theirs = []
    for _ in range(5):
        copy = os.path.join(DIR, "lossless-mp3gain.mp3")
        shutil.copyfile(mp3, copy)
        t = time.perf_counter()
        sh(["mp3gain", "-q", "-g", str(steps), copy])
        theirs.append(time.perf_counter() - t)
    theirs = min(theirs)
    t = time.perf_counter()
    sh(["ffmpeg", "-v", "error", "-y", "-i", mp3, "-af", f"volume={steps * 1.50515:.4f}dB",
        "-c:a", "libmp3lame", "-b:a", "192k", os.path.join(DIR, "lossless-reencoded.mp3")])
    reencode = time.perf_counter() - t
    print(f"  {steps:+d} steps of 1.505 dB")
    print(f"  lufs-normalize --lossless-gain  {ours:7.3f} s")
    print(f"  mp3gain -g {steps:<3d}                {theirs:7.3f} s   (ours {theirs / ours:5.2f}x as fast; goal >= 1)")
    print(f"  ffmpeg re-encode (libmp3lame)   {reencode:7.3f} s   (ours {reencode / ours:5.1f}x as fast; goal >= 50)")

    lossless_gain_aac()


def film_10min():
    """The video section's 10-minute 1080p H.264 + stereo AAC 160 kb/s film (same recipe and path)."""
    f = os.path.join(DIR, "film-10min.mp4")
    if os.path.exists(f):
        return f
    print("  generating film-10min.mp4 (1080p25 H.264 at 4 Mb/s, stereo AAC 160 kb/s) ...", flush=True)
    minute, listing, picture = f + ".1min.mp4", f + ".list", f + ".video.mp4"
    sh(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=60",
        "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "4M", "-g", "50", minute])
    with open(listing, "w") as l:
        l.write(f"file '{os.path.abspath(minute)}'\n" * 10)
    sh(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing, "-c", "copy", picture])
    sh(["ffmpeg", "-v", "error", "-y", "-i", picture, "-f", "lavfi", "-i", "anoisesrc=d=600:c=pink:r=48000:a=0.05",
        "-f", "lavfi", "-i", "sine=f=220:d=600:r=48000",
        "-filter_complex", "[1][2]amix=inputs=2,aformat=channel_layouts=stereo[a]", "-map", "0:v", "-map", "[a]",
        "-c:v", "copy", "-c:a", "aac", "-b:a", "160k", "-metadata:s:a:0", "language=eng", "-shortest", f + ".tmp.mp4"])
    for p in (minute, listing, picture):
        os.remove(p)
    os.rename(f + ".tmp.mp4", f)
    return f


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
