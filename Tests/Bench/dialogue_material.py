#!/usr/bin/env python3
"""Programmes with dialogue at known times, from real recordings in Debian packages, and how well
lufs-measure --dialogue finds it. Used by the bench (sections/dialogue.py) and the end-to-end test.

Speech: asterisk-core-sounds-{en,fr}-wav prompts (two speakers, two languages). Music:
warzone2100-music (full-band game score) and asterisk-moh-opsound-wav. Effects: OpenTTD's
openttd-opensfx (recorded game sound effects: trains, ships, planes, crashes, explosions,
machinery, wind; CC-BY-SA 3.0), taken out of its sound catalogue; the few that are voices or
animal calls (applause, "oooh", the animals, the year-end jingles) are left out, as a film's
effects stem would not have dialogue-like sounds in it by construction.

Each programme (120 s, 48 kHz): music-only and effects-only stretches louder than the dialogue,
and scenes of prompts back to back (0.3 s apart) over the music bed at `bed` dB relative to the
dialogue. Stereo has the speech in both channels; 5.1 has it in the centre only. The truth is the
mix's BS.1770 gated loudness over the 400 ms blocks at least half inside a scene's speech.

  python3 dialogue_material.py BIN DIR [LAYOUT:BED ...]   one JSON line per case (the end-to-end test reads them)
"""
import glob, json, math, os, random, struct, subprocess, sys

PACKAGES = ["asterisk-core-sounds-en-wav", "asterisk-core-sounds-fr-wav", "asterisk-moh-opsound-wav", "warzone2100-music",
            "openttd-opensfx"]
# The effects catalogue where `make test-deps` installs it (else it is downloaded like the rest).
INSTALLED_EFFECTS = "/usr/share/games/openttd/baseset/opensfx/opensfx.cat"
# Sounds of the effects catalogue that are voices, animal calls or music, by a word of their names.
NOT_EFFECTS = ("Year", "Applause", "Oooh", "Sheep", "Cow", "Horse", "Tropical", "Unused")
LENGTH = 120.0
DIALOGUE_LUFS = -27.0
# (start, kind, seconds): scenes of dialogue over the bed, music-only and effects-only stretches.
PLAN = [(0, "music", 10), (10, "scene", 24), (34, "effects", 8), (42, "music", 10),
        (52, "scene", 26), (78, "music", 12), (90, "scene", 24), (114, "effects", 6)]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def unpack(work, packages=PACKAGES):
    """The packages, downloaded with apt-get and unpacked into work/root (each once)."""
    root = os.path.join(work, "root")
    os.makedirs(root, exist_ok=True)
    for package in packages:
        marker = os.path.join(root, f".unpacked-{package}")
        if os.path.exists(marker) or (package == "openttd-opensfx" and os.path.exists(INSTALLED_EFFECTS)):
            continue
        debs = glob.glob(os.path.join(work, f"{package}_*.deb"))
        if not debs:
            run(["apt-get", "download", package], cwd=work)
            debs = glob.glob(os.path.join(work, f"{package}_*.deb"))
        run(["dpkg-deb", "-x", debs[0], root])
        open(marker, "w").close()
    return root


def effects(root, work):
    """The catalogue's sound effects of at least a second, as mono WAV files (written once), in a
    fixed shuffled order. opensfx.cat: a table of (offset, size) little-endian 32-bit pairs (the
    offset's top bit is a flag), the first offset giving the table's length; each sound is a
    length-prefixed name, then a RIFF WAV file of `size` bytes."""
    out_dir = os.path.join(work, "effects")
    done = os.path.join(out_dir, "list.json")
    if os.path.exists(done):
        return json.load(open(done))
    os.makedirs(out_dir, exist_ok=True)
    installed = os.path.exists(INSTALLED_EFFECTS)
    cat = open(INSTALLED_EFFECTS if installed else os.path.join(root, INSTALLED_EFFECTS.lstrip("/")), "rb").read()
    count = (struct.unpack_from("<I", cat, 0)[0] & 0x7FFFFFFF) // 8
    files = []
    for i in range(count):
        offset, size = struct.unpack_from("<II", cat, 8 * i)
        offset &= 0x7FFFFFFF
        name_length = cat[offset]
        name = cat[offset + 1:offset + 1 + name_length].decode("latin-1")
        start = offset + 1 + name_length
        wav = cat[start:start + size]
        channels, rate = struct.unpack_from("<HI", wav, 22)
        bits = struct.unpack_from("<H", wav, 34)[0]
        if any(w in name for w in NOT_EFFECTS) or len(wav) - 44 < rate * channels * bits // 8:
            continue
        path = os.path.join(out_dir, f"sfx{i:02d}.wav")
        open(path, "wb").write(wav)
        files.append(path)
    random.Random(3).shuffle(files)
    json.dump(files, open(done, "w"))
    return files


def loudness(bin_dir, path):
    out = run([os.path.join(bin_dir, "lufs-measure"), "--no-progress", path]).stdout
    return json.loads(out.splitlines()[0])["loudness"]["integrated_lufs"]


def prompts(root, lang_dir, seed):
    files = sorted(f for f in glob.glob(os.path.join(root, "usr/share/asterisk/sounds", lang_dir, "**/*.wav"), recursive=True)
                   if os.path.getsize(f) > 40000)
    random.Random(seed).shuffle(files)
    return files


def scene(work, files, seconds, name):
    """Prompts trimmed of their silences, 0.3 s apart, until `seconds` is filled: a mono 48 kHz file
    and the speech's length (the scene's truth ends where its last prompt's speech ends)."""
    parts, total = [], 0.0
    for i, f in enumerate(files):
        p = os.path.join(work, f"{name}-{i}.wav")
        run(["sox", f, "-r", "48000", "-c", "1", "-b", "32", "-e", "float", p,
             "silence", "1", "0.02", "-40d", "reverse", "silence", "1", "0.02", "-40d", "reverse", "pad", "0", "0.3"])
        d = float(run(["soxi", "-D", p]).stdout)
        if total + d > seconds:
            break
        parts.append(p); total += d
    out = os.path.join(work, f"{name}.wav")
    run(["sox"] + parts + [out])
    return out, total - 0.3


def build(bin_dir, work, bed_db, layout):
    """The programme for one case: (mix path, truth spans)."""
    root = unpack(work)
    case = os.path.join(work, f"{layout}-{bed_db:+d}")
    os.makedirs(case, exist_ok=True)
    mix = os.path.join(case, "mix.wav")
    truth_path = os.path.join(case, "truth.json")
    if os.path.exists(mix) and os.path.exists(truth_path):
        return mix, json.load(open(truth_path))
    speakers = [prompts(root, "en_US_f_Allison", 1), prompts(root, "fr_CA_f_June", 2)]
    music = sorted(glob.glob(os.path.join(root, "usr/share/games/warzone2100/music/**/*.opus"), recursive=True))
    moh = sorted(glob.glob(os.path.join(root, "usr/share/asterisk/moh/*.wav")))
    beds = music[:3] + moh[:1]
    segments, speech_parts, truth, used = [], [], [], [0, 0]
    for n, (start, kind, seconds) in enumerate(PLAN):
        seg = os.path.join(case, f"seg{n}.wav")
        if kind == "effects":
            # Recorded effects back to back (each stretch its own), 6 dB over the dialogue.
            sounds = effects(root, work)
            pick = [sounds[(n * 5 + k) % len(sounds)] for k in range(5)]
            run(["sox"] + pick + ["-r", "48000", "-c", "1", "-b", "32", "-e", "float", seg, "pad", "0", str(seconds), "trim", "0", str(seconds)])
            level = DIALOGUE_LUFS + 6
        else:
            src = beds[n % len(beds)]
            if src.endswith(".opus"):
                wav = os.path.join(case, f"music{n}.wav")
                run(["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", src, "-ac", "1", "-ar", "48000", wav])
                src = wav
            run(["sox", src, "-r", "48000", "-c", "1", "-b", "32", "-e", "float", seg, "trim", "20", str(seconds)])
            level = DIALOGUE_LUFS + (6 if kind == "music" else bed_db)
        gain = level - loudness(bin_dir, seg)
        leveled = seg.replace(".wav", "-g.wav")
        run(["sox", seg, leveled, "gain", f"{gain:.3f}"])
        segments.append(leveled)
        if kind == "scene":
            k = len(speech_parts) % 2
            files = speakers[k][used[k]:]
            s, speech_seconds = scene(case, files, seconds - 1, f"scene{n}")
            used[k] += 40
            g = DIALOGUE_LUFS - loudness(bin_dir, s)
            placed = os.path.join(case, f"speech{n}.wav")
            run(["sox", s, placed, "gain", f"{g:.3f}", "pad", str(start + 0.5)])
            speech_parts.append(placed)
            truth.append([start + 0.5, start + 0.5 + speech_seconds])
    bed = os.path.join(case, "bed.wav")
    run(["sox"] + segments + [bed])
    speech = os.path.join(case, "speech.wav")
    run(["sox", "-m"] + sum([["-v", "1", p] for p in speech_parts], []) + [speech, "pad", "0", "5", "trim", "0", str(LENGTH)])
    if layout == "stereo":
        # The bed in stereo (its mono copy, slightly different per side), speech centred in both.
        run(["sox", "-M", "-v", "1", bed, "-v", "1", speech, "-r", "48000", "-b", "24", mix,
             "remix", "1v0.7071,2v1", "1v0.7071,2v1"])
    else:
        # 5.1 (L R C LFE Ls Rs): bed in L, R and at −6 dB in the surrounds, speech in the centre.
        run(["sox", "-M", "-v", "1", bed, "-v", "1", speech, "-r", "48000", "-b", "24", mix,
             "remix", "1v0.7071", "1v0.7071", "2", "0", "1v0.3536", "1v0.3536"])
    json.dump(truth, open(truth_path, "w"))
    return mix, truth


def gated(blocks):
    """BS.1770-4 gating over block loudnesses (LUFS; None below the absolute gate)."""
    e = [10 ** ((l + 0.691) / 10) for l in blocks if l is not None and l > -70]
    if not e:
        return None
    rel = sum(e) / len(e) * 0.1
    kept = [x for x in e if x > rel]
    return -0.691 + 10 * math.log10(sum(kept) / len(kept))


def overlap(spans, a, b):
    return sum(max(0.0, min(b, t) - max(a, f)) for f, t in spans)


def score(bin_dir, mix, truth, args=(), env=None):
    """What lufs-measure --dialogue found against the truth, and what energy gating alone gives."""
    r = run([os.path.join(bin_dir, "lufs-measure"), "--no-progress", "--dialogue", "--timeline", *args, mix], env=env)
    l = json.loads(r.stdout.splitlines()[0])["loudness"]
    d = l["dialogue"]
    momentary = l["timeline"]["momentary_lufs"]
    # Entry i is the 400 ms block [(i − 3)·0.1, (i + 1)·0.1) s.
    truth_blocks = [m for i, m in enumerate(momentary) if i >= 3 and overlap(truth, (i - 3) * 0.1, (i + 1) * 0.1) >= 0.2 - 1e-9]
    true_lufs = gated(truth_blocks)
    found = d.get("timeline", [])
    truth_seconds = sum(t - f for f, t in truth)
    other = [(s, s + n) for s, k, n in PLAN if k != "scene"]
    other_seconds = sum(t - f for f, t in other)
    false_seconds = sum(overlap(found, f, t) for f, t in other)
    return {
        "true_lufs": true_lufs, "dialogue_lufs": d["integrated_lufs"], "programme_lufs": l["integrated_lufs"],
        "error_lu": None if d["integrated_lufs"] is None else d["integrated_lufs"] - true_lufs,
        "energy_error_lu": l["integrated_lufs"] - true_lufs,
        "true_share": truth_seconds / LENGTH, "share": d["share"],
        "found": sum(overlap(found, f, t) for f, t in truth) / truth_seconds,
        "false_dialogue": false_seconds / other_seconds,
        "channels": d["channels"],
    }


CASES = [(b, "stereo") for b in (-10, -5, 0, 5)] + [(-5, "5.1"), (0, "5.1")]

if __name__ == "__main__":
    bin_dir, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    # Cases as LAYOUT:BED arguments (stereo:-5 5.1:0), all of CASES without any.
    chosen = [(int(a.split(":")[1]), a.split(":")[0]) for a in sys.argv[3:]] or CASES
    for bed_db, layout in chosen:
        mix, truth = build(bin_dir, work, bed_db, layout)
        print(json.dumps(dict(bed_db=bed_db, layout=layout, **score(bin_dir, mix, truth))), flush=True)
