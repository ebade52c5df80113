#!/usr/bin/env bash
# README.md's test command: install what the tests need (scripts/setup.sh,
# which skips what is present), then run every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Every test binary runs even after one fails: one run shows every failure.
cargo test --workspace --no-fail-fast "$@"
