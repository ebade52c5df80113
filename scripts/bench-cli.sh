#!/usr/bin/env bash
# Whole-command benchmarks quoted in docs/performance.md: a 32-bot En Garde
# round robin at --jobs 1 and 2, grading a class of 100 submissions, and
# `arena check` of a Python bot twice (the second from the compile cache).
# Run from the repository root after `example-bots/build.sh` (and
# `example-bots/build-langs.sh` for the Python bot).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p arena --bin arena
arena=target/release/arena
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/rr"
kinds=(aggressive cowardly random)
for i in $(seq -w 0 31); do
  k=${kinds[$((10#$i % 3))]}
  cp "example-bots/wasm/en-garde/$k.wasm" "$work/rr/bot$i-$k.wasm"
done
for jobs in 1 2; do
  start=$(date +%s%N)
  $arena tournament --game en-garde --dir "$work/rr" --format round-robin --games 10 --jobs "$jobs" > /dev/null
  end=$(date +%s%N)
  echo "round robin, 32 bots, 4960 games, --jobs $jobs: $(( (end - start) / 1000000 )) ms"
done

mkdir -p "$work/class"
for i in $(seq -w 0 99); do
  case $((10#$i % 10)) in
    7) cp example-bots/wasm/hostile/infinite-loop.wasm "$work/class/s$i.wasm" ;;
    8) cp example-bots/wasm/hostile/memory-bomb.wasm "$work/class/s$i.wasm" ;;
    9) cp example-bots/wasm/hostile/wrong-world.wasm "$work/class/s$i.wasm" ;;
    *) k=${kinds[$((10#$i % 3))]}; cp "example-bots/wasm/en-garde/$k.wasm" "$work/class/s$i.wasm" ;;
  esac
done
start=$(date +%s%N)
$arena grade-class --game en-garde "$work/class" --out "$work/grades" > /dev/null
end=$(date +%s%N)
echo "grade-class, 100 submissions (30 hostile or broken), default rubric: $(( (end - start) / 1000000 )) ms"

py=example-bots/wasm/en-garde/random-py.wasm
if [ -f "$py" ]; then
  for run in first second; do
    start=$(date +%s%N)
    $arena check "$py" --game en-garde --cache-dir "$work/cache" > /dev/null
    end=$(date +%s%N)
    echo "check of the Python random bot, $run run (fresh cache): $(( (end - start) / 1000000 )) ms"
  done
fi
