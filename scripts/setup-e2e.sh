#!/usr/bin/env bash
# Installs what the end-to-end tests need: Debian packages (Chromium, ripgrep,
# headers for native modules) and code-server 4.100.3 (VS Code 1.100.3) under
# .vscode-test/code-server/. Idempotent and cached: a second run does nothing.
# See /work/shared/e2e/NOTES.md and test/e2e/README.md for why each step exists.
set -euo pipefail

CS_VERSION="4.100.3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CS_DIR="${ROOT}/.vscode-test/code-server"
PKG="${CS_DIR}/package"
MARKER="${CS_DIR}/.install-complete"
APT_PACKAGES=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium)

START=$SECONDS
log() { printf '[setup-e2e %3ss] %s\n' "$((SECONDS - START))" "$*"; }
fail() { printf '[setup-e2e] ERROR: %s\n' "$*" >&2; exit 1; }
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

# --- 2. code-server --------------------------------------------------------------
if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$CS_VERSION" ]] &&
  node "$PKG/out/node/entry.js" --version >/dev/null 2>&1; then
  log "code-server ${CS_VERSION}: cached in ${CS_DIR#"$ROOT"/} (done)"
  exit 0
fi

# node-gyp cannot download Node headers here (nodejs.org is unreachable); point it at
# the headers that ship with the Debian/NodeSource node package when they exist.
if [[ -z "${npm_config_nodedir:-}" ]]; then
  NODE_PREFIX="$(dirname "$(dirname "$(command -v node)")")"
  if [[ -f "$NODE_PREFIX/include/node/node.h" ]]; then
    export npm_config_nodedir="$NODE_PREFIX"
  fi
fi

mkdir -p "$CS_DIR"
rm -f "$MARKER"
TGZ="${CS_DIR}/code-server-${CS_VERSION}.tgz"
if [[ ! -s "$TGZ" ]]; then
  log "npm pack code-server@${CS_VERSION}"
  (cd "$CS_DIR" && quiet npm pack "code-server@${CS_VERSION}")
  [[ -s "$TGZ" ]] || fail "npm pack did not produce $TGZ"
fi
log "unpacking"
rm -rf "$PKG"
tar -xzf "$TGZ" -C "$CS_DIR"

log "npm install (code-server)"
(cd "$PKG" && quiet npm install --omit=dev --ignore-scripts && quiet npm rebuild argon2)

log "npm install (lib/vscode)"
(cd "$PKG/lib/vscode" && quiet npm install --omit=dev --ignore-scripts)
log "npm rebuild native modules (lib/vscode)"
(cd "$PKG/lib/vscode" &&
  quiet npm rebuild kerberos node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid)

log "ripgrep + symlinks"
mkdir -p "$PKG/lib/vscode/node_modules/@vscode/ripgrep/bin"
cp -f /usr/bin/rg "$PKG/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
ln -sfn node_modules "$PKG/lib/vscode/node_modules.asar"
(cd "$PKG/lib/vscode/bin/remote-cli" && ln -sfn code-linux.sh code-server)
(cd "$PKG/lib/vscode/bin/helpers" && ln -sfn browser-linux.sh browser.sh)

log "npm install (lib/vscode/extensions)"
(cd "$PKG/lib/vscode/extensions" && quiet npm install --omit=dev --ignore-scripts)

version="$(node "$PKG/out/node/entry.js" --version 2>&1)" || fail "code-server does not start: $version"
printf '%s' "$CS_VERSION" >"$MARKER"
log "code-server installed: $(echo "$version" | tail -n 1)"
