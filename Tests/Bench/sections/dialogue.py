# lufs-measure --dialogue: speed against plain measurement and onnxruntime over the same audio,
# and accuracy on programmes made of real speech over real music (Tests/Bench/dialogue_material.py).


def _onnx_python():
    """A venv with onnxruntime and numpy in BENCH_DIR (made once); None when it can't be made."""
    venv = os.path.join(DIR, "onnx-venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        if subprocess.run([sys.executable, "-m", "venv", venv]).returncode != 0:
            return None
    if subprocess.run([py, "-c", "import onnxruntime, numpy"], capture_output=True).returncode != 0:
        if subprocess.run([py, "-m", "pip", "install", "--quiet", "onnxruntime", "numpy"]).returncode != 0:
            return None
    return py


_ONNX_RUN = r'''
import sys, time, zipfile, numpy as np, onnxruntime as ort
wheel, raw = sys.argv[1:3]
o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1
s = ort.InferenceSession(zipfile.ZipFile(wheel).read("silero_vad/data/silero_vad_16k_op15.onnx"), sess_options=o,
                         providers=["CPUExecutionProvider"])
x = np.fromfile(raw, dtype=np.float32)
t0 = time.process_time()
state = np.zeros((2, 1, 128), dtype=np.float32); ctx = np.zeros(64, dtype=np.float32); sr = np.array(16000, dtype=np.int64)
for i in range(0, len(x) - 511, 512):
    inp = np.concatenate([ctx, x[i:i + 512]])[None, :]
    r, state = s.run(None, {"input": inp, "state": state, "sr": sr}); ctx = inp[0, -64:]
print(time.process_time() - t0)
'''


def dialogue():
    section("lufs-measure --dialogue: speech detector (Silero VAD in Swift) on 10 minutes of 48 kHz stereo, --jobs 1")
    m = bench_module("dialogue_material")
    work = os.path.join(DIR, "dialogue")
    os.makedirs(work, exist_ok=True)
    try:
        mix, truth = m.build(BIN, work, -5, "stereo")
    except Exception as e:
        missing(f"dialogue material (apt-get download of {', '.join(m.PACKAGES)}): {e}")
        return
    long = os.path.join(work, "dialogue-10min.wav")
    if not os.path.exists(long):
        sh(["sox", mix, mix, mix, mix, mix, long])
    seconds = 600.0
    plain = best_wall_and_cpu([tool("lufs-measure"), "--jobs", "1", "--no-progress", long], runs=3)
    dia = best_wall_and_cpu([tool("lufs-measure"), "--jobs", "1", "--no-progress", "--dialogue", long], runs=3)
    print(f"  lufs-measure             {plain[1]:6.2f} s CPU  ({seconds / plain[1]:6.0f}x realtime)")
    print(f"  lufs-measure --dialogue  {dia[1]:6.2f} s CPU  ({seconds / dia[1]:6.0f}x realtime; the detector {dia[1] - plain[1]:.2f} s)  target >= 300x")
    print(f"  peak memory: {max_rss_mib([tool('lufs-measure'), '--jobs', '1', '--no-progress', '--dialogue', long]):.0f} MiB with --dialogue, "
          f"{max_rss_mib([tool('lufs-measure'), '--jobs', '1', '--no-progress', long]):.0f} MiB without")
    py = _onnx_python()
    wheel = os.path.join(".build", "models", "silero_vad-6.2.3-py3-none-any.whl")
    if py is None or not os.path.exists(wheel):
        missing("onnxruntime (a venv with onnxruntime and numpy from PyPI, and the pinned wheel in .build/models)")
    else:
        raw = os.path.join(work, "dialogue-10min-16k.f32")
        if not os.path.exists(raw):
            sh(["sox", long, "-r", "16000", "-c", "1", "-e", "float", "-b", "32", "-t", "raw", raw])
        script = os.path.join(work, "onnx_run.py")
        open(script, "w").write(_ONNX_RUN)
        runs = [float(subprocess.run([py, script, wheel, raw], capture_output=True, text=True, check=True).stdout) for _ in range(2)]
        print(f"  onnxruntime, the same model over the same audio (16 kHz mono, one thread): {min(runs):6.2f} s CPU "
              f"({seconds / min(runs):5.0f}x realtime; inference alone, no decode or resampling)")

    section("lufs-measure --dialogue: accuracy on real speech over real music (truth: by construction; TUNING material: the constants were chosen on it, see dialogue_categories for the held-out TEST set)")
    print("  case          truth    dialogue  error   energy-gating error   share truth/ours   found   false dialogue")
    base = os.environ.get("BASE_BIN")
    base_env = dict(os.environ)
    # Older binaries find the weights through the variable when they have none beside them.
    base_env.setdefault("AUDIO_TOOLS_SPEECH_MODEL", os.path.abspath(os.path.join(".build", "models", "silero_vad_16k_op15.onnx")))

    def row(label, r):
        err = "  null" if r["error_lu"] is None else f"{r['error_lu']:+6.2f}"
        print(f"  {label:13} {r['true_lufs']:7.2f}  {r['dialogue_lufs'] if r['dialogue_lufs'] is not None else 'null':>8}  {err}   "
              f"{r['energy_error_lu']:+6.2f} (programme {r['programme_lufs']:.2f})   {r['true_share']:.3f}/{r['share']:.3f}      "
              f"{r['found'] * 100:5.1f}%  {r['false_dialogue'] * 100:5.1f}%")

    for bed_db, layout in m.CASES:
        mix, truth = m.build(BIN, work, bed_db, layout)
        row(f"{layout:6} {bed_db:+3d} dB", m.score(BIN, mix, truth))
        if base:
            try:
                row("  (BASE_BIN)", m.score(base, mix, truth, env=base_env))
            except Exception as e:
                print(f"    BASE_BIN: {e}")
    print("  targets: error ±0.5 LU with the bed at -5 dB or lower, ±1.0 at 0 dB; share ±0.05; false dialogue <= 5%; found >= 90% (bed <= -5 dB)")


EXTRA_SECTIONS.append("dialogue")
