#!/usr/bin/env bash
# Build every example bot to a WebAssembly component and copy it to
# wasm/<game>/<bot>.wasm (and wasm/hostile/<name>.wasm).
set -euo pipefail
cd "$(dirname "$0")"
rustup target list --installed 2>/dev/null | grep -q wasm32-wasip2 || rustup target add wasm32-wasip2
# An explicit target dir: a CARGO_TARGET_DIR set for the host must not move the bots elsewhere.
cargo build --quiet --release --target wasm32-wasip2 --target-dir target
out=target/wasm32-wasip2/release
for dir in rust/*/*; do
  game=$(basename "$(dirname "$dir")"); bot=$(basename "$dir")
  mkdir -p "wasm/$game"
  cp "$out/${game//-/_}_${bot//-/_}.wasm" "wasm/$game/$bot.wasm"
done
mkdir -p wasm/hostile
for dir in hostile/*; do
  name=$(basename "$dir")
  if [ -f "$out/hostile_${name//-/_}.wasm" ]; then
    cp "$out/hostile_${name//-/_}.wasm" "wasm/hostile/$name.wasm"
  else
    cp "$out/hostile-$name.wasm" "wasm/hostile/$name.wasm"
  fi
done
