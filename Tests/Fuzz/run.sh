#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) from the probe sources alone and runs each
# for N seconds (first argument, default 60). Corpora live in Tests/Fuzz/corpus-<target>/, crashes are
# written to Tests/Fuzz/crashes/<target>/. Usage: Tests/Fuzz/run.sh [seconds] [target...]
set -euo pipefail
cd "$(dirname "$0")/../.."

SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(BoxParserFuzz ID3Fuzz ProbeFuzz); fi

# The parsers compile without the C modules and without the records: list exactly what they need.
SOURCES=(
  Sources/AudioTools/IO/ByteSource.swift
  Sources/AudioTools/IO/FileIdentity.swift
  Sources/AudioTools/IO/FileAccessError.swift
  Sources/AudioTools/IO/PathBytes.swift
  Sources/AudioTools/Probe/ProbeBytes.swift
  Sources/AudioTools/Probe/ProbeFacts.swift
  Sources/AudioTools/Probe/MPEGAudioHeader.swift
  Sources/AudioTools/Probe/ContainerSniffer.swift
  Sources/AudioTools/Probe/ID3Tags.swift
  Sources/AudioTools/Probe/MP4BoxParser.swift
  Sources/AudioTools/Probe/VorbisComment.swift
  Sources/AudioTools/Probe/ChunkReaders.swift
  Sources/AudioTools/Probe/MatroskaReader.swift
  Sources/AudioTools/Probe/ASFReader.swift
  Sources/AudioTools/Probe/ContainerProbe.swift
  Sources/AudioTools/Probe/ProbeVerdicts.swift
  Sources/AudioTools/Probe/ProbeRefusal.swift
)

# Swift's own crash handler hides the trapping line under ASan; libFuzzer's report shows it.
export SWIFT_BACKTRACE=enable=no

BUILD=Tests/Fuzz/.build
mkdir -p "$BUILD" Tests/Fuzz/crashes
status=0
for t in "${TARGETS[@]}"; do
  echo "== building $t"
  swiftc -O -g -sanitize=fuzzer,address -parse-as-library -module-name AudioTools \
    "${SOURCES[@]}" "Tests/Fuzz/$t/main.swift" -o "$BUILD/$t" 2> "$BUILD/$t.log" \
    || { cat "$BUILD/$t.log"; exit 1; }
  corpus="Tests/Fuzz/corpus-$t"
  crashes="Tests/Fuzz/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  echo "== running $t for ${SECONDS_EACH}s"
  # Tests/Fuzz/seeds holds tiny hand-built files of each format (regenerate with Tests/Fuzz/make_seeds.py);
  # libFuzzer only writes new inputs to the first directory.
  if ! "$BUILD/$t" "$corpus" Tests/Fuzz/seeds -max_total_time="$SECONDS_EACH" -timeout=5 -rss_limit_mb=2048 \
       -max_len=16384 -artifact_prefix="$crashes/" -print_final_stats=1 2> "$BUILD/$t.run.log"; then
    echo "!! $t found a problem; input saved under $crashes/"
    tail -40 "$BUILD/$t.run.log"
    status=1
  else
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$BUILD/$t.run.log" || tail -3 "$BUILD/$t.run.log"
  fi
done
exit $status
