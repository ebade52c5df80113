#!/usr/bin/env bash
# Install what the tests and the demo need, on Debian or Ubuntu, skipping
# whatever is already present. README.md's "Prerequisites" table says what
# each item is for; keep the two in step.
#
# It is safe to run again: each step first checks whether its tool is there.
# When it cannot install something (not root, no apt-get, no network), it
# says in one line what is missing and what needs it, and goes on; the tests
# that need the missing tool then fail with their own message.
set -uo pipefail
cd "$(dirname "$0")/.."

missing=0
say() { echo "setup.sh: $*" >&2; }
lack() { say "missing $1 ($2); install it: $3"; missing=1; }

# 1. Rust: the wasm targets bots are built for, and the lint components CI runs.
if command -v rustup >/dev/null; then
  installed=$(rustup target list --installed 2>/dev/null)
  for t in wasm32-wasip2 wasm32-unknown-unknown; do
    grep -qx "$t" <<<"$installed" || rustup target add "$t" >/dev/null 2>&1 ||
      lack "the Rust target $t" "bots are compiled for it" "rustup target add $t"
  done
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c" >/dev/null 2>&1 ||
      lack "the Rust component $c" "CI's lint step" "rustup component add $c"
  done
else
  lack "rustup" "it adds the wasm32-wasip2 target" "https://rustup.rs"
fi

# 2. Debian packages. Each one with the file that shows it is installed and
# what needs it (README.md's table).
declare -A need=(
  [clang]="/usr/bin/clang|the C example bots (tests/langs.rs)"
  [lld]="/usr/bin/wasm-ld|linking the C bots to wasm"
  [wasi-libc]="/usr/lib/wasm32-wasi/libc.a|the C library of the C bots"
  [libclang-rt-14-dev-wasm32]="/usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a|clang's runtime for wasm32"
  [chromium]="/usr/bin/chromium|the replay pages' browser tests (tests/browser.rs)"
  [fonts-dejavu-core]="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf|a font Chromium draws the pages with"
  [nodejs]="node|the JavaScript bot toolchains, and the viewer's model under Node (tests/view.rs)"
  [npm]="npm|installing the JavaScript SDK's pinned tools"
  [python3-pip]="pip|installing componentize-py, the Python bot toolchain"
  [python3-venv]="venv|the test LMS's own Python packages (tests/lti.rs)"
  [postgresql]="/usr/lib/postgresql/15/bin/initdb|the course server's tests against Postgres (tests/server.rs)"
  [slurm-wlm]="/usr/sbin/slurmctld|the sharded tournaments' tests on a single-node Slurm (tests/cluster.rs, scripts/slurm.sh)"
  [munge]="/usr/sbin/munged|Slurm's authentication (scripts/slurm.sh)"
  [openssl]="/usr/bin/openssl|the test certificates of the server's TLS test (tests/attacks.rs)"
  [curl]="/usr/bin/curl|an https client that trusts only the test's certificate (tests/attacks.rs)"
  [util-linux]="/usr/bin/prlimit|a server limited to 1,024 files in the flood test (tests/attacks.rs)"
)
want=()
for pkg in "${!need[@]}"; do
  probe=${need[$pkg]%%|*}
  case $probe in
    /*) [ -e "$probe" ] && continue ;;
    pip) python3 -m pip --version >/dev/null 2>&1 && continue ;;
    venv) python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && continue ;;
    *) command -v "$probe" >/dev/null && continue ;;
  esac
  # initdb's path carries PostgreSQL's version: accept any version's.
  if [ "$pkg" = postgresql ] && compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    continue
  fi
  # libclang-rt's path carries clang's version: accept any version's file.
  if [ "$pkg" = libclang-rt-14-dev-wasm32 ] && compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a" >/dev/null; then
    continue
  fi
  want+=("$pkg")
done
if [ ${#want[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${want[*]} (apt-get)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}" >/dev/null; } ||
      { for pkg in "${want[@]}"; do lack "$pkg" "${need[$pkg]#*|}" "apt-get install $pkg"; done; }
  else
    for pkg in "${want[@]}"; do
      lack "the Debian package $pkg" "${need[$pkg]#*|}" "sudo apt-get install $pkg"
    done
  fi
fi

# 3. The Python bot toolchain, pinned (docs/languages.md). Debian's own
# Python refuses user installs unless told (PEP 668).
want_py=0.25.1
if [ "$(componentize-py --version 2>/dev/null)" != "componentize-py $want_py" ]; then
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --disable-pip-version-check "componentize-py==$want_py" ||
    lack "componentize-py $want_py" "the Python example bots (tests/langs.rs)" "python3 -m pip install componentize-py==$want_py"
  command -v componentize-py >/dev/null ||
    say "componentize-py is installed but not on PATH: add $(python3 -m site --user-base 2>/dev/null)/bin to PATH"
fi

# 4. The JavaScript SDK's tools at the exact versions of its lockfile
# (`npm install`, not `npm ci`: the registry here lists no packages for other
# platforms, which `npm ci` insists on).
js=bot-sdk/js
if [ ! -x "$js/node_modules/.bin/componentize-js" ] || [ ! -x "$js/node_modules/.bin/componentize-qjs" ]; then
  if command -v npm >/dev/null; then
    npm install --prefix "$js" --no-audit --no-fund --loglevel=error >/dev/null ||
      lack "the JavaScript SDK's npm packages" "the JavaScript example bots" "npm install --prefix $js"
  fi
fi

# 5. The test LMS (tests/lti/lti_platform.py): an LTI 1.3 platform made of
# the lti1p3platform package, at the versions of tests/lti/requirements.txt,
# in a virtual environment of its own (Debian's python3-jwt is older).
lms=target/lti-platform
if ! cmp -s tests/lti/requirements.txt "$lms/requirements.txt" 2>/dev/null; then
  { python3 -m venv "$lms" &&
    "$lms/bin/pip" install --quiet --disable-pip-version-check -r tests/lti/requirements.txt &&
    cp tests/lti/requirements.txt "$lms/requirements.txt"; } ||
    lack "the test LMS's Python packages" "the LTI tests (tests/lti.rs)" "python3 -m venv $lms && $lms/bin/pip install -r tests/lti/requirements.txt"
fi

if [ $missing = 1 ]; then
  say "some prerequisites are missing (above); tests that need them will fail"
fi
exit 0
