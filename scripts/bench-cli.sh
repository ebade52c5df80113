#!/usr/bin/env bash
# Whole-command benchmarks quoted in docs/performance.md: a 32-bot En Garde
# round robin at --jobs 1 and 2, its peak memory from 9,920 to 992,000 games
# (one machine, and cut into 4 shards and merged), a match's and a grade's
# peak memory as their games grow, grading a class of 100
# submissions, and `arena check` of a Python bot twice (the second from the
# compile cache). Set ARENA_BENCH_MILLION=0 to skip the 992,000-game runs
# (about 2.5 minutes) and the million-game match.
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

# A match's peak memory and time as its games grow (issue 31, item 3): it
# holds its totals and one batch of games, and streams each game to the
# JSON and the replay file, so its memory should not grow with the games.
# ARENA_BENCH_BEFORE=path/to/an/older/arena runs each line with it too, in
# the same run, for the before/after ratios of docs/performance.md.
eg=example-bots/wasm/en-garde
match_sizes=(10000 100000)
[ "${ARENA_BENCH_MILLION:-1}" = 0 ] || match_sizes+=(1000000)
for bin in "$arena" ${ARENA_BENCH_BEFORE:-}; do
  for games in "${match_sizes[@]}"; do
    echo "match ($bin), En Garde aggressive vs cowardly, $games games, --jobs 2: $(measure "$bin" match --game en-garde "$eg/aggressive.wasm" "$eg/cowardly.wasm" --games "$games" --jobs 2)"
    echo "  --json: $(measure "$bin" match --game en-garde "$eg/aggressive.wasm" "$eg/cowardly.wasm" --games "$games" --jobs 2 --json)"
  done
  # Recording: the same 1,000 games with and without a replay (best of 3).
  best() { for _ in 1 2 3; do /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1; done | sort -n | head -1; }
  plain=$(best "$bin" match --game en-garde "$eg/aggressive.wasm" "$eg/cowardly.wasm" --games 1000 --jobs 1)
  recorded=$(best "$bin" match --game en-garde "$eg/aggressive.wasm" "$eg/cowardly.wasm" --games 1000 --jobs 1 --replay "$work/r.jsonl")
  echo "  1,000 games, --jobs 1: $plain s; with --replay: $recorded s, $(stat -c %s "$work/r.jsonl") bytes; peak with --replay of 10,000 games: $(measure "$bin" match --game en-garde "$eg/aggressive.wasm" "$eg/cowardly.wasm" --games 10000 --jobs 2 --replay "$work/r.jsonl")"
done

# Grading's and checking's peak memory as the games grow (issue 31, item
# 3): a rubric item keeps one number per deal and a digest of how its games
# ended (for "plays like"), `check` its totals, not their games.
# ARENA_BENCH_BEFORE runs each line with the older binary too.
grade_sizes=(10000 100000)
[ "${ARENA_BENCH_MILLION:-1}" = 0 ] || grade_sizes+=(1000000)
for bin in "$arena" ${ARENA_BENCH_BEFORE:-}; do
  for games in "${grade_sizes[@]}"; do
    echo "grade ($bin), En Garde random.wasm, default rubric, $games games per item: $(measure "$bin" grade --game en-garde "$eg/random.wasm" --games "$games")"
  done
  echo "check ($bin), En Garde random.wasm, --games 10000 (recorded): $(measure "$bin" check "$eg/random.wasm" --game en-garde --games 10000)"
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

# Compiling bots with Cranelift's incremental store (issue 31, item 1; the
# goal: a second Python bot in at most 1.5 s). The compiler child alone
# (`arena __compile STACK_BYTES [STORE] < bot.wasm`, what loading a bot runs),
# wall time: each language's En Garde aggressive bot with no store, then its
# aggressive, cowardly and random bots one after another into an empty store.
# The C bots are built as tests/langs.rs builds them, when clang is there.
compile_time() { /usr/bin/time -f "%e" "$arena" __compile 524288 "$@" 2>&1 >/dev/null | tail -1; }
if command -v clang > /dev/null; then
  mkdir -p "$work/c"
  for k in "${kinds[@]}"; do
    clang --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-debug \
      -Ibot-sdk/c/en-garde -Ibot-sdk/c -o "$work/c/$k.core.wasm" "example-bots/c/en-garde/$k.c" \
      bot-sdk/c/en-garde/en_garde.c bot-sdk/c/en-garde/en_garde_component_type.o \
      && "$arena" componentize "$work/c/$k.core.wasm" -o "$work/c/$k-c.wasm" > /dev/null \
      || echo "compile, c: building $k.c failed, so C is left out" >&2
  done
fi
for lang in py js qjs rust c; do
  bot() { case $lang in rust) echo "$eg/$1.wasm" ;; c) echo "$work/c/$1-c.wasm" ;; *) echo "$eg/$1-$lang.wasm" ;; esac; }
  [ -f "$(bot aggressive)" ] && [ -f "$(bot cowardly)" ] && [ -f "$(bot random)" ] || continue
  # A failed compile prints "?" rather than ending the script (set -e).
  line="compile, $lang, $(du -k "$(bot aggressive)" | cut -f1) KB: no store $(compile_time < "$(bot aggressive)" || echo "?") s; into an empty store:"
  rm -rf "$work/store" && mkdir -p "$work/store"
  for k in "${kinds[@]}"; do
    line+=" $k $(compile_time "$work/store" < "$(bot "$k")" || echo "?") s"
  done
  echo "$line; store $(du -sh "$work/store" | cut -f1)"
done

# A class of 100 Python bots (issue 31, item 1): 100 copies of the Python
# aggressive twin, each made a different file by a custom section of its own
# (so 100 SHA-256s and 100 compiles), in a round robin of 2 games per
# pairing (9,900 games) with an empty compile cache, then again from the
# cache. The incremental store lets each compile reuse the functions the
# bots before it compiled. Set ARENA_BENCH_CLASS=0 to skip (several minutes).
pybot=example-bots/wasm/en-garde/aggressive-py.wasm
if [ -f "$pybot" ] && [ "${ARENA_BENCH_CLASS:-1}" != 0 ]; then
  mkdir -p "$work/py100"
  for i in $(seq -w 0 99); do
    # A custom section: id 0, 9 bytes of content (the name's length, the
    # name "bench", and the payload: the bot's number and an x).
    { cat "$pybot"; printf '\x00\x09\x05bench%sx' "$i"; } > "$work/py100/py$i.wasm"
  done
  for run in first second; do
    echo "class of 100 Python bots, round robin, 9,900 games, --jobs 2, $run run: $(measure $arena tournament --game en-garde --dir "$work/py100" --format round-robin --games 2 --jobs 2 --cache-dir "$work/pycache")"
  done
  echo "  compile cache after: $(du -sh "$work/pycache" | cut -f1) ($(du -sh "$work/pycache"/incremental-* 2>/dev/null | cut -f1) of it the incremental store)"
fi

# One bot call through the arena against the same call with wasmtime alone
# (issue 31, item 5; the aim is at most 1.10): the summary of the En Garde
# benchmark, without its criterion part.
ARENA_BENCH_SUMMARY=1 cargo bench --quiet -p arena --bench en_garde -- nothing 2>/dev/null | grep -E "one choose-move call|extra per call" || true
