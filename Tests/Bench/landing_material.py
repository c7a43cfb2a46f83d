#!/usr/bin/env python3
"""Real loud masters for the lossy landing matrix: excerpts of released game music from Debian
packages, as 48 kHz stereo WAV files. Used by the bench (sections/landing_matrix.py) and the
end-to-end test (LossyLandingMatrixE2ETests).

Every recording is the packaged file as its authors mastered it: decoded (ffmpeg), resampled to
48 kHz where it is not, and cut, never made louder, limited or otherwise processed. The excerpt is
the loudest stretch of the recording (the window of whole seconds with the largest mean energy of
lufs-measure's momentary loudness, the earliest on a tie), so a short excerpt keeps the peaks a
mastering limiter left. Written as 32-bit float WAV, so a decoded sample over full scale is kept as
the recording has it rather than clipped.

Packages (downloaded with `apt-get download`, unpacked with `dpkg-deb -x`, each once, into the
work folder), with their licences as each package's debian/copyright gives them:
  extremetuxracer-data  music of Extreme Tux Racer (usr/share/games/etr/music), GPL-2+ ("Files: *")
  xmoto-data            music of X-Moto (usr/share/games/xmoto/Textures/Musics), GPL-2+ ("Files: *")
  lincity-ng-data       music of LinCity-NG (usr/share/games/lincity-ng/music/default), GPL-2+
                        ("Files: *"; upstream dual-licenses its media under CC-BY-SA 2.0)
  warzone2100-music     the Warzone 2100 soundtracks (usr/share/games/warzone2100/music), GPL-2+

The recordings, and what lufs-measure reads (integrated LUFS, true peak dBTP) on their loudest
30 s (the excerpt, starting at the second given) and on the whole decoded file:
  name            split     package: file                                     from   excerpt        whole file
  etr-spunky      tuning    extremetuxracer-data: spunkyrace-ks.ogg            52 s   -8.17  +0.72   -8.55  +1.01
  lincity-theme   held-out  lincity-ng-data: 01 - pronobozo - lincity.ogg      97 s   -8.98  +1.02  -10.00  +1.88
  wz-aftermath17  tuning    warzone2100-music: aftermath_soundtrack/track17   220 s   -9.11  +0.18  -10.83  +2.97
  wz-legacy13     held-out  warzone2100-music: legacy_soundtrack/track13      384 s   -9.61  +0.48  -11.82  +1.87
  etr-credits     tuning    extremetuxracer-data: credits1-cp.ogg              11 s  -11.35  +0.59  -12.32  +0.91
  etr-calmrace    held-out  extremetuxracer-data: calmrace-ks.ogg              59 s  -12.14  +0.07  -13.04  +1.07
  xmoto-speedup   tuning    xmoto-data: speeditup.ogg                          30 s  -12.91  +0.06  -14.07  +0.33
  xmoto-batcave   held-out  xmoto-data: batcave.ogg                           109 s  -15.11  -1.25  -15.92  -0.89
  wz-original1    tuning    warzone2100-music: original_soundtrack/track1     145 s  -17.02  +0.01  -19.58  +0.48
  lincity-blues   held-out  lincity-ng-data: 02 - Robert van Herk - City Blues 160 s -15.52  -3.70  -19.39  -3.70
Eight excerpts have true peaks over 0 dBTP; the five loudest (-8.2 to -11.4 LUFS, +0.18 to +1.02
dBTP; three tuning, two held-out) are loud masters a limiter must work on at -8 to -11 LUFS; the
quietest are dynamic music a -14 or -16 LUFS target raises. (The figures are this script's output.)

Split: constants of the landing model are tuned on the TUNING recordings only; the HELD-OUT ones
(every other one down the loudness order, so both halves span loud masters to dynamic music) judge
them.

  python3 landing_material.py BIN DIR [SECONDS [NAME ...]]   one JSON line per recording (name, split,
                                                            path, integrated_lufs, true_peak_dbtp, ...)
"""
import json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The same download-and-unpack, each package once, as the dialogue material's.
from dialogue_material import run, unpack  # noqa: E402

# (name, split, package, path inside the package)
RECORDINGS = [
    ("etr-spunky", "tuning", "extremetuxracer-data", "usr/share/games/etr/music/spunkyrace-ks.ogg"),
    ("lincity-theme", "held-out", "lincity-ng-data", "usr/share/games/lincity-ng/music/default/01 - pronobozo - lincity.ogg"),
    ("wz-aftermath17", "tuning", "warzone2100-music", "usr/share/games/warzone2100/music/albums/aftermath_soundtrack/track17.opus"),
    ("wz-legacy13", "held-out", "warzone2100-music", "usr/share/games/warzone2100/music/albums/legacy_soundtrack/track13.opus"),
    ("etr-credits", "tuning", "extremetuxracer-data", "usr/share/games/etr/music/credits1-cp.ogg"),
    ("etr-calmrace", "held-out", "extremetuxracer-data", "usr/share/games/etr/music/calmrace-ks.ogg"),
    ("xmoto-speedup", "tuning", "xmoto-data", "usr/share/games/xmoto/Textures/Musics/speeditup.ogg"),
    ("xmoto-batcave", "held-out", "xmoto-data", "usr/share/games/xmoto/Textures/Musics/batcave.ogg"),
    ("wz-original1", "tuning", "warzone2100-music", "usr/share/games/warzone2100/music/albums/original_soundtrack/track1.opus"),
    ("lincity-blues", "held-out", "lincity-ng-data", "usr/share/games/lincity-ng/music/default/02 - Robert van Herk - City Blues.ogg"),
]
DEFAULT_SECONDS = 30


def measure(bin_dir, path, *args):
    out = run([os.path.join(bin_dir, "lufs-measure"), "--no-progress", *args, path]).stdout
    return json.loads(out.splitlines()[0])["loudness"]


def loudest_start(momentary, seconds, length):
    """The start (whole seconds) of the `seconds`-long window with the largest mean momentary
    energy; momentary entry i is the 400 ms block [(i - 3) * 0.1, (i + 1) * 0.1) s."""
    energy = [0.0 if m is None else 10 ** (m / 10) for m in momentary]
    best, best_start = -1.0, 0
    for start in range(0, max(int(length - seconds), 0) + 1):
        first, last = start * 10 + 3, (start + seconds) * 10 - 1   # blocks wholly inside the window
        blocks = energy[first:last + 1]
        if not blocks:
            continue
        mean = sum(blocks) / len(blocks)
        if mean > best:
            best, best_start = mean, start
    return best_start


def excerpt(bin_dir, work, root, name, rel, seconds):
    """The recording's loudest `seconds` as a 48 kHz stereo float WAV (written once)."""
    out_dir = os.path.join(work, f"excerpts-{seconds}s")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, f"{name}.wav")
    info = os.path.join(out_dir, f"{name}.json")
    if os.path.exists(out) and os.path.exists(info):
        # The path is where the excerpt is now: the folder may have been reached by another path.
        return dict(json.load(open(info)), path=out)
    full = os.path.join(work, "decoded", f"{name}.wav")
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if not os.path.exists(full):
        run(["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", os.path.join(root, rel),
             "-map", "0:a:0", "-ar", "48000", "-ac", "2", "-c:a", "pcm_f32le", full + ".part.wav"])
        os.replace(full + ".part.wav", full)
    whole = measure(bin_dir, full, "--timeline")
    length = float(run(["soxi", "-D", full]).stdout)
    start = loudest_start(whole["timeline"]["momentary_lufs"], seconds, length)
    run(["sox", full, out + ".part.wav", "trim", str(start), str(seconds)])
    os.replace(out + ".part.wav", out)
    cut = measure(bin_dir, out)
    record = {"start_seconds": start, "seconds": seconds,
              "integrated_lufs": cut["integrated_lufs"], "true_peak_dbtp": cut["true_peak_dbtp"],
              "whole_integrated_lufs": whole["integrated_lufs"], "whole_true_peak_dbtp": whole["true_peak_dbtp"]}
    json.dump(record, open(info, "w"))
    return dict(record, path=out)


def build(bin_dir, work, seconds=DEFAULT_SECONDS, names=None):
    """One dict per recording (all of RECORDINGS, or those named), in RECORDINGS' order."""
    chosen = [r for r in RECORDINGS if not names or r[0] in names]
    root = unpack(work, sorted({r[2] for r in chosen}))
    out = []
    for name, split, package, rel in chosen:
        r = excerpt(bin_dir, work, root, name, rel, seconds)
        out.append(dict(name=name, split=split, package=package, file=rel, **r))
    return out


if __name__ == "__main__":
    bin_dir, work = sys.argv[1], sys.argv[2]
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else DEFAULT_SECONDS
    os.makedirs(work, exist_ok=True)
    for r in build(bin_dir, work, seconds, sys.argv[4:]):
        print(json.dumps(r), flush=True)
