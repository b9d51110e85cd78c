#!/usr/bin/env bash
# The real-agent suite: installs the agent CLIs (scripts/setup-agents.sh, cached), compiles
# test/agents (tsconfig.agents.json -> out/test/agents) and runs every *.test.js there. The
# tests run the real agent binaries against a scripted model on 127.0.0.1 (see
# test/agents/README.md); hook tests also need the built CLI (dist/cli.js, `npm run build`).
# Usage: bash scripts/test-agents.sh [test files under out/test/agents/…]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-agents.sh
rm -rf out/test/agents # a renamed or deleted test must not run from a stale build
npx tsc -p tsconfig.agents.json
[[ -f dist/cli.js && -f dist/hook.cjs ]] || npm run build
start=$SECONDS
if (($#)); then files=("$@"); else files=(out/test/agents/); fi
node --test --test-concurrency=1 "${files[@]}"
echo "=== agents: passed in $((SECONDS - start)) s ==="
