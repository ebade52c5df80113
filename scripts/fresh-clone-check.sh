#!/usr/bin/env bash
# Clone this repository into a temporary folder and run README.md's two
# commands there exactly as the README writes them (read from it, so they
# cannot drift), each with its wall time: what a newcomer on a fresh machine
# gets. The clone has its own target folder, so everything is built afresh.
#
#   scripts/fresh-clone-check.sh            the demo command, then the test command
#   scripts/fresh-clone-check.sh demo       only the demo command
#
# It clones the committed state (HEAD): commit first.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
which=${1:-all}

# The command is the first line of the ```sh block after the marker comment.
command_after() {
  awk -v marker="<!-- $1 -->" '
    $0 == marker { found = 1; next }
    found && /^```sh/ { inblock = 1; next }
    inblock { print; exit }
  ' README.md
}
demo=$(command_after demo-command)
tests=$(command_after test-command)
[ -n "$demo" ] && [ -n "$tests" ] || { echo "fresh-clone-check.sh: README.md lacks the <!-- demo-command --> or <!-- test-command --> block" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/arena"
cd "$work/arena"
# A fresh machine has no target folder, no compile cache and no built bots.
unset CARGO_TARGET_DIR
export ARENA_CACHE_DIR="$work/cache"
export ARENA_BUILD_CACHE="$work/build-cache"

run() {
  local name=$1 cmd=$2 start end status
  echo "== $name: $cmd"
  start=$(date +%s)
  set +e
  bash -c "$cmd" > "$work/$name.log" 2>&1
  status=$?
  set -e
  end=$(date +%s)
  local took=$((end - start))
  printf '%s: exit %d in %d min %02d s\n' "$name" "$status" $((took / 60)) $((took % 60))
  # Kept after the clone is removed: the whole output, to read a failure in full.
  cp "$work/$name.log" "$repo/target/fresh-clone-$name.log" 2>/dev/null || true
  if [ $status -ne 0 ]; then
    # The failing tests by name first: the log's tail is only the last binaries' summaries.
    grep -E '^test .* FAILED$|^---- .* stdout ----$' "$work/$name.log" | head -20
    tail -40 "$work/$name.log"
    return 1
  fi
}

failed=0
run demo "$demo" || failed=1
if [ "$which" = all ]; then
  run tests "$tests" || failed=1
  grep -E '^test result:' "$work/tests.log" | awk '{p += $4; f += $6} END {printf "tests: %d passed, %d failed\n", p, f}'
fi
exit $failed
