#!/usr/bin/env bash
# README.md's test command: install what the tests need (scripts/setup.sh,
# which skips what is present), then run every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# A full disk fails a test far from its cause (npm's "ENOSPC" in a build
# script): say it first. A fresh clone's build and tests take about 10 GB.
for disk in $(df --output=target . "${TMPDIR:-/tmp}" | tail -n +2 | sort -u); do
  free=$(df --output=avail -BG "$disk" | tail -1 | tr -dc 0-9)
  if [ "${free:-0}" -lt 12 ]; then
    echo "scripts/test.sh: only ${free} GB free on $disk; the build and the tests need about 10 GB: free some (an ended run's test folders are ${TMPDIR:-/tmp}/arena-tests-*)" >&2
  fi
done
# Every test binary runs even after one fails: one run shows every failure.
cargo test --workspace --no-fail-fast "$@"
