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
