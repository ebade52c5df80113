#!/usr/bin/env bash
# Build the Python and JavaScript example bots (twins of the house bots) to
# components in wasm/<game>/<bot>-py.wasm (componentize-py), <bot>-js.wasm
# (componentize-js: SpiderMonkey, built as it builds by default) and
# <bot>-qjs.wasm (componentize-qjs --sync: QuickJS).
#
# Needs componentize-py 0.25.1 (`pip install componentize-py==0.25.1`) and the
# JavaScript SDK's pinned tools (`npm install --prefix bot-sdk/js`, done here when
# missing). Skips everything when no source, SDK file, WIT file or tool
# version changed since the last full build (every test process runs it).
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
wit=$root/wit/0.2.0
js=$root/bot-sdk/js
want_py=0.25.1
if [ "$(componentize-py --version 2>/dev/null)" != "componentize-py $want_py" ]; then
  echo "build-langs.sh: componentize-py $want_py is needed: python3 -m pip install componentize-py==$want_py" >&2
  exit 1
fi
if [ ! -x "$js/node_modules/.bin/componentize-js" ] || [ ! -x "$js/node_modules/.bin/componentize-qjs" ]; then
  npm install --prefix "$js" --no-audit --no-fund --loglevel=error
fi
stamp=wasm/.langs-stamp
sum=$( (cat build-langs.sh python/*/*/app.py js/*/*.js "$root"/bot-sdk/python/arena_bot/*.py "$js"/src/*.js \
  "$js"/package-lock.json "$wit"/*.wit; componentize-py --version; node --version) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]; then
  exit 0
fi
# A build kept outside the checkout by that hash (build-cache.sh; about
# 0.5 GB each) is copied instead of spending a quarter of an hour in the toolchains.
. ./build-cache.sh
if cache_restore langs "$sum"; then
  echo "$sum" > "$stamp"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$js/node_modules/.bin
for dir in python/*/*/; do
  [ -f "$dir/app.py" ] || continue
  dir=${dir%/}; game=$(basename "$(dirname "$dir")"); bot=$(basename "$dir")
  mkdir -p "wasm/$game"
  componentize-py -d "$wit" -w "$game" componentize -p "$dir" -p "$root/bot-sdk/python" app \
    -o "wasm/$game/$bot-py.wasm" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
done
for src in js/*/*.js; do
  game=$(basename "$(dirname "$src")"); bot=$(basename "$src" .js)
  mkdir -p "wasm/$game"
  bundle=$tmp/$game-$bot.js
  "$bin/esbuild" "$src" --bundle --format=esm --platform=neutral --external:'arena:*' \
    --alias:arena-bot="$js/src" --outfile="$bundle" --log-level=warning
  "$bin/componentize-qjs" --wit "$wit" --world "$game" --js "$bundle" --sync \
    -o "wasm/$game/$bot-qjs.wasm" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
  # componentize-js as it builds by default (no -d http): the arena links wasi:http as denied.
  "$bin/componentize-js" "$bundle" --wit "$wit" --world-name "$game" \
    -o "wasm/$game/$bot-js.wasm" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
done
# A QuickJS build without --sync (the component model's async ABI): the
# arena refuses it with a line that says what to change (tests/langs.rs).
"$bin/esbuild" js/en-garde/aggressive.js --bundle --format=esm --platform=neutral --external:'arena:*' \
  --alias:arena-bot="$js/src" --outfile="$tmp/async.js" --log-level=warning
"$bin/componentize-qjs" --wit "$wit" --world en-garde --js "$tmp/async.js" \
  -o wasm/en-garde/aggressive-qjs-async.wasm >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
echo "$sum" > "$stamp"
# Keep this build outside the checkout too.
cache_keep langs "$sum" wasm/*/*-py.wasm wasm/*/*-js.wasm wasm/*/*-qjs.wasm wasm/*/*-qjs-async.wasm
