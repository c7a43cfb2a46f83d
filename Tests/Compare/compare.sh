#!/usr/bin/env bash
# Runs every tool with the binaries in $OLD and in $NEW over the same material and diffs what each
# printed and wrote. For a change that must not change behaviour (a refactor): no output and exit
# status 0 mean nothing did.
#
#   OLD=old/release NEW=.build/release bash Tests/Compare/compare.sh
#
# What it compares, for each case: stdout (records), stderr, the exit status, and every file the
# runs wrote (text files line by line, others by checksum; SQLite caches left out). Each case runs
# at --jobs 1 and 2; the cached ones cold then warm. The material: Fixtures/clips and a set made
# here with ffmpeg and sox (every decoder path, multi-stream video, surround, the refusals). The
# cases: every tool's main path, --cache, the pipeline, media files, the limiter, --write-tags,
# vo-align, paths that aren't files, usage errors, --help, man pages and completions.
#
# Normalised before comparing (each differs between two runs of the SAME binary, so it can't show a
# change); nothing else is:
#   - `"ctime_nsec":N,"ctime_sec":N` in records becomes 0: the inode change time of each side's copy
#     of the material (cp keeps modification times, not change times);
#   - `[codec @ 0x55d0c0ffee00]` in an ffmpeg message a record quotes becomes `[codec @ 0x…]`: the
#     address of ffmpeg's decoder in memory, which changes from run to run.
#
# Exit status: 0 identical (nothing printed; VERBOSE=1 prints a count), 1 something differs (the
# diffs are printed), 2 bad set-up. KEEP=1 keeps the work folder to look at.
set -u
OLD=${OLD:?set OLD to the folder of the old binaries}
NEW=${NEW:?set NEW to the folder of the new binaries}
OLD=$(cd "$OLD" && pwd); NEW=$(cd "$NEW" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
for p in ffmpeg sox; do command -v $p >/dev/null || { echo "compare.sh: needs $p" >&2; exit 2; }; done
# No cache from the environment: the cases say when they use one.
unset AUDIO_TOOLS_CACHE
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
# KEEP=1 keeps the work folder (material, each side's files, out-old/ and out-new/) and names it.
if [ "${KEEP:-0}" = 1 ]; then trap 'echo "compare.sh: kept $WORK" >&2' EXIT; else trap 'rm -rf "$WORK"' EXIT; fi
M=$WORK/material
mkdir -p "$M/media" "$M/bad" "$M/vo"

# --- material (made once, then copied with its times to each side) -------------------------
q() { ffmpeg -nostdin -loglevel error -y "$@"; }
cp -p "$ROOT"/Fixtures/clips/* "$M/media/"
q -f lavfi -i "sine=f=440:d=6:r=48000" -f lavfi -i "anoisesrc=d=6:c=pink:r=48000:a=0.2" \
  -filter_complex "[0][1]amerge=inputs=2,volume=0.5" -c:a pcm_s24le "$M/media/tone-noise.wav"
q -i "$M/media/tone-noise.wav" -c:a flac "$M/media/tone-noise.flac"
q -i "$M/media/tone-noise.wav" -c:a libmp3lame -b:a 160k "$M/media/tone-noise.mp3"
q -i "$M/media/tone-noise.wav" -c:a libvorbis -q:a 4 "$M/media/tone-noise.ogg"
q -i "$M/media/tone-noise.wav" -c:a libopus -b:a 96k "$M/media/tone-noise.opus"
q -i "$M/media/tone-noise.wav" -c:a aac -b:a 128k "$M/media/tone-noise.m4a"
q -i "$M/media/tone-noise.wav" -c:a alac "$M/media/tone-alac.m4a"
q -f lavfi -i "sine=f=1000:d=4:r=44100" -af volume=-12dB -c:a pcm_s16le "$M/media/mono.wav"
q -f lavfi -i "anoisesrc=d=5:c=pink:r=48000:a=0.3" -filter_complex "[0]asplit=6[a][b][c][d][e][f];[a][b][c][d][e][f]join=inputs=6:channel_layout=5.1" \
  -c:a pcm_s24le "$M/media/surround51.wav"
q -f lavfi -i "anullsrc=r=48000:cl=stereo" -t 3 -c:a pcm_s16le "$M/media/silence.wav"
q -f lavfi -i "sine=f=300:d=1.5:r=48000" -c:a pcm_f32le "$M/media/short-float.wav"
q -f lavfi -i "testsrc=s=160x90:d=5:r=10" -f lavfi -i "sine=f=500:d=5:r=48000" -f lavfi -i "anoisesrc=d=5:r=48000:a=0.1" \
  -map 0:v -map 1:a -map 2:a -c:v libx264 -preset ultrafast -c:a aac -metadata:s:a:0 language=eng \
  -metadata:s:a:1 language=fra "$M/media/two-streams.mp4"
q -f lavfi -i "sine=f=700:d=4:r=48000" -c:a libvorbis "$M/media/vorbis.mkv"
q -f lavfi -i "testsrc=s=160x90:d=2:r=10" -c:v libx264 -preset ultrafast "$M/media/silent-video.mp4"
: > "$M/bad/empty.wav"
echo "not audio at all" > "$M/bad/notes.wav"
head -c 60000 "$M/media/tone-noise.wav" > "$M/bad/cut.wav"
head -c 30000 "$M/media/tone-noise.flac" > "$M/bad/cut.flac"
printf 'RIFF\x24\x00\x00\x00WAVEjunk' > "$M/bad/header-only.wav"
# vo-align: a backing, a take that hears it 120 ms late under a voice, and a take with no bleed.
q -f lavfi -i "anoisesrc=d=12:c=pink:r=48000:a=0.3:seed=7" -af "lowpass=3000" -c:a pcm_s16le "$M/vo/backing.wav"
q -i "$M/vo/backing.wav" -f lavfi -i "sine=f=220:d=12:r=48000" -filter_complex \
  "[0]atrim=start=2:end=10,adelay=120,volume=0.2[b];[1]atrim=end=8,volume=0.3[v];[b][v]amix=inputs=2:normalize=0" \
  -ac 1 -c:a pcm_s16le "$M/vo/take-late.wav"
q -f lavfi -i "sine=f=330:d=6:r=48000" -c:a pcm_s16le "$M/vo/take-nobleed.wav"
touch -d '2024-01-02 03:04:05' "$M"/media/* "$M"/bad/* "$M"/vo/*

# --- runs ------------------------------------------------------------------------------------
# Normalises a case's output in place (see the header); binary output is left as it is.
normalise() {
  grep -Iq . "$1" 2>/dev/null || return 0
  sed -E -e 's/"ctime_nsec":[0-9]+,"ctime_sec":[0-9]+/"ctime_nsec":0,"ctime_sec":0/g' \
    -e 's/(\[[A-Za-z0-9_]+ @ )0x[0-9a-f]+\]/\10x…]/g' "$1" > "$1.n" && mv "$1.n" "$1"
}
# run SIDE NAME CMD...: in SIDE's copy of the material, records the output, stderr and status.
run() {
  local side=$1 name=$2; shift 2
  local dir=$WORK/$side bin o
  [ "$side" = old ] && bin=$OLD || bin=$NEW
  o=$WORK/out-$side
  mkdir -p "$o"
  ( cd "$dir" && PATH="$bin:$PATH" "$@" ) > "$o/$name.out" 2> "$o/$name.err" < /dev/null
  echo "exit $?" >> "$o/$name.out"
  normalise "$o/$name.out"; normalise "$o/$name.err"
}
# pipe SIDE NAME 'shell pipeline' (the tools by name, resolved in SIDE's binaries)
pipe() { run "$1" "$2" bash -o pipefail -c "$3"; }

for side in old new; do
  cp -a "$M" "$WORK/$side"
  for j in 1 2; do
    run $side "probe-j$j" audio-probe -j $j media bad
    run $side "probe-deep-j$j" audio-probe --deep -j $j media bad
    run $side "filter-j$j" library-filter -j $j --all media bad
    run $side "filter-query-j$j" library-filter -j $j --query 'tone -format:mp3' --sort duration-,path --limit 5 media
    run $side "measure-j$j" lufs-measure -j $j --timeline media bad
    run $side "measure-gate-j$j" lufs-measure -j $j --preset ebu-r128 --junit junit-j$j.xml media
    run $side "measure-album-j$j" lufs-measure -j $j --album media
    run $side "measure-stream1-j$j" lufs-measure -j $j --stream 1 media/two-streams.mp4
    run $side "measure-layout-j$j" lufs-measure -j $j --layout 5.1 --dual-mono media/surround51.wav media/mono.wav
    pipe $side "pipeline-j$j" "audio-probe media | library-filter | lufs-measure | lufs-normalize -j $j --preset podcast --format flac --out-dir out-j$j"
    pipe $side "normalize-media-j$j" "lufs-measure media/two-streams.mp4 media/tone-noise.m4a | lufs-normalize -j $j --preset social --allow-loss --out-dir outm-j$j"
    run $side "normalize-refuse-j$j" lufs-normalize -j $j --target -16 --out-dir out-j$j media/tone-noise.mp3 media/mono.wav bad
    run $side "normalize-limit-j$j" lufs-normalize -j $j --target -9 --true-peak -1 --output-template 'lim-j'$j'/{stem}.{ext}' media/tone-noise.wav media/surround51.wav
    # the dry run first: a written tag changes the file's time, which the next measurement records
    pipe $side "tags-dry-j$j" "mkdir -p tags-j$j && cp -p media/tone-noise.flac media/tone-noise.opus media/tone-noise.mp3 tags-j$j/ && lufs-measure --album tags-j$j | lufs-normalize -j $j --album --write-tags --dry-run --target -16"
    pipe $side "tags-j$j" "lufs-measure --album tags-j$j | lufs-normalize -j $j --album --write-tags"
    run $side "align-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 vo/take-late.wav vo/take-nobleed.wav
    run $side "align-out-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --out-dir aligned-j$j --mix "aligned-j$j/mix-{stem}.wav" vo/take-late.wav
    run $side "align-latency-j$j" vo-align -j $j --latency-ms 120 --start-at 2 --out-dir shifted-j$j vo/take-late.wav
    for c in cold warm; do
      run $side "probe-cache-$c-j$j" audio-probe -j $j --cache cache-j$j.sqlite media bad
      run $side "filter-cache-$c-j$j" library-filter -j $j --cache cache-j$j.sqlite media
      run $side "measure-cache-$c-j$j" lufs-measure -j $j --cache cache-j$j.sqlite --preset podcast media
    done
  done
  for t in lufs-measure lufs-normalize vo-align audio-probe library-filter; do
    run $side "$t-help" $t --help
    run $side "$t-man" audio-tools $t --generate-man
    for sh in bash zsh fish; do run $side "$t-completion-$sh" audio-tools $t --generate-completion $sh; done
  done
  run $side "multicall-help" audio-tools --help
  run $side "multicall-bad" audio-tools nothing
  # usage errors: message and status
  run $side "usage-1" lufs-measure --target x media
  run $side "usage-2" lufs-measure --tolerance 2 media
  run $side "usage-3" lufs-measure --target 5 media
  run $side "usage-4" lufs-measure --junit j.xml media
  run $side "usage-5" lufs-measure --album-by folder media
  run $side "usage-6" lufs-normalize media
  run $side "usage-7" lufs-normalize --target -16 --in-place --out-dir o media
  run $side "usage-8" lufs-normalize --target -16 --peak ignore --format flac --out-dir o media
  run $side "usage-9" lufs-normalize --target -16 --format flac --bit-depth 32 --out-dir o media
  run $side "usage-10" lufs-normalize --target -16 --fade-curve linear --fade-velocity 3 --out-dir o media
  run $side "usage-11" vo-align --tolerance-ms 3 vo/take-late.wav
  run $side "usage-12" vo-align --min-confidence 2 --reference vo/backing.wav vo/take-late.wav
  run $side "usage-13" library-filter --sort nonsense media
  run $side "usage-14" library-filter --limit -1 media
  run $side "usage-15" audio-probe --bogus media
  run $side "usage-16" lufs-measure --preset nope media
  run $side "usage-17" lufs-normalize --dry-run --target -16 media
  run $side "usage-18" lufs-measure -j 0 media
  # paths that aren't usable files, read from standard input: missing, a folder, a FIFO, a dangling link
  mkdir -p "$WORK/$side/edge/dir"; mkfifo "$WORK/$side/edge/fifo"; ln -s nowhere "$WORK/$side/edge/dangling"
  for t in audio-probe library-filter lufs-measure "lufs-normalize --target -16 --out-dir edge-out" "vo-align --latency-ms 5 --out-dir edge-vo"; do
    pipe $side "edge-${t%% *}" "printf '%s\\n' edge/missing.wav edge/dir edge/fifo edge/dangling | timeout 20 $t"
  done
  pipe $side "edge-write-tags" "lufs-normalize --write-tags --overwrite media/mono.wav"
  # What the runs wrote (every file but the caches: SQLite pages carry times of writing): a text
  # file's normalised content as a case of its own, so a difference shows as a diff; the others'
  # checksums, and the list of every written path.
  mkdir -p "$WORK/out-$side/written"
  ( cd "$WORK/$side" && find . -type f ! -name '*.sqlite*' -newer "$M/vo/backing.wav" -print | sort ) \
    > "$WORK/out-$side/written-paths.out"
  while IFS= read -r f; do
    w="$WORK/out-$side/written/$(printf '%s' "${f#./}" | tr / :)"
    if grep -Iq . "$WORK/$side/$f" 2>/dev/null; then
      cp "$WORK/$side/$f" "$w"; normalise "$w"
    else
      md5sum < "$WORK/$side/$f" > "$w.md5"
    fi
  done < "$WORK/out-$side/written-paths.out"
done

status=0
cd "$WORK"
for n in $( (cd out-old && find . -type f; cd ../out-new && find . -type f) | sed 's|^\./||' | sort -u); do
  if [ ! -f "out-old/$n" ] || [ ! -f "out-new/$n" ]; then
    echo "== only in $([ -f "out-old/$n" ] && echo OLD || echo NEW): $n"; status=1
  elif ! cmp -s "out-old/$n" "out-new/$n"; then
    echo "== differs: $n"; diff "out-old/$n" "out-new/$n" | head -40; status=1
  fi
done
if [ $status = 0 ] && [ "${VERBOSE:-0}" = 1 ]; then
  echo "compare.sh: all $(find out-old -type f | wc -l) outputs identical (records, stderr, exit status, written files, help, man pages, completions)" >&2
fi
exit $status
