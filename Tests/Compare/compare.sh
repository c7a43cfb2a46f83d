#!/usr/bin/env bash
# Runs every tool with the binaries in $OLD and in $NEW over the same material and diffs what each
# printed and wrote. For a change that must not change behaviour (a refactor): no output and exit
# status 0 mean nothing did.
#
#   OLD=old/release NEW=.build/release bash Tests/Compare/compare.sh
#
# What it compares, for each case: stdout (records), stderr, the exit status, and every file the
# runs wrote (text files line by line, others by checksum; SQLite caches left out). Each case runs
# at --jobs 1 and 2; the cached ones cold then warm. The cases:
#   - audio-probe: plain, --deep, --cache, paths and audio on standard input;
#   - library-filter: --all, --query, --sort, --offset/--limit/--page-info, --get, the
#     constraints, --no-summary, records from audio-probe, --cache;
#   - lufs-measure: plain, --timeline, every --preset gate and limit, --junit (a file, /dev/stdout,
#     an empty folder), --album, --stream, --layout, --dual-mono, --summary, --decode-only;
#     QC (--qc, each --qc-preset, every QC gate); platforms (--platforms, --platform, with
#     --album); dialogue (--dialogue, --gate-on, --min-dialogue-share, the netflix preset, a
#     missing and a damaged weights file); --report; --keep-analysis; --cache, --cache-prune;
#   - standard input (`-`): WAV, unknown-length WAV, FLAC, MP3, Ogg, raw PCM, a pipe cut short,
#     bytes that aren't audio, nothing; lufs-normalize --output FILE and --output -;
#   - --follow: on standard input and on a file (ending at its stated length, or after 5 s idle),
#     with --interval and a gate, and SIGINT ending it;
#   - lufs-normalize: records from lufs-measure on a pipe and from a file, bare paths, every preset,
#     the limiter, --peak reduce, --format/--bit-depth/--sample-rate, fades, --album, media files,
#     dialogue-gated targets, --lossless-gain (MP3, AAC, ADTS, Opus, MP4; --dry-run, --in-place,
#     refusals), --write-tags (album and track, dry run and real, twice), --report, a stale record,
#     --cache with lufs-measure --keep-analysis;
#   - vo-align: a found latency, --start-at auto, a known latency (alone, and checked against the
#     reference: agreeing and not), records on standard input, --out-dir, --mix, --duck-db,
#     --correct-drift, a video take, --max-latency-ms and --min-confidence refusals;
#   - refusals: damaged and empty files, paths that aren't files, usage errors;
#   - --help, --version, man pages and completions of every tool, and the multicall program.
#
# Normalised before comparing (each differs between two runs of the SAME binary, so it can't show a
# change); nothing else is:
#   - `"ctime_nsec":N,"ctime_sec":N` in records becomes 0: the inode change time of each side's copy
#     of the material (cp keeps modification times, not change times);
#   - `[codec @ 0x55d0c0ffee00]` in an ffmpeg message a record quotes becomes `[codec @ 0x…]`: the
#     address of ffmpeg's decoder in memory, which changes from run to run.
#
# Needs ffmpeg, sox and jq, and the speech detector's weights (dialogue cases): $AUDIO_TOOLS_SPEECH_MODEL,
# else the repository's .build/models/silero_vad_16k_op15.onnx (`make deps` fetches it). Both sides
# are given the same file. espeak-ng, when installed, speaks the dialogue material.
#
# Exit status: 0 identical (nothing printed; VERBOSE=1 prints a count), 1 something differs (the
# diffs are printed), 2 bad set-up. KEEP=1 keeps the work folder to look at.
set -u
OLD=${OLD:?set OLD to the folder of the old binaries}
NEW=${NEW:?set NEW to the folder of the new binaries}
OLD=$(cd "$OLD" && pwd); NEW=$(cd "$NEW" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
for p in ffmpeg sox jq; do command -v $p >/dev/null || { echo "compare.sh: needs $p" >&2; exit 2; }; done
export AUDIO_TOOLS_SPEECH_MODEL=${AUDIO_TOOLS_SPEECH_MODEL:-$ROOT/.build/models/silero_vad_16k_op15.onnx}
[ -f "$AUDIO_TOOLS_SPEECH_MODEL" ] || {
  echo "compare.sh: the speech detector's weights are not at $AUDIO_TOOLS_SPEECH_MODEL: run make deps, or set AUDIO_TOOLS_SPEECH_MODEL to the file" >&2; exit 2; }
# No cache from the environment: the cases say when they use one.
unset AUDIO_TOOLS_CACHE
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
# KEEP=1 keeps the work folder (material, each side's files, out-old/ and out-new/) and names it.
if [ "${KEEP:-0}" = 1 ]; then trap 'echo "compare.sh: kept $WORK" >&2' EXIT; else trap 'rm -rf "$WORK"' EXIT; fi
M=$WORK/material
mkdir -p "$M/media" "$M/bad" "$M/vo" "$M/qc" "$M/speech" "$M/stdin" "$M/lossless" "$M/loud" "$M/empty-folder"

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
# the late take as a camera's video (AAC in MP4)
q -f lavfi -i "testsrc=s=64x48:d=8:r=10" -i "$M/vo/take-late.wav" -c:v libx264 -preset ultrafast -c:a aac -b:a 192k \
  -shortest "$M/vo/take-late.mp4"
# QC: clipped and over full scale; digital silence at the head, the tail and a 50 ms dropout;
# one channel the other inverted; a dead right channel.
q -f lavfi -i "sine=f=997:d=4:r=48000" -af "volume=12" -ac 2 -c:a pcm_s16le "$M/qc/clipped.wav"
q -f lavfi -i "anoisesrc=d=5:c=pink:r=48000:a=0.2:seed=3" -f lavfi -i "anoisesrc=d=5:c=pink:r=48000:a=0.2:seed=4" \
  -filter_complex "[0][1]amerge=inputs=2,adelay=1500|1500,apad=pad_dur=6,volume=enable='between(t,4,4.05)':volume=0" \
  -c:a pcm_s24le "$M/qc/gaps.wav"
q -f lavfi -i "anoisesrc=d=5:c=pink:r=48000:a=0.2:seed=5" -af "pan=stereo|c0=c0|c1=-1*c0" -c:a pcm_s16le "$M/qc/inverted.wav"
q -f lavfi -i "anoisesrc=d=5:c=pink:r=48000:a=0.2:seed=6" -af "pan=stereo|c0=c0|c1=0*c0" -c:a pcm_s16le "$M/qc/dead-right.wav"
# Dialogue: speech over a music bed, the bed alone (under the dialogue share: the fallback), and
# the speech in the centre of a 5.1 mix. espeak-ng speaks it; without it, a voiced buzz (vowel-like
# formants, syllable rhythm) stands in.
if command -v espeak-ng >/dev/null; then
  espeak-ng -w "$WORK/said.wav" "Good evening. The loudness of a film is judged on its dialogue, not on the \
music under it. This sentence is long enough to be found, measured and gated by the speech detector."
else
  sox -n -r 22050 -c 1 "$WORK/said.wav" synth 9 sawtooth 130 lowpass 2500 tremolo 4 90 gain -6
fi
q -i "$WORK/said.wav" -af "aresample=48000,adelay=1000,apad=pad_dur=3" -ac 1 -c:a pcm_s16le "$WORK/voice.wav"
q -f lavfi -i "sine=f=196:d=16:r=48000" -f lavfi -i "anoisesrc=d=16:c=pink:r=48000:a=0.05:seed=9" \
  -filter_complex "[0][1]amix=inputs=2:normalize=0,volume=0.3" -ac 1 -c:a pcm_s16le "$WORK/bed.wav"
q -i "$WORK/voice.wav" -i "$WORK/bed.wav" -filter_complex "[0][1]amix=inputs=2:normalize=0:duration=shortest" \
  -ac 2 -c:a pcm_s24le "$M/speech/dialogue.wav"
q -i "$WORK/bed.wav" -ac 2 -t 10 -c:a pcm_s24le "$M/speech/music-only.wav"
q -i "$WORK/voice.wav" -i "$WORK/bed.wav" -filter_complex "[1]asplit=5[l][r][lfe][ls][rs];[l][r][0][lfe][ls][rs]join=inputs=6:\
channel_layout=5.1:map=0.0-FL|1.0-FR|2.0-FC|3.0-LFE|4.0-BL|5.0-BR" -t 12 -c:a pcm_s24le "$M/speech/film51.wav"
# Standard input: what ffmpeg writes to a pipe (a WAV of unknown length) and headerless PCM.
q -i "$M/media/tone-noise.wav" -c:a pcm_s16le -f wav - > "$M/stdin/unknown-length.wav"
q -i "$M/media/tone-noise.wav" -c:a pcm_s16le -f s16le "$M/stdin/tone-noise.s16"
# Lossless gain: quiet MP3, AAC (M4A and ADTS) and Opus, and a loud MP3 the ceiling holds back.
q -f lavfi -i "sine=f=440:d=5:r=44100" -af volume=-8dB -ac 2 -c:a libmp3lame -b:a 128k "$M/lossless/song.mp3"
q -f lavfi -i "sine=f=440:d=5:r=44100" -af volume=-8dB -ac 2 -c:a aac -b:a 128k "$M/lossless/song.m4a"
q -f lavfi -i "sine=f=440:d=5:r=44100" -af volume=-8dB -ac 2 -c:a aac -b:a 128k -f adts "$M/lossless/song.aac"
q -f lavfi -i "sine=f=440:d=5:r=48000" -af volume=-8dB -ac 2 -c:a libopus -b:a 96k "$M/lossless/song.opus"
q -f lavfi -i "anoisesrc=d=5:c=pink:r=44100:a=0.9:seed=2" -ac 2 -c:a libmp3lame -b:a 192k "$M/lossless/loud.mp3"
# A loud master the limiter works on (for --keep-analysis).
sox -R -n -r 48000 -c 2 -b 24 "$M/loud/master.wav" synth 10 pinknoise synth 10 sine mix 110 tremolo 0.3 60 gain -14
touch -d '2024-01-02 03:04:05' "$M"/*/*

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

# follow-sigint SIDE NAME: `lufs-measure --follow -` reading 6 s of raw PCM from a pipe that stays
# open; once the line at 6 s is out (all the audio read), SIGINT ends it: the final record of what
# was read, its note, and the status 130.
follow_sigint() {
  local side=$1 name=$2 dir=$WORK/$1 bin o pid i
  [ "$side" = old ] && bin=$OLD || bin=$NEW
  o=$WORK/out-$side
  mkfifo "$dir/follow.fifo"
  # the writer: the audio, then a sleep holding the pipe open (exec: $! is the sleep once cat is done)
  ( cat "$dir/stdin/tone-noise.s16" && exec sleep 60 ) > "$dir/follow.fifo" &
  local writer=$!
  ( cd "$dir" && exec "$bin/lufs-measure" --follow --raw 48000:2:s16le - < follow.fifo ) > "$o/$name.out" 2> "$o/$name.err" &
  pid=$!
  for i in $(seq 300); do
    grep -q '"seconds":6[,}]' "$o/$name.out" 2>/dev/null && break
    sleep 0.1
  done
  kill -INT $pid; wait $pid; echo "exit $?" >> "$o/$name.out"
  kill $writer 2>/dev/null; wait $writer 2>/dev/null
  rm -f "$dir/follow.fifo"
  normalise "$o/$name.out"; normalise "$o/$name.err"
}

for side in old new; do
  cp -a "$M" "$WORK/$side"
  for j in 1 2; do
    # audio-probe, library-filter
    run $side "probe-j$j" audio-probe -j $j media bad
    run $side "probe-deep-j$j" audio-probe --deep -j $j media bad
    pipe $side "probe-paths-stdin-j$j" "printf '%s\\n' media/mono.wav lossless/song.opus bad/cut.wav | audio-probe -j $j"
    pipe $side "probe-audio-stdin-j$j" "cat media/tone-noise.flac | audio-probe -j $j -"
    pipe $side "probe-audio-stdin-deep-j$j" "cat media/tone-noise.mp3 | audio-probe --deep -j $j -"
    run $side "filter-j$j" library-filter -j $j --all media bad
    run $side "filter-query-j$j" library-filter -j $j --query 'tone -format:mp3' --sort duration-,path --limit 5 media
    run $side "filter-query2-j$j" library-filter -j $j --query 'sample_rate:48000.. duration:..5.5 -codec:pcm' --sort channels-,duration media qc speech
    run $side "filter-query3-j$j" library-filter -j $j --query '"tone noise" format:' --sort size media
    run $side "filter-page-j$j" library-filter -j $j --sort duration-,path --offset 2 --limit 3 --page-info page-j$j.json media qc
    run $side "filter-lastpage-j$j" library-filter -j $j --sort path --offset 12 --limit 10 --page-info lastpage-j$j.json media
    run $side "filter-constraints-j$j" library-filter -j $j --all --no-summary --min-duration 4 --max-duration 5.5 --min-sample-rate 48000 --channels 2 media qc
    run $side "filter-deep-j$j" library-filter -j $j --deep --all media bad
    pipe $side "filter-get-j$j" "id=\$(library-filter --no-summary --sort path media | jq -r .library.id | sed -n 3p) && library-filter -j $j --get \$id --get 000000000000000000000000 media"
    pipe $side "filter-records-j$j" "audio-probe media lossless | library-filter -j $j --query tone --sort path"
    # lufs-measure
    run $side "measure-j$j" lufs-measure -j $j --timeline media bad
    run $side "measure-gate-j$j" lufs-measure -j $j --preset ebu-r128 --junit junit-j$j.xml media
    for p in ebu-r128-s1 atsc-a85 arib-tr-b32 op-59 social podcast; do
      run $side "measure-preset-$p-j$j" lufs-measure -j $j --preset $p --summary media/tone-noise.wav media/mono.wav media/short-float.wav media/silence.wav
    done
    run $side "measure-limits-j$j" lufs-measure -j $j --target -20 --tolerance 2 --max-true-peak -3 --max-short-term -24 --max-momentary -20 --junit limits-j$j.xml media
    run $side "measure-junit-stdout-j$j" lufs-measure -j $j --preset podcast --junit /dev/stdout media/mono.wav media/tone-noise.wav
    run $side "measure-empty-gate-j$j" lufs-measure -j $j --preset ebu-r128 --junit empty-j$j.xml empty-folder
    run $side "measure-empty-j$j" lufs-measure -j $j empty-folder
    run $side "measure-album-j$j" lufs-measure -j $j --album media
    run $side "measure-album-folder-j$j" lufs-measure -j $j --album --album-by folder --summary media lossless
    run $side "measure-stream1-j$j" lufs-measure -j $j --stream 1 media/two-streams.mp4
    run $side "measure-layout-j$j" lufs-measure -j $j --layout 5.1 --dual-mono media/surround51.wav media/mono.wav
    run $side "measure-decode-only-j$j" lufs-measure -j $j --decode-only media
    pipe $side "measure-paths-stdin-j$j" "printf '%s\\n' media/mono.wav '{\"path\":\"media/tone-noise.flac\",\"keep\":1}' 'not json {' | lufs-measure -j $j"
    # QC
    run $side "qc-j$j" lufs-measure -j $j --qc qc media/tone-noise.wav media/surround51.wav media/mono.wav media/silence.wav media/short-float.wav
    for p in acx streaming broadcast; do
      run $side "qc-preset-$p-j$j" lufs-measure -j $j --qc-preset $p --junit qc-$p-j$j.xml qc media/tone-noise.wav
    done
    run $side "qc-gates-j$j" lufs-measure -j $j --max-clipped-runs 1 --max-overs 0 --min-correlation 0.5 --max-head-silence 1 \
      --max-tail-silence 0.5 --no-dropouts --no-dead-channels --no-inverted-channels --junit qc-gates-j$j.xml --summary qc
    run $side "qc-preset-override-j$j" lufs-measure -j $j --qc-preset acx --max-head-silence 2 --max-clipped-runs 5 qc
    run $side "qc-stream-j$j" lufs-measure -j $j --qc --stream 1 media/two-streams.mp4
    run $side "qc-streams-j$j" lufs-measure -j $j --qc media/two-streams.mp4
    run $side "qc-all-j$j" lufs-measure -j $j --preset social --qc-preset streaming --platforms --junit qc-all-j$j.xml \
      --report rep-qc-j$j --summary qc media/tone-noise.wav
    # platforms
    run $side "platforms-j$j" lufs-measure -j $j --platforms media qc/clipped.wav
    run $side "platform-some-j$j" lufs-measure -j $j --platform spotify,youtube,apple-music --summary media/tone-noise.wav media/silence.wav qc/clipped.wav
    run $side "platform-loud-j$j" lufs-measure -j $j --platform spotify-loud,spotify-quiet,tidal,amazon-music,deezer,apple-podcasts qc loud
    run $side "platforms-album-j$j" lufs-measure -j $j --platforms --album --summary media lossless
    # dialogue
    run $side "dialogue-j$j" lufs-measure -j $j --dialogue --timeline speech media/tone-noise.wav media/mono.wav media/silence.wav
    run $side "dialogue-netflix-j$j" lufs-measure -j $j --preset netflix --junit netflix-j$j.xml --summary speech
    run $side "dialogue-gate-on-j$j" lufs-measure -j $j --gate-on dialogue --target -24 --tolerance 3 speech/dialogue.wav speech/music-only.wav
    run $side "dialogue-programme-j$j" lufs-measure -j $j --preset netflix --gate-on programme speech/dialogue.wav
    run $side "dialogue-share-j$j" lufs-measure -j $j --preset netflix --min-dialogue-share 0.9 speech/dialogue.wav
    run $side "dialogue-stream-j$j" lufs-measure -j $j --dialogue media/two-streams.mp4
    run $side "dialogue-report-j$j" lufs-measure -j $j --preset netflix --report rep-dlg-j$j speech
    pipe $side "dialogue-normalize-j$j" "lufs-measure --dialogue speech | lufs-normalize -j $j --preset netflix --out-dir dlg-j$j"
    run $side "dialogue-normalize-bare-j$j" lufs-normalize -j $j --gate-on dialogue --target -20 --out-dir dlg-bare-j$j speech/dialogue.wav speech/film51.wav
    pipe $side "dialogue-normalize-stale-j$j" "lufs-measure speech/dialogue.wav | lufs-normalize -j $j --preset netflix --out-dir dlg-stale-j$j"
    # --report
    run $side "report-j$j" lufs-measure -j $j --preset ebu-r128 --report rep-j$j media bad
    run $side "report-streams-j$j" lufs-measure -j $j --max-short-term -24 --max-momentary -20 --report rep-streams-j$j media/two-streams.mp4
    run $side "report-stream1-j$j" lufs-measure -j $j --stream 1 --report rep-stream1-j$j media/two-streams.mp4
    run $side "report-nogate-j$j" lufs-measure -j $j --report rep-nogate-j$j media/mono.wav media/short-float.wav media/silence.wav
    pipe $side "report-normalize-j$j" "lufs-measure media/tone-noise.wav media/mono.wav | lufs-normalize -j $j --preset podcast --out-dir nrep-out-j$j --report nrep-j$j"
    run $side "report-normalize-bare-j$j" lufs-normalize -j $j --target -9 --out-dir nrep-bare-out-j$j --report nrep-bare-j$j media/tone-noise.wav media/mono.wav media/silence.wav
    # standard input: audio
    for f in media/tone-noise.wav stdin/unknown-length.wav media/tone-noise.flac media/tone-noise.mp3 media/tone-noise.ogg; do
      pipe $side "stdin-${f##*/}-j$j" "cat $f | lufs-measure -j $j --preset podcast -"
    done
    pipe $side "stdin-raw-j$j" "cat stdin/tone-noise.s16 | lufs-measure -j $j --raw 48000:2:s16le --timeline -"
    pipe $side "stdin-cut-wav-j$j" "head -c 100000 media/tone-noise.wav | lufs-measure -j $j -"
    pipe $side "stdin-cut-flac-j$j" "head -c 40000 media/tone-noise.flac | lufs-measure -j $j -"
    pipe $side "stdin-not-audio-j$j" "printf '\\000\\001\\002binary junk\\377' | lufs-measure -j $j -"
    pipe $side "stdin-nothing-j$j" "lufs-measure -j $j - < /dev/null"
    pipe $side "stdin-normalize-wav-j$j" "cat media/tone-noise.wav | lufs-normalize -j $j --target -16 --output stdin-out-j$j.wav -"
    pipe $side "stdin-normalize-flac-j$j" "cat media/tone-noise.flac | lufs-normalize -j $j --preset podcast --output stdin-out-j$j.flac -"
    pipe $side "stdin-normalize-mp3-j$j" "cat media/tone-noise.mp3 | lufs-normalize -j $j --preset podcast --allow-loss --output stdin-out-j$j.mp3 -"
    pipe $side "stdin-normalize-stdout-j$j" "cat media/mono.wav | lufs-normalize -j $j --target -20 --output - -"
    pipe $side "stdin-normalize-raw-j$j" "cat stdin/tone-noise.s16 | lufs-normalize -j $j --raw 48000:2:s16le --target -18 --output stdin-raw-j$j.wav -"
    pipe $side "stdin-align-j$j" "cat vo/take-late.wav | vo-align -j $j --reference vo/backing.wav --start-at 2 -"
    # --follow (each input ends: a pipe at its end, a file at its header's length, or after 5 s idle)
    pipe $side "follow-wav-j$j" "cat media/tone-noise.wav | timeout 60 lufs-measure -j $j --follow -"
    pipe $side "follow-gate-j$j" "cat stdin/unknown-length.wav | timeout 60 lufs-measure -j $j --follow --interval 0.5 --preset ebu-r128 -"
    pipe $side "follow-flac-j$j" "cat media/tone-noise.flac | timeout 60 lufs-measure -j $j --follow --interval 2 -"
    pipe $side "follow-raw-j$j" "cat stdin/tone-noise.s16 | timeout 60 lufs-measure -j $j --follow --raw 48000:2:s16le --max-true-peak -30 -"
    run $side "follow-file-j$j" timeout 60 lufs-measure -j $j --follow --interval 1.5 --target -30 media/mono.wav
    # lufs-normalize
    pipe $side "pipeline-j$j" "audio-probe media | library-filter | lufs-measure | lufs-normalize -j $j --preset podcast --format flac --out-dir out-j$j"
    pipe $side "normalize-media-j$j" "lufs-measure media/two-streams.mp4 media/tone-noise.m4a | lufs-normalize -j $j --preset social --allow-loss --out-dir outm-j$j"
    run $side "normalize-refuse-j$j" lufs-normalize -j $j --target -16 --out-dir out-j$j media/tone-noise.mp3 media/mono.wav bad
    run $side "normalize-limit-j$j" lufs-normalize -j $j --target -9 --true-peak -1 --output-template 'lim-j'$j'/{stem}.{ext}' media/tone-noise.wav media/surround51.wav
    pipe $side "normalize-records-file-j$j" "lufs-measure media > m-j$j.jsonl && lufs-normalize -j $j --preset social --out-dir rs-j$j --relative-to media < m-j$j.jsonl"
    for p in ebu-r128 ebu-r128-s1 atsc-a85 arib-tr-b32 op-59 social podcast; do
      run $side "normalize-preset-$p-j$j" lufs-normalize -j $j --preset $p --out-dir np-$p-j$j media/tone-noise.wav media/mono.wav
    done
    run $side "normalize-reduce-j$j" lufs-normalize -j $j --preset atsc-a85 --peak reduce --out-dir red-j$j qc/clipped.wav media/tone-noise.wav
    run $side "normalize-ignore-j$j" lufs-normalize -j $j --target -9 --peak ignore --bit-depth float --out-dir ign-j$j media/tone-noise.wav
    run $side "normalize-formats-j$j" lufs-normalize -j $j --preset podcast --format flac --bit-depth 16 --sample-rate 44100 --allow-loss --out-dir fmt-j$j media/tone-noise.wav media/surround51.wav
    run $side "normalize-lossy-j$j" lufs-normalize -j $j --target -9 --true-peak -1 --format ogg --allow-loss --out-dir lossy-j$j loud/master.wav
    run $side "normalize-fades-j$j" lufs-normalize -j $j --preset podcast --fade-in 0.5 --fade-out 2 --fade-curve exponential --fade-velocity 3 --out-dir fade-j$j media/tone-noise.wav
    pipe $side "normalize-album-j$j" "lufs-measure --album media/tone-noise.wav media/tone-noise.flac media/mono.wav | lufs-normalize -j $j --album --target -16 --out-dir alb-j$j"
    pipe $side "normalize-stale-j$j" "mkdir -p stale-j$j && cp -p media/mono.wav stale-j$j/ && lufs-measure stale-j$j/mono.wav > stale-j$j.jsonl && touch -d '2025-05-05 05:05:05' stale-j$j/mono.wav && lufs-normalize -j $j --target -16 --out-dir stale-out-j$j < stale-j$j.jsonl"
    # lossless gain (the dry run first, then the real one; in place on copies)
    pipe $side "lossless-dry-j$j" "lufs-measure lossless media/two-streams.mp4 | lufs-normalize -j $j --lossless-gain --target -16 --dry-run --out-dir lg-dry-j$j"
    pipe $side "lossless-j$j" "lufs-measure lossless media/two-streams.mp4 | lufs-normalize -j $j --lossless-gain --target -16 --out-dir lg-j$j"
    run $side "lossless-bare-j$j" lufs-normalize -j $j --lossless-gain --preset podcast --out-dir lgb-j$j lossless media/tone-noise.opus media/tone-noise.wav
    run $side "lossless-loud-j$j" lufs-normalize -j $j --lossless-gain --target -6 --true-peak -1 --out-dir lgl-j$j lossless/loud.mp3 lossless/song.mp3
    pipe $side "lossless-inplace-j$j" "mkdir -p lgi-j$j && cp -p lossless/song.mp3 lossless/song.opus lgi-j$j/ && lufs-normalize -j $j --lossless-gain --target -20 --in-place lgi-j$j"
    run $side "lossless-suggest-j$j" lufs-normalize -j $j --target -16 --out-dir lgs-j$j lossless/song.mp3 lossless/song.aac
    # write-tags: the dry run first (a written tag changes the file's time, which the next
    # measurement records); album mode, then track mode, dry, real, and real again (nothing to change)
    pipe $side "tags-dry-j$j" "mkdir -p tags-j$j && cp -p media/tone-noise.flac media/tone-noise.opus media/tone-noise.mp3 tags-j$j/ && lufs-measure --album tags-j$j | lufs-normalize -j $j --album --write-tags --dry-run --target -16"
    pipe $side "tags-j$j" "lufs-measure --album tags-j$j | lufs-normalize -j $j --album --write-tags"
    pipe $side "tags-track-dry-j$j" "mkdir -p tagt-j$j && cp -p media/tone-noise.flac media/tone-noise.opus media/tone-noise.mp3 media/tone-noise.m4a media/tone-noise.ogg media/mono.wav tagt-j$j/ && lufs-measure tagt-j$j | lufs-normalize -j $j --write-tags --dry-run --target -18"
    pipe $side "tags-track-j$j" "lufs-normalize -j $j --write-tags --target -18 tagt-j$j"
    pipe $side "tags-track-again-j$j" "lufs-normalize -j $j --write-tags --target -18 tagt-j$j"
    # vo-align
    run $side "align-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 vo/take-late.wav vo/take-nobleed.wav
    run $side "align-out-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --out-dir aligned-j$j --mix "aligned-j$j/mix-{stem}.wav" vo/take-late.wav
    run $side "align-latency-j$j" vo-align -j $j --latency-ms 120 --start-at 2 --out-dir shifted-j$j vo/take-late.wav
    run $side "align-latency-neg-j$j" vo-align -j $j --latency-ms -30 --out-dir shifted-neg-j$j vo/take-nobleed.wav
    run $side "align-auto-j$j" vo-align -j $j --reference vo/backing.wav --start-at auto vo/take-late.wav
    run $side "align-claim-ok-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --latency-ms 121 vo/take-late.wav
    run $side "align-claim-bad-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --latency-ms 50 vo/take-late.wav vo/take-nobleed.wav
    run $side "align-claim-tolerance-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --latency-ms 50 --tolerance-ms 100 vo/take-late.wav
    run $side "align-video-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --out-dir aligned-video-j$j vo/take-late.mp4
    run $side "align-drift-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --correct-drift --out-dir drift-j$j --mix drift-j$j/mix.wav --duck-db -20 vo/take-late.wav
    run $side "align-narrow-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --max-latency-ms 50 vo/take-late.wav
    run $side "align-confidence-j$j" vo-align -j $j --reference vo/backing.wav --start-at 2 --min-confidence 0.99 vo/take-late.wav
    pipe $side "align-records-j$j" "printf '%s\\n' '{\"path\":\"vo/take-late.wav\",\"scene\":1,\"start_seconds\":2,\"latency_ms\":120}' '{\"path\":\"vo/take-nobleed.wav\",\"start_seconds\":0,\"latency_ms\":10}' '{\"path\":\"vo/missing.wav\"}' | vo-align -j $j --reference vo/backing.wav --out-dir aligned-rec-j$j"
    pipe $side "align-records-latency-j$j" "printf '%s\\n' '{\"path\":\"vo/take-late.wav\",\"latency_ms\":120}' | vo-align -j $j --out-dir aligned-rec-lat-j$j"
    # caches, cold then warm
    for c in cold warm; do
      run $side "probe-cache-$c-j$j" audio-probe -j $j --cache cache-j$j.sqlite media bad
      run $side "probe-deep-cache-$c-j$j" audio-probe -j $j --deep --cache cache-deep-j$j.sqlite media bad
      run $side "filter-cache-$c-j$j" library-filter -j $j --cache cache-j$j.sqlite media
      pipe $side "filter-get-cache-$c-j$j" "id=\$(library-filter --no-summary --sort path media | jq -r .library.id | sed -n 2p) && library-filter -j $j --cache cache-j$j.sqlite --get \$id media"
      run $side "measure-cache-$c-j$j" lufs-measure -j $j --cache cache-j$j.sqlite --preset podcast media
      run $side "measure-platforms-cache-$c-j$j" lufs-measure -j $j --cache cache-j$j.sqlite --platforms --album media
      run $side "dialogue-cache-$c-j$j" lufs-measure -j $j --cache cache-dlg-j$j.sqlite --preset netflix speech media/mono.wav
      pipe $side "keep-analysis-$c-j$j" "lufs-measure --cache ka-j$j.sqlite --keep-analysis loud/master.wav | lufs-normalize -j $j --cache ka-j$j.sqlite --target -8 --true-peak -1 --overwrite --out-dir ka-out-j$j"
      run $side "normalize-cache-$c-j$j" lufs-normalize -j $j --cache ka2-j$j.sqlite --target -10 --overwrite --out-dir ka2-out-j$j loud/master.wav
    done
    run $side "cache-prune-j$j" lufs-measure -j $j --cache cache-j$j.sqlite --cache-prune media/mono.wav
  done
  # --follow on a file of unknown length: read until it has not grown for 5 s (once: the wait is the cost)
  run $side "follow-idle" timeout 60 lufs-measure --follow stdin/unknown-length.wav
  follow_sigint $side "follow-sigint"
  for t in lufs-measure lufs-normalize vo-align audio-probe library-filter; do
    run $side "$t-help" $t --help
    run $side "$t-version" $t --version
    run $side "$t-man" audio-tools $t --generate-man
    for sh in bash zsh fish; do run $side "$t-completion-$sh" audio-tools $t --generate-completion $sh; done
  done
  run $side "multicall-help" audio-tools --help
  run $side "multicall-bad" audio-tools nothing
  # the speech detector's weights missing and damaged
  run $side "dialogue-no-model" env AUDIO_TOOLS_SPEECH_MODEL=nowhere/silero.onnx lufs-measure --dialogue speech/dialogue.wav
  run $side "dialogue-bad-model" env AUDIO_TOOLS_SPEECH_MODEL=bad/notes.wav lufs-measure --preset netflix speech/dialogue.wav
  run $side "dialogue-bad-model-normalize" env AUDIO_TOOLS_SPEECH_MODEL=bad/notes.wav lufs-normalize --preset netflix --out-dir o speech/dialogue.wav
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
  run $side "usage-19" lufs-measure --platform nope media
  run $side "usage-20" lufs-measure --qc-preset nope media
  run $side "usage-21" lufs-measure --follow --qc -
  run $side "usage-22" lufs-measure --follow media/mono.wav media/tone-noise.wav
  run $side "usage-23" lufs-measure --interval 2 media
  run $side "usage-24" lufs-measure --min-correlation 2 media
  run $side "usage-25" lufs-measure --raw 48000:2:s17le -
  run $side "usage-26" lufs-measure --decode-only --qc media
  run $side "usage-27" lufs-measure --gate-on speech media
  run $side "usage-28" lufs-measure --min-dialogue-share 1.5 media
  run $side "usage-29" lufs-normalize --target -16 --output a.wav media/mono.wav media/tone-noise.wav
  run $side "usage-30" lufs-normalize --target -16 --output a.wav --out-dir o media/mono.wav
  run $side "usage-31" library-filter --query 'colour:red' media
  run $side "usage-32" library-filter --get 123 --limit 2 media
  run $side "usage-33" vo-align --reference vo/missing.wav vo/take-late.wav
  run $side "usage-34" vo-align --reference vo/backing.wav --mix mix.wav vo/take-late.wav vo/take-nobleed.wav
  run $side "usage-35" lufs-normalize --lossless-gain --target -16 --peak ignore --out-dir o lossless
  run $side "usage-36" lufs-measure --cache-prune media
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
  ( cd "$WORK/$side" && find . -type f ! -name '*.sqlite*' ! -name 'follow.fifo' -newer "$M/vo/backing.wav" -print | sort ) \
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
