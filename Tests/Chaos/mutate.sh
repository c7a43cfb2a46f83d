#!/usr/bin/env bash
# The damaged-input harness: real files of each format, damaged at random (bytes overwritten, a
# stretch cut out, the end cut off, a stretch repeated), read by lufs-measure and audio-probe.
# Every run must end within CHAOS_TIMEOUT seconds, by itself (never a signal: no crash), with one
# record per file that is either a measurement or an error carrying a code and a sentence.
# Usage: Tests/Chaos/mutate.sh [files] (default 120); BIN names the built tools (default .build/release).
set -uo pipefail
cd "$(dirname "$0")/../.."

COUNT="${1:-120}"
BIN="${BIN:-.build/release}"
LIMIT="${CHAOS_TIMEOUT:-60}"
SEED="${CHAOS_SEED:-$$}"
RANDOM=$SEED
for p in ffmpeg sox lame flac oggenc opusenc python3 jq; do
  command -v "$p" >/dev/null || { echo "mutate: needs $p (make test-deps installs it)" >&2; exit 2; }
done
export PATH="$PWD/$BIN:$PATH"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/audio-tools-mutate.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MAT="$WORK/material"
mkdir -p "$MAT" "$WORK/m"
{
  sox -n -r 44100 -c 2 -b 16 "$MAT/a.wav" synth 6 pinknoise sine 330 tremolo 2 50 gain -n -6 &&
  sox "$MAT/a.wav" -b 24 "$MAT/a.aiff" && flac -s -f -o "$MAT/a.flac" "$MAT/a.wav" &&
  lame --quiet -V 5 "$MAT/a.wav" "$MAT/a.mp3" && oggenc -Q -o "$MAT/a.ogg" "$MAT/a.wav" &&
  opusenc --quiet "$MAT/a.wav" "$MAT/a.opus" &&
  ffmpeg -v error -nostdin -i "$MAT/a.wav" -c:a aac -b:a 96k "$MAT/a.m4a" &&
  ffmpeg -v error -nostdin -i "$MAT/a.wav" -c:a aac -b:a 96k -f adts "$MAT/a.aac" &&
  ffmpeg -v error -nostdin -i "$MAT/a.wav" -c:a libopus -b:a 64k "$MAT/a.mka"
} >/dev/null 2>&1 || { echo "mutate: could not make the material" >&2; exit 2; }
SOURCES=("$MAT"/*)

# One damaged copy: python3 does the byte work, from a seed, so a failing case can be made again.
damage() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
b = bytearray(open(src, "rb").read())
kind = rng.choice(["overwrite", "cut", "truncate", "repeat", "header"])
n = len(b)
if kind == "overwrite":
    for _ in range(rng.randint(1, 64)):
        b[rng.randrange(n)] = rng.randrange(256)
elif kind == "header":
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(min(n, 512))] = rng.randrange(256)
elif kind == "cut":
    i = rng.randrange(n); del b[i:i + rng.randint(1, n // 4)]
elif kind == "truncate":
    del b[rng.randint(0, n - 1):]
else:
    i = rng.randrange(n); j = min(n, i + rng.randint(1, 4096)); b[i:i] = b[i:j]
open(dst, "wb").write(bytes(b))
print(kind)
PY
}

runs=0; crashes=0; hangs=0; bad=0; measured=0; refused=0
declare -A KINDS
check() {  # check TOOL FILE DESCRIPTION
  local out status
  out=$(timeout -s KILL "$LIMIT" "$1" --no-progress "$2" 2>/dev/null); status=$?
  runs=$((runs + 1))
  if [ $status -eq 137 ]; then echo "!! $1 did not end within ${LIMIT} s: $3"; hangs=$((hangs + 1)); return; fi
  if [ $status -ge 128 ]; then echo "!! $1 died with signal $((status - 128)): $3"; crashes=$((crashes + 1)); return; fi
  if [ "$(printf '%s\n' "$out" | grep -c .)" != 1 ] ||
     ! printf '%s\n' "$out" | jq -e '(.error | (.code | type == "string") and (.message | type == "string" and length > 0)) // (has("loudness") or has("probe"))' >/dev/null 2>&1; then
    echo "!! $1 wrote no usable record (status $status): $3"; bad=$((bad + 1)); return
  fi
  if printf '%s\n' "$out" | jq -e 'has("error")' >/dev/null; then refused=$((refused + 1)); else measured=$((measured + 1)); fi
}

for i in $(seq 1 "$COUNT"); do
  src=${SOURCES[$((RANDOM % ${#SOURCES[@]}))]}
  seed=$(( SEED * 1000 + i ))
  f="$WORK/m/$i-$(basename "$src")"
  kind=$(damage "$src" "$f" "$seed")
  KINDS[$kind]=$(( ${KINDS[$kind]:-0} + 1 ))
  what="$(basename "$src"), $kind (python seed $seed)"
  check lufs-measure "$f" "$what"
  check audio-probe "$f" "$what"
  rm -f "$f"
done

echo "mutate: $COUNT damaged files (seed $SEED): $(for k in "${!KINDS[@]}"; do printf '%s %s  ' "$k" "${KINDS[$k]}"; done)"
echo "mutate: $runs runs: $measured measured or probed, $refused refused with a code; crashes $crashes, hangs $hangs, runs without a usable record $bad"
[ $((crashes + hangs + bad)) -eq 0 ]
