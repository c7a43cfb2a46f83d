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

# The parsers compile without the C modules: AudioIO's Probe folder, and the files of IO and the signal layer it
# uses, found by asking the compiler what is missing (so no list here goes stale when a file is
# added or split). Usage: sources_for TARGET, printing one path a line.
sources_for() {
  local main="Tests/Fuzz/$1/main.swift" files=("$FLAT"/AudioIO/Probe/*.swift) missing name file round
  for round in $(seq 1 30); do
    missing=$(swiftc -typecheck -parse-as-library -module-name AudioTools -package-name audio_tools "${files[@]}" "$main" 2>&1 \
      | sed -n "s/.*error: cannot find \(type \)\{0,1\}'\([A-Za-z0-9_]*\)' in scope.*/\2/p" | sort -u || true)
    if [ -z "$missing" ]; then printf '%s\n' "${files[@]}"; return 0; fi
    for name in $missing; do
      file=$(grep -lE "^(public |internal |package )?(final )?(struct|enum|class|protocol|typealias|actor) $name\b" \
        "$FLAT"/AudioIO/IO/*.swift "$FLAT"/AudioSignal/*/*.swift | head -n 1)
      if [ -z "$file" ]; then echo "fuzz: $1 needs $name, which no file of AudioIO/IO or AudioSignal declares" >&2; return 1; fi
      case " ${files[*]} " in *" $file "*) ;; *) files+=("$file");; esac
    done
  done
  echo "fuzz: $1: the sources it needs were not found" >&2
  return 1
}

# Swift's own crash handler hides the trapping line under ASan; libFuzzer's report shows it.
export SWIFT_BACKTRACE=enable=no

BUILD=Tests/Fuzz/.build
mkdir -p "$BUILD" Tests/Fuzz/crashes
# The sources as one module: a copy of the two layers without their imports of each other.
FLAT=$BUILD/sources
rm -rf "$FLAT"; mkdir -p "$FLAT"
cp -r Sources/AudioIO Sources/AudioSignal "$FLAT"/
find "$FLAT" -name '*.swift' -exec sed -i -E '/^import (AudioSignal|JSONValue)$/d' {} +
status=0
for t in "${TARGETS[@]}"; do
  echo "== building $t"
  mapfile -t SOURCES < <(sources_for "$t") && [ ${#SOURCES[@]} -gt 0 ] || exit 1
  swiftc -O -g -sanitize=fuzzer,address -parse-as-library -module-name AudioTools -package-name audio_tools \
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
