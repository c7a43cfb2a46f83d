# Lossy outputs through libsndfile (MP3, Ogg Vorbis, Opus) checked after the codec: a 2-minute
# 48 kHz stereo WAV (the bench's music) to -9 LUFS (the limiter works) and a quiet one to -16 LUFS
# (plain gain), under -1 dBTP. For each: how far off the target and the ceiling the written file
# is when lufs-measure decodes it, the encodes, the codec's true-peak overshoot the trial saw and
# the one the written file shows, the limiter's deepest reduction beyond the same job's WAV output
# (the bound is 1.5 dB), the landing (--codec-peak's rule and which limit gave way), and the time,
# beside the decode + encode floor and BASE_BIN (the build before the change). The matrix of real
# recordings is the landing_matrix section. Run with: python3 Tests/Bench/bench.py lossy_landing


def lossy_landing():
    section("lufs-normalize into MP3 / Ogg Vorbis / Opus: on target after the codec (2-minute WAV, -1 dBTP, best of 2)")
    print(f"  (load average when starting: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    loud = music(os.path.join(DIR, "lossy-2min.wav"), 120)
    quiet = make(os.path.join(DIR, "lossy-quiet-2min.wav"),
                 ["-r", "48000", "-c", "2", "-b", "24", os.path.join(DIR, "lossy-quiet-2min.wav"),
                  "synth", "120", "pinknoise", "tremolo", "3", "60", "gain", "-30"])
    out = os.path.join(DIR, "lossy-landing-out")
    builds = [("new", BIN)]
    base = os.environ.get("BASE_BIN")
    if base:
        builds.append(("base", base))

    def measured(path):
        r = subprocess.run([tool("lufs-measure"), path], capture_output=True, text=True)
        try:
            return json.loads(r.stdout.splitlines()[0]).get("loudness", {})
        except Exception:
            return {}

    def pcm_depth(binary, wav, target):
        dest = os.path.join(out, f"pcm{target}")
        r = subprocess.run([os.path.join(binary, "lufs-normalize"), "-j", "1", "--overwrite", "--format", "wav", "--target", str(target),
                            "--true-peak", "-1", "--out-dir", dest, wav], capture_output=True, text=True)
        try:
            return (json.loads(r.stdout.splitlines()[0]).get("normalized", {}).get("limiter") or {}).get("max_reduction_db") or 0.0
        except Exception:
            return None

    for fmt in ["mp3", "ogg", "opus"]:
        for wav, target in [(loud, -9), (quiet, -16)]:
            name = os.path.splitext(os.path.basename(wav))[0]
            floor = None
            for label, binary in builds:
                dest = os.path.join(out, f"{label}-{fmt}{target}")
                cmd = [os.path.join(binary, "lufs-normalize"), "-j", "1", "--overwrite", "--allow-loss", "--format", fmt,
                       "--target", str(target), "--true-peak", "-1", "--out-dir", dest, wav]
                if floor is None:
                    floor = best(cmd + ["--decode-encode-only"], runs=2)
                t = best(cmd, runs=2)
                r = subprocess.run(cmd, capture_output=True, text=True)
                try:
                    n = json.loads(r.stdout.splitlines()[0]).get("normalized", {})
                except Exception:
                    n = {}
                trial, check = n.get("codec_trial") or {}, n.get("codec_check") or {}
                depth, pcm = (n.get("limiter") or {}).get("max_reduction_db") or 0.0, pcm_depth(binary, wav, target)
                extra = f"{depth - pcm:+.2f} dB" if pcm is not None else "n/a"
                landing = n.get("landing") or {}
                written = n.get("output")
                m = measured(written) if written else {}
                lufs, tp = m.get("integrated_lufs"), m.get("true_peak_dbtp")
                off = f"{lufs - target:+.2f} LU" if isinstance(lufs, (int, float)) else "n/a"
                over = f"{tp + 1:+.2f} dB" if isinstance(tp, (int, float)) else "n/a"
                print(f"  [{label}] {fmt:4s} {name} to {target}: {t:6.2f} s ({t / floor:4.2f}x the {floor:5.2f} s floor)"
                      f"   after the codec: {off} off the target, true peak {over} from the ceiling"
                      f"   encodes {n.get('encodes', 'n/a')}   shortfall {n.get('shortfall_lu')}"
                      f"   overshoot: trial {trial.get('peak_overshoot_db')} dB, file {check.get('peak_overshoot_db')} dB"
                      f"   limiting {depth:.2f} dB ({extra} beyond the WAV's)   landing {landing.get('rule', 'n/a')}"
                      f" gave way: {landing.get('gave_way')}", flush=True)


EXTRA_SECTIONS.append("lossy_landing")
