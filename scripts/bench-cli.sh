#!/usr/bin/env bash
# Whole-command benchmarks quoted in docs/performance.md: a 32-bot En Garde
# round robin at --jobs 1 and 2, its peak memory from 9,920 to 992,000 games
# (one machine, and cut into 4 shards and merged), grading a class of 100
# submissions, and `arena check` of a Python bot twice (the second from the
# compile cache). Set ARENA_BENCH_MILLION=0 to skip the 992,000-game runs
# (about 2.5 minutes).
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

# Peak memory (GNU time's %M, in KB) as the games grow: what a tournament
# holds is each match's totals, so it should not grow with the games.
measure() { /usr/bin/time -f "%e s, %M KB" "$@" 2>&1 >/dev/null | tail -1; }
sizes=(20 200)
[ "${ARENA_BENCH_MILLION:-1}" = 0 ] || sizes+=(2000)
for games in "${sizes[@]}"; do
  total=$((496 * games))
  echo "round robin, 32 bots, $total games, one machine, --jobs 2: $(measure $arena tournament --game en-garde --dir "$work/rr" --format round-robin --games "$games" --jobs 2 --json)"
  $arena tournament plan --game en-garde --dir "$work/rr" --format round-robin --games "$games" --shards 4 --work "$work/w$games" > /dev/null 2>&1
  for i in 0 1 2 3; do
    echo "  run-shard $i of 4, --jobs 2: $(measure $arena tournament run-shard "$work/w$games" --index "$i" --jobs 2)"
  done
  echo "  merge --json: $(measure $arena tournament merge "$work/w$games" --json)"
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
