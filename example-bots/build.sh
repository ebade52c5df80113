#!/usr/bin/env bash
# Build every example bot to a WebAssembly component and copy it to
# wasm/<game>/<bot>.wasm (and wasm/hostile/<name>.wasm).
#
#   example-bots/build.sh                      every bot (the tests use them all)
#   example-bots/build.sh en-garde/aggressive  only the bots named (the demo)
set -euo pipefail
cd "$(dirname "$0")"
rustup target list --installed 2>/dev/null | grep -q wasm32-wasip2 || rustup target add wasm32-wasip2
out=target/wasm32-wasip2/release
# A build kept outside the checkout by the hash of all it is built from
# (build-cache.sh; about 20 MB each) is copied instead of built.
. ./build-cache.sh
sum=$( (find build.sh Cargo.toml Cargo.lock rust hostile ../Cargo.toml ../bot-sdk/Cargo.toml ../bot-sdk/src \
  ../host/games ../host/core ../wit -type f -not -path '*/target/*' -print0 | sort -z | xargs -0 sha256sum
  rustc --version) | sha256sum | cut -d' ' -f1)
kept=$cache/rust-$sum
if [ $# -gt 0 ]; then
  for name in "$@"; do
    game=${name%%/*}; bot=${name#*/}
    if [ ! -d "rust/$game/$bot" ]; then
      echo "build.sh: no example bot $name (they are rust/<game>/<bot>: $(cd rust && echo */* | tr ' ' ','))" >&2
      exit 2
    fi
    mkdir -p "wasm/$game"
    if [ "$cache" != off ] && [ -f "$kept/.complete" ] && cp "$kept/$game/$bot.wasm" "wasm/$game/$bot.wasm" 2>/dev/null; then
      continue
    fi
    cargo build --quiet --release --target wasm32-wasip2 --target-dir target -p "$game-$bot"
    cp "$out/${game//-/_}_${bot//-/_}.wasm" "wasm/$game/$bot.wasm"
  done
  exit 0
fi
stamp=wasm/.rust-stamp
if [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]; then
  exit 0
fi
if cache_restore rust "$sum"; then
  echo "$sum" > "$stamp"
  exit 0
fi
# An explicit target dir: a CARGO_TARGET_DIR set for the host must not move the bots elsewhere.
cargo build --quiet --release --target wasm32-wasip2 --target-dir target
for dir in rust/*/*; do
  game=$(basename "$(dirname "$dir")"); bot=$(basename "$dir")
  mkdir -p "wasm/$game"
  cp "$out/${game//-/_}_${bot//-/_}.wasm" "wasm/$game/$bot.wasm"
done
mkdir -p wasm/hostile
for dir in hostile/*; do
  name=$(basename "$dir")
  [ "$name" = corpus ] && continue
  if [ -f "$out/hostile_${name//-/_}.wasm" ]; then
    cp "$out/hostile_${name//-/_}.wasm" "wasm/hostile/$name.wasm"
  else
    cp "$out/hostile-$name.wasm" "wasm/hostile/$name.wasm"
  fi
done
# The hostile corpus: one build of hostile/corpus per attack, with the attack
# in ARENA_ATTACK and its world as the feature (see hostile/corpus/attacks.txt).
# Each build changes ARENA_ATTACK, so cargo rebuilds every time: skip the
# whole loop when nothing it depends on changed since the last full build
# (every test process runs this script once).
corpus_stamp=wasm/hostile/.corpus-stamp
corpus_sum=$(cat hostile/corpus/attacks.txt hostile/corpus/Cargo.toml hostile/corpus/src/*.rs \
  ../bot-sdk/Cargo.toml ../bot-sdk/src/*.rs ../host/games/src/*.rs ../host/games/src/*/*.rs ../host/core/src/*.rs \
  ../wit/*/*.wit Cargo.lock | sha256sum | cut -d' ' -f1)
if [ "$(cat "$corpus_stamp" 2>/dev/null)" != "$corpus_sum" ]; then
  grep -v '^#' hostile/corpus/attacks.txt | while read -r attack world; do
    ARENA_ATTACK=$attack cargo build --quiet --release --target wasm32-wasip2 --target-dir target -p hostile-corpus --features "$world"
    cp "$out/hostile_corpus.wasm" "wasm/hostile/$attack.wasm"
  done
  echo "$corpus_sum" > "$corpus_stamp"
fi
echo "$sum" > "$stamp"
# Keep this build outside the checkout too.
kept_files=(wasm/hostile/*.wasm wasm/hostile/.corpus-stamp)
for dir in rust/*/*; do
  kept_files+=("wasm/$(basename "$(dirname "$dir")")/$(basename "$dir").wasm")
done
cache_keep rust "$sum" "${kept_files[@]}"
