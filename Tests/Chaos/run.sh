#!/usr/bin/env bash
# The kill harness: runs the tools' writing jobs and stops each at a random moment with SIGINT,
# SIGTERM or SIGKILL, then checks what a user relies on:
#   - the original is never damaged: byte-identical, or (--in-place, --write-tags) a complete file
#     of the same length that decodes cleanly;
#   - an output is absent or complete, never partial;
#   - a tool stopped by SIGINT or SIGTERM ends within CHAOS_GRACE seconds (no hang) and leaves no
#     temporary file behind; after SIGKILL, the next run in the same folder removes what it left;
#   - a cache the killed run was writing still answers the next run with the same figures.
# Usage: Tests/Chaos/run.sh [rounds] (default 60); BIN names the built tools (default .build/release).
set -uo pipefail
# Job control: each job in a process group of its own, and SIGINT not ignored in it (a script's
# background commands otherwise ignore SIGINT, so those kills would test nothing).
set -m
cd "$(dirname "$0")/../.."

ROUNDS="${1:-60}"
BIN="${BIN:-.build/release}"
GRACE="${CHAOS_GRACE:-20}"
SEED="${CHAOS_SEED:-$$}"
RANDOM=$SEED
for t in lufs-measure lufs-normalize; do
  [ -x "$BIN/$t" ] || { echo "chaos: $BIN/$t is missing; build first (make build)" >&2; exit 2; }
done
for p in ffmpeg ffprobe sox lame flac sha256sum; do
  command -v "$p" >/dev/null || { echo "chaos: needs $p (make test-deps installs it)" >&2; exit 2; }
done
export PATH="$PWD/$BIN:$PATH"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/audio-tools-chaos.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MAT="$WORK/material"
mkdir -p "$MAT"

# Material: 30 s of a loud, dynamic stereo signal in the formats the jobs write and rewrite.
{ sox -n -r 48000 -c 2 -b 24 "$MAT/song.wav" synth 30 pinknoise sine 220 tremolo 3 60 gain -n -3 &&
  flac -s -f -o "$MAT/song.flac" "$MAT/song.wav" && lame --quiet -V 4 "$MAT/song.wav" "$MAT/song.mp3"
} >/dev/null 2>&1 || { echo "chaos: could not make the material" >&2; exit 2; }
# Reports go to stdout; the shell's own notices of killed jobs stay out of them.
exec 2>"$WORK/shell.log"

duration() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1" 2>/dev/null; }
decodes() { [ -z "$(ffmpeg -v error -nostdin -i "$1" -f null - 2>&1)" ]; }
same_length() {  # same_length A B: durations within 0.06 s (an MP3's padding may differ)
  awk -v a="$(duration "$1")" -v b="$(duration "$2")" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d < 0.06) }'
}
# Our temporary names: .NAME.partial-…, .NAME.tags-…, .NAME.audioN-….m4a, .audio-tools-….
leftovers() { find "$1" -maxdepth 2 \( -name '.*.partial-*' -o -name '.*.tags-*' -o -name '.*.audio[0-9]*-*' -o -name '.audio-tools-*' \) 2>/dev/null; }

# The jobs, each run in the background in a fresh folder $1 holding a copy of the material. The
# tool is started as a simple command, so $pid is the tool's own process, not a subshell's.
JOBS=(inplace outdir tags m4a stdin cache)
start_job() {
  local D=$1 input=/dev/null
  local -a cmd
  case $2 in
    inplace) cmd=(lufs-normalize --no-progress --target -16 --in-place "$D/song.flac") ;;
    outdir)  cmd=(lufs-normalize --no-progress --target -14 --out-dir "$D/out" "$D/song.wav") ;;
    tags)    cmd=(lufs-normalize --no-progress --write-tags "$D/song.mp3") ;;
    m4a)     cmd=(lufs-normalize --no-progress --target -16 --format m4a --allow-loss --out-dir "$D/out" "$D/song.wav") ;;
    stdin)   cmd=(lufs-normalize --no-progress --target -16 --output "$D/out.wav" -); input="$D/song.wav" ;;
    cache)   cmd=(lufs-measure --no-progress --cache "$D/c.db" "$D/song.wav" "$D/song.flac" "$D/song.mp3") ;;
  esac
  "${cmd[@]}" <"$input" >/dev/null 2>>"$D.stderr" &
  pid=$!
}

# How long each job takes uninterrupted, so kills land anywhere in it.
declare -A TOOK
for j in "${JOBS[@]}"; do
  D="$WORK/time-$j"; mkdir -p "$D"; cp "$MAT"/* "$D"/
  start=$(date +%s%N)
  start_job "$D" "$j"; wait "$pid"
  TOOK[$j]=$(( ($(date +%s%N) - start) / 1000000 ))
done
CACHE_FIGURES=$(lufs-measure --no-progress "$MAT/song.wav" "$MAT/song.flac" "$MAT/song.mp3" 2>/dev/null \
  | grep -o '"integrated_lufs":[-0-9.]*' | tr '\n' ' ')

stopped=0; finished=0; fail=0; hangs=0; damaged=0; partial=0; left=0; swept=0; cachebad=0
declare -A SIGS=([INT]=0 [TERM]=0 [KILL]=0)
problem() { echo "!! round $1 ($2, SIG$3 after $4 ms): $5"; fail=$((fail + 1)); }

for round in $(seq 1 "$ROUNDS"); do
  j=${JOBS[$((RANDOM % ${#JOBS[@]}))]}
  sigs=(INT TERM KILL); sig=${sigs[$((RANDOM % 3))]}
  SIGS[$sig]=$((SIGS[$sig] + 1))
  delay=$(( (RANDOM * 32768 + RANDOM) % (TOOK[$j] + 1) ))
  D="$WORK/r$round"; mkdir -p "$D"; cp "$MAT"/* "$D"/
  start_job "$D" "$j"
  sleep "$(awk -v ms="$delay" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -s "$sig" "$pid" 2>/dev/null
  waited=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.1; waited=$((waited + 1))
    if [ $waited -ge $((GRACE * 10)) ]; then
      problem "$round" "$j" "$sig" "$delay" "still running ${GRACE} s after the signal"; hangs=$((hangs + 1))
      kill -KILL "$pid" 2>/dev/null; break
    fi
  done
  wait "$pid" 2>/dev/null; status=$?
  case $status in 130|143|137) stopped=$((stopped + 1)) ;; 0) finished=$((finished + 1)) ;; esac
  # The originals: untouched, or (rewritten in place) whole and decodable.
  for f in song.wav song.flac song.mp3; do
    if ! cmp -s "$MAT/$f" "$D/$f"; then
      if ! { same_length "$MAT/$f" "$D/$f" && decodes "$D/$f"; }; then
        problem "$round" "$j" "$sig" "$delay" "$f is damaged"; damaged=$((damaged + 1))
      fi
    fi
  done
  # Outputs: absent or complete.
  for f in "$D"/out/* "$D/out.wav"; do
    [ -e "$f" ] || continue
    if ! { same_length "$MAT/song.wav" "$f" && decodes "$f"; }; then
      problem "$round" "$j" "$sig" "$delay" "${f#"$D"/} is partial"; partial=$((partial + 1))
    fi
  done
  # Temporaries: none after SIGINT/SIGTERM; after SIGKILL, the next run removes them.
  rest=$(leftovers "$D")
  if [ -n "$rest" ] && [ "$sig" != KILL ]; then
    problem "$round" "$j" "$sig" "$delay" "left $(echo "$rest" | wc -l) temporary file(s): $(echo "$rest" | sed "s|$D/||" | tr '\n' ' ')"
    left=$((left + 1))
  fi
  rm -rf "$D/out" "$D/out.wav"
  start_job "$D" "$j"; wait "$pid"
  if [ -n "$rest" ] && [ "$sig" = KILL ]; then
    if [ -n "$(leftovers "$D")" ]; then
      problem "$round" "$j" "$sig" "$delay" "the next run kept what the killed one left: $(leftovers "$D" | sed "s|$D/||" | tr '\n' ' ')"
      left=$((left + 1))
    else
      swept=$((swept + 1))
    fi
  fi
  # A cache the killed run wrote still answers, with the same figures.
  if [ "$j" = cache ]; then
    got=$(lufs-measure --no-progress --cache "$D/c.db" "$D/song.wav" "$D/song.flac" "$D/song.mp3" 2>/dev/null \
      | grep -o '"integrated_lufs":[-0-9.]*' | tr '\n' ' ')
    [ "$got" = "$CACHE_FIGURES" ] || { problem "$round" "$j" "$sig" "$delay" "the cache answered '$got', not '$CACHE_FIGURES'"; cachebad=$((cachebad + 1)); }
  fi
  rm -rf "$D" "$D.stderr"
done

echo "chaos: $ROUNDS rounds (seed $SEED): SIGINT ${SIGS[INT]}, SIGTERM ${SIGS[TERM]}, SIGKILL ${SIGS[KILL]}"
echo "chaos: $stopped runs stopped by the signal, $finished finished before it"
echo "chaos: jobs and their uninterrupted times (ms): $(for j in "${JOBS[@]}"; do printf '%s %s  ' "$j" "${TOOK[$j]}"; done)"
echo "chaos: hangs $hangs, damaged originals $damaged, partial outputs $partial, leftovers $left (swept after SIGKILL: $swept), caches answering wrong $cachebad"
[ $fail -eq 0 ]
