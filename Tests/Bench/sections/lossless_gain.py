# lufs-normalize --lossless-gain: a 10-minute MP3's gain changed in its bitstream, against
# mp3gain applying the same steps and against re-encoding with ffmpeg; an MP4 against cp.
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

    section("lossless gain: a 10-minute 1080p MP4 against cp")
    missing("--lossless-gain on AAC in MP4 is not implemented yet (AAC is refused as unsupported-codec), so there is no MP4 figure")


EXTRA_SECTIONS.append("lossless_gain")
