#!/usr/bin/env python3
"""A held-out evaluation of lufs-measure --dialogue by category, from real recordings in Debian packages.

Every programme (64 s, 48 kHz) alternates stretches that are not dialogue (the category's sound:
crowd walla, applause and laughter, music and effects, transients, room tone) with scenes of
speech (the category's voices: clean, telephone band, other languages, shouted, sung, commentary)
over a bed at -10, -5 or 0 dB relative to the dialogue, in stereo (speech in both channels) and
in 5.1 (speech in the centre only). The truth is known by construction.

The material is split in two sets that share no source file:
  TUNING  speech of asterisk-core-sounds-en/fr (Allison, June), Hedgewars voice packs Default,
          British, Classic, Pirate, Default_uk; music of warzone2100-music and asterisk-moh-opsound;
          effects, the "Oooh" crowd and the wind of openttd-opensfx; transients of
          sound-theme-freedesktop and openttd-opensfx.
  TEST    speech of asterisk-core-sounds-it/ru/es (Carlo, Ivrvoice; es is Allison again, in
          Spanish), Hedgewars voice packs Mobster, HillBilly, Surfer, Russian, Default_es,
          Default_pl, Default_ru, Singer; music of hedgewars-data and chromium-bsu-data; effects,
          transients and ambience of hedgewars-data, wesnoth-1.16-data and chromium-bsu-data; the
          applause of openttd-opensfx and the crowd chant of hedgewars-data.
Constants of the detector are chosen on TUNING only; TEST is what the figures in docs/dialogue.md
report.

  python3 dialogue_categories.py BIN DIR [SET:CATEGORY:LAYOUT:BED ...]   one JSON line per case
"""
import glob, json, math, os, random, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dialogue_material as base  # noqa: E402

PACKAGES = ["asterisk-core-sounds-en-wav", "asterisk-core-sounds-fr-wav", "asterisk-core-sounds-es-wav",
            "asterisk-core-sounds-it-wav", "asterisk-core-sounds-ru-wav", "asterisk-moh-opsound-wav",
            "warzone2100-music", "openttd-opensfx", "sound-theme-freedesktop", "hedgewars-data",
            "wesnoth-1.16-data", "chromium-bsu-data"]
LENGTH = 64.0
DIALOGUE_LUFS = -27.0
# (kind, seconds): stretches of the category's other sound and scenes of dialogue over the bed.
PLAN = [("other", 8), ("scene", 14), ("other", 8), ("scene", 14), ("other", 8), ("scene", 12)]
# Long silences: the stretches between the scenes are longer.
PLAN_SILENCE = [("other", 12), ("scene", 10), ("other", 12), ("scene", 10), ("other", 12), ("scene", 8)]
CATEGORIES = ["clean", "crowd-walla", "applause-laughter", "music-effects", "transients", "room-tone",
              "band-limited", "languages", "shouted", "singing", "commentary"]
BEDS = [-10, -5, 0]
LAYOUTS = ["stereo", "5.1"]

HW = "usr/share/games/hedgewars/Data/Sounds"
WN = "usr/share/games/wesnoth/1.16/data/core/sounds"
AST = "usr/share/asterisk/sounds"
VOICE_PACKS = {"tuning": ["Default", "British", "Classic", "Pirate", "Default_uk"],
               "test": ["Mobster", "HillBilly", "Surfer", "Russian", "Default_es", "Default_pl", "Default_ru"]}
# Hedgewars voice-pack lines that are not words (grunts, coughs, jumps).
NOT_WORDS = ("Ooff", "Ow", "Jump", "Poison", "Laugh", "Firepunch", "Hmm", "Nooo", "Ouch")
HW_EFFECTS = ["TARDIS", "bee", "blowtorch", "cake2", "egg", "explosion", "firepunch_hit", "flamethrower", "hog_freeze",
              "ice_beam", "landgun", "lowgravity", "minigun", "molotov", "mortar", "plane", "planewater", "rcplane",
              "shotgunfire", "sinegun", "throwpowerup", "ufo", "whipcrack"]
WN_EFFECTS = ["bow-puny-fire", "cave-in", "crossbow-fire", "explosion", "fuse", "gold", "lightning", "magic-dark-big",
              "magic-faeriefire", "magic-holy-1", "melee-fire", "rumble", "sling-big", "thunderstick", "entangle", "water-blast"]
WN_TRANSIENTS = ["axe", "fist", "knife", "mace-miss", "miss-1", "miss-2", "miss-3", "spear-miss", "staff-miss", "dagger-swish",
                 "squishy-strike", "staff", "throw-1", "throw-2", "throw-3", "throw-4", "bat-hit-1", "bat-hit-2"]
HW_TRANSIENTS = ["CollectCrate", "Droplet1", "Droplet2", "airmine_impact", "beep", "countdown1", "denied", "graveimpact",
                 "grenadeimpact", "melonimpact", "mineimpact", "minetick", "portalopen", "portalswitch", "ropeattach",
                 "roperelease", "sniperreload", "switchhog", "throwrelease"]
# openttd-opensfx catalogue entries by number (see its sound names): transients under 300 ms,
# the "Oooh" crowd, the applause, the wind.
OTTD_TRANSIENTS = [21, 23, 32, 41, 45, 47]
OTTD_OOOH, OTTD_APPLAUSE, OTTD_WIND = 30, 29, 52


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def seconds_of(path):
    return float(run(["soxi", "-D", path]).stdout)


class Material:
    def __init__(self, bin_dir, work):
        self.bin, self.work = bin_dir, work
        old = base.PACKAGES
        base.PACKAGES = PACKAGES
        try:
            self.root = base.unpack(work)
        finally:
            base.PACKAGES = old
        self.cat = self.catalogue()
        self.cache = os.path.join(work, "decoded")
        os.makedirs(self.cache, exist_ok=True)

    def catalogue(self):
        """The openttd-opensfx catalogue's sounds by number, as WAV files (written once)."""
        import struct
        out_dir = os.path.join(self.work, "opensfx")
        os.makedirs(out_dir, exist_ok=True)
        path = base.INSTALLED_EFFECTS if os.path.exists(base.INSTALLED_EFFECTS) else os.path.join(self.root, base.INSTALLED_EFFECTS.lstrip("/"))
        cat = open(path, "rb").read()
        count = (struct.unpack_from("<I", cat, 0)[0] & 0x7FFFFFFF) // 8
        files = {}
        for i in range(count):
            p = os.path.join(out_dir, f"{i:02d}.wav")
            if not os.path.exists(p):
                offset, size = struct.unpack_from("<II", cat, 8 * i)
                offset &= 0x7FFFFFFF
                start = offset + 1 + cat[offset]
                open(p, "wb").write(cat[start:start + size])
            files[i] = p
        return files

    def r(self, rel):
        return os.path.join(self.root, rel)

    def mono(self, src, trim_silence=False):
        """`src` as a mono 48 kHz float WAV (made once)."""
        key = src.replace("/", "_").lstrip("_") + ("-t" if trim_silence else "") + ".wav"
        out = os.path.join(self.cache, key)
        if not os.path.exists(out):
            tmp = out + ".tmp.wav"
            run(["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", src, "-ac", "1", "-ar", "48000", "-c:a", "pcm_f32le", tmp])
            if trim_silence:
                run(["sox", tmp, out, "silence", "1", "0.02", "-40d", "reverse", "silence", "1", "0.02", "-40d", "reverse"])
                os.remove(tmp)
            else:
                os.rename(tmp, out)
        return out

    # Sources by set.
    def prompts(self, speaker, seed):
        files = sorted(f for f in glob.glob(self.r(f"{AST}/{speaker}/**/*.wav"), recursive=True) if os.path.getsize(f) > 40000)
        random.Random(seed).shuffle(files)
        return files

    def voice_lines(self, packs, seed):
        files = sorted(f for p in packs for f in glob.glob(self.r(f"{HW}/voices/{p}/*.ogg"))
                       if not any(f.split("/")[-1].startswith(w) for w in NOT_WORDS))
        random.Random(seed).shuffle(files)
        return files

    def speech(self, set_name, category):
        if category == "singing":
            return self.voice_lines(["Singer"], 5) if set_name == "test" else []
        if category == "shouted":
            return self.voice_lines(VOICE_PACKS[set_name], 6)
        if set_name == "tuning":
            if category == "languages":
                return self.prompts("fr_CA_f_June", 12)
            a, b = self.prompts("en_US_f_Allison", 11), self.prompts("fr_CA_f_June", 12)
        else:
            if category == "languages":
                a, b = self.prompts("es_MX_f_Allison", 13), self.prompts("ru_RU_f_IvrvoiceRU", 14)
            else:
                a, b = self.prompts("it_IT_m_Carlo", 15), self.prompts("ru_RU_f_IvrvoiceRU", 16)
        return [x for pair in zip(a, b) for x in pair]

    def music(self, set_name):
        if set_name == "tuning":
            return sorted(glob.glob(self.r("usr/share/games/warzone2100/music/**/*.opus"), recursive=True))[:3] + \
                sorted(glob.glob(self.r("usr/share/asterisk/moh/*.wav")))[:1]
        names = ["Castle", "City", "EarthRise", "Jungle", "Rock", "oriental"]
        return [self.r(f"{HW}/../Music/{n}.ogg") for n in names] + [self.r("usr/share/games/chromium-bsu/wav/music_game.wav")]

    def effects(self, set_name):
        if set_name == "tuning":
            return [self.cat[i] for i in (3, 4, 6, 8, 9, 11, 12, 14, 17, 18, 19, 24, 25, 33, 39, 40, 54, 55, 56, 59)]
        return [self.r(f"{HW}/{n}.ogg") for n in HW_EFFECTS] + [self.r(f"{WN}/{n}.ogg") for n in WN_EFFECTS[:-2]] + \
            [self.r(f"{WN}/{n}.wav") for n in WN_EFFECTS[-2:]] + \
            [self.r(f"usr/share/games/chromium-bsu/wav/{n}.wav") for n in ("exploBig", "exploPop", "exploStd")]

    def transients(self, set_name):
        if set_name == "tuning":
            fd = [f for f in sorted(glob.glob(self.r("usr/share/sounds/freedesktop/stereo/*.oga"))) if seconds_of(f) < 0.3]
            return fd + [self.cat[i] for i in OTTD_TRANSIENTS]
        wn = [self.r(f"{WN}/{n}.ogg") for n in WN_TRANSIENTS]
        return [self.r(f"{HW}/{n}.ogg") for n in HW_TRANSIENTS] + [p if os.path.exists(p) else p[:-4] + ".wav" for p in wn]

    def room(self, set_name):
        return self.cat[OTTD_WIND] if set_name == "tuning" else self.r(f"{WN}/ambient/night.ogg")

    # Building blocks (mono 48 kHz float WAVs).
    def loudness(self, path):
        return base.loudness(self.bin, path)

    def level(self, path, lufs, out):
        gain = lufs - self.loudness(path)
        run(["sox", path, out, "gain", f"{gain:.3f}"])
        return out

    def sequence(self, files, seconds, out, gap=0.3, trim_silence=True, start=0):
        """Files back to back, `gap` apart, until `seconds` is filled (cycling): the path and the
        length of the sound (to the end of the last file)."""
        parts, total, i = [], 0.0, start
        while True:
            p = self.mono(files[i % len(files)], trim_silence)
            d = seconds_of(p)
            if d <= 0.02:
                i += 1
                continue
            if total + d > seconds:
                if parts:
                    break
                d = seconds
            parts.append(p)
            total += d + gap
            i += 1
            if i - start > 200:
                break
        args = []
        for p in parts:
            args += [p]
        padded = []
        for k, p in enumerate(parts):
            q = f"{out}.{k}.wav"
            run(["sox", p, q, "pad", "0", str(gap), "trim", "0", str(min(seconds, seconds_of(p) + gap))])
            padded.append(q)
        run(["sox"] + padded + [out, "pad", "0", str(seconds), "trim", "0", str(seconds)])
        for q in padded:
            os.remove(q)
        return out, min(seconds, total - gap)

    def loop(self, src, seconds, out, offset=0.0):
        """A source looped and cut to `seconds` (music, ambience)."""
        p = self.mono(src)
        d = seconds_of(p)
        start = offset if d > offset + seconds else 0.0
        repeats = max(0, int(math.ceil(seconds / max(d - start, 0.1))))
        run(["sox", p, out, "trim", str(start), "repeat", str(repeats), "trim", "0", str(seconds)])
        return out

    def babble(self, files, seconds, out, talkers, seed):
        """`talkers` streams of voices at once, each starting at its own time: walla."""
        rnd = random.Random(seed)
        streams = []
        for t in range(talkers):
            s, _ = self.sequence(files, seconds + 3, f"{out}.t{t}.wav", gap=rnd.uniform(0.1, 0.6), start=rnd.randrange(len(files)))
            q = f"{out}.s{t}.wav"
            run(["sox", s, q, "trim", str(rnd.uniform(0, 2.5)), str(seconds)])
            streams.append(q)
        run(["sox", "-m"] + streams + [out, "pad", "0", str(seconds), "trim", "0", str(seconds)])
        for t in range(talkers):
            os.remove(f"{out}.t{t}.wav"); os.remove(f"{out}.s{t}.wav")
        return out

    def sparse(self, files, seconds, out, seed, floor):
        """Transients 0.4 to 1.6 s apart over a quiet room tone (`floor`, a looped recording)."""
        rnd = random.Random(seed)
        parts, t, k = [], 0.3, 0
        while True:
            f = self.mono(files[rnd.randrange(len(files))])
            d = seconds_of(f)
            if t + d > seconds - 0.2:
                break
            parts.append((t, f))
            t += d + rnd.uniform(0.4, 1.6)
            k += 1
        placed = []
        for n, (at, f) in enumerate(parts):
            q = f"{out}.{n}.wav"
            run(["sox", f, q, "pad", f"{at:.3f}"])
            placed.append(q)
        clicks = out + ".clicks.wav"
        run(["sox", "-m"] + placed + [clicks, "pad", "0", str(seconds), "trim", "0", str(seconds)])
        for q in placed:
            os.remove(q)
        run(["sox", "-m", clicks, floor, out, "trim", "0", str(seconds)])
        os.remove(clicks)
        return out

    def telephone(self, src, noise, out):
        """Speech through a telephone or radio channel: noise 15 dB under it, 300-3400 Hz, 8 kHz mu-law."""
        g = self.loudness(src) - 15 - self.loudness(noise)
        mixed = out + ".n.wav"
        run(["sox", "-m", src, "-v", f"{10 ** (g / 20):.5f}", noise, mixed, "trim", "0", str(seconds_of(src))])
        run(["sox", mixed, "-r", "8000", "-e", "mu-law", out + ".ulaw.wav", "sinc", "300-3400"])
        run(["sox", out + ".ulaw.wav", "-r", "48000", "-e", "float", "-b", "32", out])
        os.remove(mixed); os.remove(out + ".ulaw.wav")
        return out

    # Programmes.
    def others(self, set_name, category, n, seconds, d):
        """The non-dialogue stretch number n of a category: (path, label)."""
        p = os.path.join(d, f"other{n}.wav")
        crowd_files = self.crowd_voices(set_name)
        if category == "crowd-walla":
            if set_name == "test" and n == 1:
                self.loop(self.r(f"{HW}/hogchant3.ogg"), seconds, p)
                return self.level(p, DIALOGUE_LUFS, p + ".g.wav"), "crowd-walla"
            self.babble(crowd_files, seconds, p, 10, 100 + n)
            return self.level(p, DIALOGUE_LUFS, p + ".g.wav"), "crowd-walla"
        if category == "applause-laughter":
            if n == 1:
                laughs = sorted(f for pk in VOICE_PACKS[set_name] for f in glob.glob(self.r(f"{HW}/voices/{pk}/Laugh.ogg")))
                self.babble(laughs, seconds, p, 6, 200 + n)
                return self.level(p, DIALOGUE_LUFS, p + ".g.wav"), "applause-laughter"
            self.loop(self.cat[OTTD_APPLAUSE if set_name == "test" else OTTD_OOOH], seconds, p)
            return self.level(p, DIALOGUE_LUFS, p + ".g.wav"), "applause-laughter"
        if category == "transients":
            floor = self.level(self.loop(self.room(set_name), seconds, p + ".floor.wav"), DIALOGUE_LUFS - 30, p + ".floorg.wav")
            self.sparse(self.transients(set_name), seconds, p, 300 + n, floor)
            return self.level(p, DIALOGUE_LUFS + 6, p + ".g.wav"), "transients"
        if category == "room-tone":
            self.loop(self.room(set_name), seconds, p, offset=3.0 * n)
            return self.level(p, DIALOGUE_LUFS - 30, p + ".g.wav"), "room-tone"
        if category == "commentary":
            if n == 1:
                self.babble(crowd_files, seconds, p, 10, 400 + n)
            else:
                self.loop(self.cat[OTTD_APPLAUSE if set_name == "test" else OTTD_OOOH], seconds, p)
            return self.level(p, DIALOGUE_LUFS, p + ".g.wav"), "crowd-walla"
        # Music-only and effects-only stretches, 6 dB over the dialogue.
        if n == 1:
            self.sequence(self.effects(set_name), seconds, p, gap=0.0, trim_silence=False, start=7 * n + len(category))
            return self.level(p, DIALOGUE_LUFS + 6, p + ".g.wav"), "effects-only"
        music = self.music(set_name)
        self.loop(music[(n + len(category)) % len(music)], seconds, p, offset=20)
        return self.level(p, DIALOGUE_LUFS + 6, p + ".g.wav"), "music-only"

    def crowd_voices(self, set_name):
        if set_name == "tuning":
            return self.prompts("en_US_f_Allison", 21)[:40] + self.prompts("fr_CA_f_June", 22)[:40] + self.voice_lines(VOICE_PACKS["tuning"], 23)
        return self.prompts("it_IT_m_Carlo", 24)[40:80] + self.prompts("ru_RU_f_IvrvoiceRU", 25)[40:80] + self.voice_lines(VOICE_PACKS["test"], 26)

    def bed(self, set_name, category, n, seconds, d):
        """The bed under scene n, at the dialogue's level (the case's bed level is applied at the mix)."""
        p = os.path.join(d, f"bed{n}.wav")
        if category == "commentary":
            if n % 2:
                self.loop(self.cat[OTTD_APPLAUSE if set_name == "test" else OTTD_OOOH], seconds, p)
            else:
                self.babble(self.crowd_voices(set_name), seconds, p, 12, 500 + n)
        elif category == "room-tone":
            self.loop(self.room(set_name), seconds, p, offset=1.0 * n)
        else:
            music = self.music(set_name)
            self.loop(music[(n * 3 + len(category) + 1) % len(music)], seconds, p, offset=40)
        return self.level(p, DIALOGUE_LUFS, p + ".g.wav")

    def parts(self, set_name, category):
        """The category's mono tracks (speech, bed, other) and truth, made once per set and category."""
        d = os.path.join(self.work, set_name, category)
        done = os.path.join(d, "parts.json")
        if os.path.exists(done):
            kept = json.load(open(done))
            # The tracks beside parts.json, wherever the work folder now is.
            kept["tracks"] = {k: os.path.join(d, os.path.basename(v)) for k, v in kept["tracks"].items()}
            return kept
        os.makedirs(d, exist_ok=True)
        voices = self.speech(set_name, category)
        plan = PLAN_SILENCE if category == "room-tone" else PLAN
        speech_parts, bed_parts, other_parts, truth, others, t, used = [], [], [], [], [], 0.0, 0
        for n, (kind, seconds) in enumerate(plan):
            if kind == "other":
                p, label = self.others(set_name, category, len(others), seconds, d)
                q = os.path.join(d, f"other{n}-at.wav")
                run(["sox", p, q, "pad", f"{t:.3f}"])
                other_parts.append(q)
                others.append([t, t + seconds, label])
            else:
                s, speech_seconds = self.sequence(voices, seconds - 1, os.path.join(d, f"scene{n}.wav"), start=used)
                used += 40 if category not in ("shouted", "singing") else 12
                if category == "band-limited":
                    noise = self.loop(self.room(set_name) if set_name == "test" else self.cat[OTTD_WIND], seconds, s + ".noise.wav")
                    s = self.telephone(s, noise, s + ".tel.wav")
                g = self.level(s, DIALOGUE_LUFS, s + ".g.wav")
                q = os.path.join(d, f"speech{n}-at.wav")
                run(["sox", g, q, "pad", f"{t + 0.5:.3f}"])
                speech_parts.append(q)
                truth.append([t + 0.5, t + 0.5 + speech_seconds])
                b = self.bed(set_name, category, len(truth), seconds, d)
                q = os.path.join(d, f"bed{n}-at.wav")
                run(["sox", b, q, "pad", f"{t:.3f}"])
                bed_parts.append(q)
            t += seconds
        tracks = {}
        for name, parts in (("speech", speech_parts), ("bed", bed_parts), ("other", other_parts)):
            out = os.path.join(d, f"{name}.wav")
            run(["sox", "-m"] + sum([["-v", "1", p] for p in parts], []) + [out, "pad", "0", str(LENGTH), "trim", "0", str(LENGTH)]
                if len(parts) > 1 else ["sox", parts[0], out, "pad", "0", str(LENGTH), "trim", "0", str(LENGTH)])
            tracks[name] = out
        result = dict(tracks=tracks, truth=truth, others=others)
        json.dump(result, open(done, "w"))
        return result

    def build(self, set_name, category, layout, bed_db):
        """The programme for one case: (mix path, parts)."""
        parts = self.parts(set_name, category)
        d = os.path.dirname(parts["tracks"]["speech"])
        mix = os.path.join(d, f"{layout}{bed_db:+d}.wav")
        if not os.path.exists(mix):
            tr = parts["tracks"]
            m = mix + ".m.wav"
            # The music/effects stem: the bed at its level under the scenes, and the other stretches.
            run(["sox", "-m", "-v", f"{10 ** (bed_db / 20):.6f}", tr["bed"], "-v", "1", tr["other"], m])
            if layout == "stereo":
                run(["sox", "-M", "-v", "1", m, "-v", "1", tr["speech"], "-r", "48000", "-b", "24", mix,
                     "remix", "1v0.7071,2v1", "1v0.7071,2v1"])
            else:
                run(["sox", "-M", "-v", "1", m, "-v", "1", tr["speech"], "-r", "48000", "-b", "24", mix,
                     "remix", "1v0.7071", "1v0.7071", "2", "0", "1v0.3536", "1v0.3536"])
            os.remove(m)
        return mix, parts


def score(bin_dir, mix, parts, env=None):
    """What lufs-measure --dialogue found against the truth."""
    r = run([os.path.join(bin_dir, "lufs-measure"), "--no-progress", "--dialogue", "--timeline", mix], env=env)
    l = json.loads(r.stdout.splitlines()[0])["loudness"]
    d = l["dialogue"]
    truth = parts["truth"]
    momentary = l["timeline"]["momentary_lufs"]
    truth_blocks = [m for i, m in enumerate(momentary) if i >= 3 and base.overlap(truth, (i - 3) * 0.1, (i + 1) * 0.1) >= 0.2 - 1e-9]
    true_lufs = base.gated(truth_blocks)
    found = d.get("timeline", [])
    found = [s[:2] if isinstance(s, list) else [s["from"], s["to"]] for s in found]
    truth_seconds = sum(t - f for f, t in truth)
    false = {}
    for f, t, label in parts["others"]:
        a, b = false.get(label, (0.0, 0.0))
        false[label] = (a + base.overlap(found, f, t), b + t - f)
    return {
        "true_lufs": true_lufs, "dialogue_lufs": d["integrated_lufs"],
        "error_lu": None if d["integrated_lufs"] is None or true_lufs is None else d["integrated_lufs"] - true_lufs,
        "true_share": truth_seconds / LENGTH, "share": d["share"],
        "found": sum(base.overlap(found, f, t) for f, t in truth) / truth_seconds if truth_seconds else None,
        "false": {k: a / b for k, (a, b) in false.items()},
    }


def cases(set_name):
    for category in CATEGORIES:
        if category == "singing" and set_name == "tuning":
            continue
        for layout in LAYOUTS:
            for bed in BEDS:
                yield category, layout, bed


if __name__ == "__main__":
    bin_dir, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    m = Material(bin_dir, work)
    chosen = [tuple(a.split(":")) for a in sys.argv[3:]]
    chosen = [(s, c, l, int(b)) for s, c, l, b in chosen] or \
        [(s, c, l, b) for s in ("tuning", "test") for c, l, b in cases(s)]
    for set_name, category, layout, bed in chosen:
        mix, parts = m.build(set_name, category, layout, bed)
        print(json.dumps(dict(set=set_name, category=category, layout=layout, bed_db=bed, **score(bin_dir, mix, parts))), flush=True)
