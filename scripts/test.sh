#!/usr/bin/env bash
# README.md's test command: install what the tests need (scripts/setup.sh,
# which skips what is present), then run every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Four tests at a time on two cores (libtest runs two): most tests wait on
# a server, a browser or a build; with four the cores were 94% busy through
# the integration tests (2,386 s on 2 cores). Every test must pass on a
# loaded machine anyway.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"
# Every test binary runs even after one fails: one run shows every failure.
cargo test --workspace --no-fail-fast "$@"
