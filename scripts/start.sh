#!/usr/bin/env bash
# `npm start`: see the extension working on the sample workspace with a seeded ledger.
# Uses the local `code` when there is one (extension development host); otherwise the
# browser VS Code of the e2e tests, in its current build (code-server 4.139 = VS Code 1.139,
# installed by scripts/setup-e2e.sh), bound to 127.0.0.1 only, and prints the URL to open.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

WORKSPACE="$ROOT/sample/workspace"
PORT="${PORT:-8740}"

npm run --silent build
# No seeding: the sample commits its Markdown mirror (.context-ledger/artifacts), and the extension builds the
# ledger from it when VS Code opens the folder, as on any fresh clone of a team's repository.

if command -v code >/dev/null 2>&1 && [[ -z "${START_IN_BROWSER:-}" ]]; then
  echo "Opening the sample workspace in VS Code with this extension loaded..."
  exec code --extensionDevelopmentPath="$ROOT" "$WORKSPACE"
fi

# The current VS Code (the newest code-server setup-e2e.sh pins, on its own Node); START_VSCODE=min
# opens the engines.vscode minimum (1.100) instead.
FLAVOUR="${START_VSCODE:-current}"
version_of() { sed -n "s/^$1=\"\([^\"]*\)\".*/\1/p" scripts/setup-e2e.sh; }
E2E_VSCODE="$FLAVOUR" bash scripts/setup-e2e.sh
npm run --silent package
if [[ "$FLAVOUR" == min ]]; then
  ENTRY="$ROOT/.vscode-test/code-server/package/out/node/entry.js"
  NODE=node
else
  ENTRY="$ROOT/.vscode-test/code-server-$(version_of CS_CURRENT_VERSION)/package/out/node/entry.js"
  NODE="$ROOT/.vscode-test/node-$(version_of NODE_CURRENT_VERSION)/package/bin/node"
fi
STATE="$ROOT/.vscode-test/start-$FLAVOUR"
mkdir -p "$STATE/extensions" "$STATE/user-data"
"$NODE" "$ENTRY" --extensions-dir "$STATE/extensions" --user-data-dir "$STATE/user-data" \
  --install-extension "$ROOT/test-output/context-ledger.vsix" --force >/dev/null
echo
echo "Context Ledger is running in VS Code $("$NODE" "$ENTRY" --version | sed -n 's/.*with Code \([0-9.]*\).*/\1/p') in the browser:"
echo "    http://127.0.0.1:${PORT}/?folder=${WORKSPACE}"
echo "(Ctrl+C stops it.)"
touch "$STATE/config.yaml"
exec "$NODE" "$ENTRY" --config "$STATE/config.yaml" --auth none --bind-addr "127.0.0.1:${PORT}" \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --extensions-dir "$STATE/extensions" --user-data-dir "$STATE/user-data" "$WORKSPACE"
