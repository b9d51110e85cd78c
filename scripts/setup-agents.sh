#!/usr/bin/env bash
# Installs the agent CLIs the real-agent tests (test/agents) and the agent-loop benchmark
# (bench/agentbench) drive against a scripted model on 127.0.0.1, from the npm registry,
# into the git-ignored folder .agents-test/:
#   claude-code  @anthropic-ai/claude-code  -> .agents-test/claude-code-<version>/
# Idempotent and cached: a second run checks the marker and the binary's --version and does
# nothing else. A different pinned version gets a folder of its own.
# See test/agents/README.md for what was verified with each version.
set -euo pipefail

# To bump: `npm view @anthropic-ai/claude-code version`, change the line below and
# CLAUDE_CODE_VERSION in test/agents/harness/agents.ts, run `npm run test:agents`.
CLAUDE_CODE_VERSION="2.1.332"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AGENTS_DIR="${ROOT}/.agents-test"

START=$SECONDS
log() { printf '[setup-agents %3ss] %s\n' "$((SECONDS - START))" "$*"; }
fail() { printf '[setup-agents] ERROR: %s\n' "$*" >&2; exit 1; }
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

export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# Claude Code's npm package is a launcher whose postinstall copies the native binary of the
# platform package (an optional dependency) into place; its engines ask for Node 22. We skip
# the postinstall (--ignore-scripts) and run the platform package's binary directly: it is a
# self-contained executable that needs no Node at all, so the machine's Node 20 is enough.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64 ;;
  Linux-aarch64) PLATFORM=linux-arm64 ;;
  *) fail "no Claude Code platform package known for $(uname -s)-$(uname -m)" ;;
esac

install_claude_code() {
  local version="$1" dir="$AGENTS_DIR/claude-code-$1"
  local bin="$dir/node_modules/@anthropic-ai/claude-code-${PLATFORM}/claude"
  local marker="$dir/.install-complete"
  if [[ -f "$marker" && "$(cat "$marker")" == "$version" && -x "$bin" ]] &&
    [[ "$("$bin" --version 2>/dev/null)" == "$version"* ]]; then
    log "claude-code ${version}: cached in ${dir#"$ROOT"/}"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  log "claude-code ${version}: npm install (about 230 MB download)"
  # A package.json of its own, so npm installs here and not into the project.
  printf '{"name":"agents-test-claude-code","private":true}\n' >"$dir/package.json"
  (cd "$dir" && quiet npm install --no-save --ignore-scripts --no-package-lock --engine-strict=false \
    "@anthropic-ai/claude-code@${version}")
  [[ -x "$bin" ]] || fail "the platform package @anthropic-ai/claude-code-${PLATFORM} was not installed (optional dependencies omitted?)"
  local got
  got="$("$bin" --version 2>&1)" || fail "claude ${version} does not run here: $got"
  [[ "$got" == "$version"* ]] || fail "expected claude ${version}, got: $got"
  printf '%s' "$version" >"$marker"
  log "claude-code installed: $got"
}

mkdir -p "$AGENTS_DIR"
install_claude_code "$CLAUDE_CODE_VERSION"
log "done"
