#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image
# (docs/gradescope.md). It builds the arena from the source shipped in the
# autograder zip, so the image grades with exactly that version.
set -euo pipefail

AUTOGRADER=${AUTOGRADER:-/autograder}
# The arena's source in the zip: the repository's root (Cargo.toml, host/, ...).
ARENA_SRC=${ARENA_SRC:-$AUTOGRADER/source/arena}
# Where `arena` is installed: /usr/local/bin is on run_autograder's PATH.
INSTALL_ROOT=${INSTALL_ROOT:-/usr/local}

if [ ! -f "$ARENA_SRC/host/arena/Cargo.toml" ]; then
  echo "setup.sh: $ARENA_SRC/host/arena/Cargo.toml not found; put the arena's source in the zip as arena/ (docs/gradescope.md)" >&2
  exit 1
fi

# wasmtime's build scripts compile a little C: a C compiler is needed.
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends ca-certificates curl build-essential

# The toolchain the workspace declares (rust-version), minimal: no docs, no
# clippy. An image that has cargo already (a custom base image) keeps it;
# `cargo install` names the version it needs if it is too old.
if ! command -v cargo >/dev/null; then
  toolchain=$(sed -n 's/^rust-version *= *"\([^"]*\)".*/\1/p' "$ARENA_SRC/Cargo.toml" | head -n 1)
  export RUSTUP_HOME=${RUSTUP_HOME:-/opt/rustup} CARGO_HOME=${CARGO_HOME:-/opt/cargo}
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
    sh -s -- -y --no-modify-path --profile minimal --default-toolchain "${toolchain:-stable}"
  export PATH="$CARGO_HOME/bin:$PATH"
fi

# --locked: the dependency versions of the shipped Cargo.lock, nothing newer.
cargo install --locked --path "$ARENA_SRC/host/arena" --root "$INSTALL_ROOT"
"$INSTALL_ROOT/bin/arena" --version
