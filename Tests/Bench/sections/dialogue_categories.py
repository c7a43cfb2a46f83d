# lufs-measure --dialogue by category (Tests/Bench/dialogue_categories.py): the TEST set, which no
# constant of the detector was chosen on, and the TUNING set the constants were chosen on, labelled.


def _category_rows(m, material, set_name, bin_dir, env=None):
    """Per category: the worst loudness error at beds <= -5 dB and at 0 dB, mean share (truth/ours),
    the least found at beds <= -5 dB and overall, and false dialogue by kind of stretch (the most)."""
    rows = {}
    for category, layout, bed in m.cases(set_name):
        mix, parts = material.build(set_name, category, layout, bed)
        r = m.score(bin_dir, mix, parts, env=env)
        rows.setdefault(category, []).append((layout, bed, r))
    return rows


def _print_rows(rows):
    print(f"  {'category':18} {'error <=-5 dB':>14} {'error 0 dB':>11} {'share truth/ours':>17} {'found <=-5 dB':>14} {'found 0 dB':>11}   false dialogue (most, by stretch)")
    for category, rs in rows.items():
        def worst(values):
            values = [v for v in values if v is not None]
            return max(values, key=abs) if values else None
        e5 = worst([r["error_lu"] for _, b, r in rs if b <= -5])
        e0 = worst([r["error_lu"] for _, b, r in rs if b == 0])
        missing_err = any(r["error_lu"] is None for _, _, r in rs)
        share_t = sum(r["true_share"] for _, _, r in rs) / len(rs)
        share_o = sum(r["share"] for _, _, r in rs) / len(rs)
        f5 = min(r["found"] for _, b, r in rs if b <= -5)
        f0 = min(r["found"] for _, b, r in rs if b == 0)
        false = {}
        for _, _, r in rs:
            for k, v in r["false"].items():
                false[k] = max(false.get(k, 0.0), v)
        fmt = lambda v: "   null" if v is None else f"{v:+6.2f} LU"
        print(f"  {category:18} {fmt(e5):>14} {fmt(e0):>11} {share_t:8.3f}/{share_o:.3f} {f5 * 100:13.1f}% {f0 * 100:10.1f}%   "
              + ", ".join(f"{k} {v * 100:.1f}%" for k, v in false.items()) + ("  (a case has no dialogue loudness)" if missing_err else ""))


def dialogue_categories():
    section("lufs-measure --dialogue by category: TEST set (held out: no constant was chosen on it), beds -10/-5/0 dB, stereo and 5.1")
    m = bench_module("dialogue_categories")
    work = os.path.join(DIR, "dialogue-categories")
    os.makedirs(work, exist_ok=True)
    try:
        material = m.Material(BIN, work)
    except Exception as e:
        missing(f"dialogue category material (apt-get download of {', '.join(m.PACKAGES)}): {e}")
        return
    _print_rows(_category_rows(m, material, "test", BIN))
    print("  targets (TEST): error +-0.5 LU with beds <= -5 dB, +-1.0 LU at 0 dB; false dialogue <= 5% on crowd/walla, applause/laughter,")
    print("  music-only, effects-only, <= 1% on transients; found >= 85% band-limited, >= 90% clean (beds <= -5 dB)")
    base = os.environ.get("BASE_BIN")
    if base:
        env = dict(os.environ)
        env.setdefault("AUDIO_TOOLS_SPEECH_MODEL", os.path.abspath(os.path.join(".build", "models", "silero_vad_16k_op15.onnx")))
        print("  BASE_BIN on the TEST set:")
        _print_rows(_category_rows(m, material, "test", base, env))
    section("lufs-measure --dialogue by category: TUNING set (the constants were chosen on it: not a measure of accuracy)")
    _print_rows(_category_rows(m, material, "tuning", BIN))


EXTRA_SECTIONS.append("dialogue_categories")
