#!/usr/bin/env bash
# Installs the agent CLIs the real-agent tests (test/agents) and the agent-loop benchmark
# (bench/agentbench) drive against a scripted model on 127.0.0.1, from the npm registry,
# into the git-ignored folder .agents-test/:
#   claude-code  @anthropic-ai/claude-code  -> .agents-test/claude-code-<version>/
#   codex        @openai/codex              -> .agents-test/codex-<version>/
#   gemini-cli   @google/gemini-cli         -> .agents-test/gemini-cli-<version>/
#   copilot-cli  @github/copilot            -> .agents-test/copilot-cli-<version>/
# Idempotent and cached: a second run checks the marker and the binary's --version and does
# nothing else. A different pinned version gets a folder of its own.
# See test/agents/README.md for what was verified with each version.
set -euo pipefail

# To bump one: `npm view <package> version`, change its line below and the same constant in
# test/agents/harness/agents.ts, run `npm run test:agents`.
CLAUDE_CODE_VERSION="2.1.332"
CODEX_VERSION="0.171.0"
GEMINI_CLI_VERSION="0.61.0"
COPILOT_CLI_VERSION="1.0.102"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AGENTS_DIR="${ROOT}/.agents-test"

SETUP_NAME=setup-agents
# shellcheck source=scripts/setup-lib.sh
source "${ROOT}/scripts/setup-lib.sh"

export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# Claude Code's npm package is a launcher whose postinstall copies the native binary of the
# platform package (an optional dependency) into place; its engines ask for Node 22. We skip
# the postinstall (--ignore-scripts) and run the platform package's binary directly: it is a
# self-contained executable that needs no Node at all, so the machine's Node 20 is enough.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64 TRIPLE=x86_64-unknown-linux-musl ;;
  Linux-aarch64) PLATFORM=linux-arm64 TRIPLE=aarch64-unknown-linux-musl ;;
  *) fail "no Claude Code platform package known for $(uname -s)-$(uname -m)" ;;
esac

# install <name> <package> <version> <binary, relative to the folder> [runner]: the package and its
# platform package into .agents-test/<name>-<version>/ without install scripts; the binary (run by
# <runner> when given, e.g. node for a script) must print the version.
install() {
  local name="$1" package="$2" version="$3" rel="$4" runner="${5:-}"
  local dir="$AGENTS_DIR/${name}-${version}" marker="$AGENTS_DIR/${name}-${version}/.install-complete"
  local bin="$dir/$rel"
  if [[ -f "$marker" && "$(cat "$marker")" == "$version" && -f "$bin" ]] &&
    [[ "$($runner "$bin" --version 2>/dev/null)" == *"$version"* ]]; then
    log "${name} ${version}: cached in ${dir#"$ROOT"/}"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  log "${name} ${version}: npm install ${package}@${version}"
  # A package.json of its own, so npm installs here and not into the project.
  printf '{"name":"agents-test-%s","private":true}\n' "$name" >"$dir/package.json"
  (cd "$dir" && quiet npm install --no-save --ignore-scripts --no-package-lock --engine-strict=false "${package}@${version}")
  [[ -f "$bin" ]] || fail "${name}: ${rel} was not installed (optional platform dependencies omitted?)"
  local got
  got="$($runner "$bin" --version 2>&1)" || fail "${name} ${version} does not run here: $got"
  [[ "$got" == *"$version"* ]] || fail "expected ${name} ${version}, got: $got"
  printf '%s' "$version" >"$marker"
  log "${name} installed: $got"
}

mkdir -p "$AGENTS_DIR"
install claude-code @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" \
  "node_modules/@anthropic-ai/claude-code-${PLATFORM}/claude"
# Codex's npm package is a Node launcher for the native binary of its platform package; the
# harness runs that binary directly.
install codex @openai/codex "$CODEX_VERSION" \
  "node_modules/@openai/codex-${PLATFORM}/vendor/${TRIPLE}/bin/codex"
# Gemini CLI is a Node bundle (engines: node >= 20): it runs on the machine's Node.
install gemini-cli @google/gemini-cli "$GEMINI_CLI_VERSION" \
  "node_modules/@google/gemini-cli/bundle/gemini.js" node
# Copilot CLI's npm package is a Node loader for the native binary of its platform package
# (about 190 MB); the harness runs that binary directly.
install copilot-cli @github/copilot "$COPILOT_CLI_VERSION" \
  "node_modules/@github/copilot-${PLATFORM}/copilot"
log "done"
