# Sourced by build.sh and build-langs.sh. The built bots are also kept
# outside the checkout, by the hash of all they are built from: a fresh
# clone on a machine that built them before copies them instead of building
# (a build cache, as cargo's registry and pip's cache are). The two most
# recently used builds of each kind stay; ARENA_BUILD_CACHE=off builds
# afresh and keeps nothing.
cache=${ARENA_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arena/example-bots}

# cache_restore KIND SUM: copy the whole kept build KIND-SUM into wasm/
# (and mark it used); fails when there is none.
cache_restore() {
  local kept=$cache/$1-$2
  { [ "$cache" != off ] && [ -f "$kept/.complete" ] && cp -r "$kept/." wasm/ 2>/dev/null; } || return 1
  rm -f wasm/.complete
  touch "$kept"
}

# cache_keep KIND SUM FILE...: keep the files (paths under wasm/) as the
# build KIND-SUM, written under a temporary name and then renamed, so a
# reader never sees half of one; then drop all but the two most recently
# used. A cache that cannot be written costs nothing but time.
cache_keep() {
  [ "$cache" != off ] || return 0
  local kind=$1 sum=$2
  shift 2
  (
    set +e
    mkdir -p "$cache" || exit 0
    part=$(mktemp -d "$cache/.$kind-XXXXXX") || exit 0
    for f in "$@"; do
      rel=${f#wasm/}
      { mkdir -p "$part/$(dirname "$rel")" && cp "$f" "$part/$rel"; } || { rm -rf "$part"; exit 0; }
    done
    touch "$part/.complete"
    mv -T "$part" "$cache/$kind-$sum" 2>/dev/null || rm -rf "$part"
    ls -1dt "$cache/$kind"-* 2>/dev/null | tail -n +3 | xargs -r rm -rf
  )
}
