/**
 * `npm run test:desktop`: the same extension in a downloaded desktop VS Code, through
 * @vscode/test-electron. For machines that can reach the VS Code download host; the
 * e2e suite (code-server + Chromium, test/e2e) is what .ci/run uses, and nothing there
 * depends on this.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as https from 'node:https';
import { runTests } from '@vscode/test-electron';

const VERSION = process.env.VSCODE_VERSION ?? '1.100.3';
/** What @vscode/test-electron asks first (to check the version), before it downloads anything. */
const RELEASES_URL = 'https://update.code.visualstudio.com/api/releases/stable';
/** Long enough for a slow link to answer, short enough that an offline machine is not left waiting. */
const REACH_TIMEOUT_MS = 10_000;

/** Resolves with why `url` cannot be reached within the timeout, or undefined when it answers. */
function unreachable(url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = https.request(url, { method: 'HEAD', timeout: REACH_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(undefined);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REACH_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/**
 * The desktop VS Code to run: VSCODE_EXECUTABLE_PATH, or one already downloaded into
 * .vscode-test/, or (undefined) one @vscode/test-electron may download. Offline, that
 * download would fail deep inside the library with a bare DNS error (or wait on a
 * blackholed connection), so say plainly what is missing and what to run instead.
 */
async function desktopVsCode(root: string): Promise<string | undefined> {
  const given = process.env.VSCODE_EXECUTABLE_PATH;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`VSCODE_EXECUTABLE_PATH points at ${given}, which does not exist.`);
    return given;
  }
  const cached = fs.existsSync(path.join(root, '.vscode-test')) && fs.readdirSync(path.join(root, '.vscode-test')).some((d) => d.startsWith('vscode-') && d.endsWith(VERSION));
  if (cached) return undefined;
  const why = await unreachable(RELEASES_URL);
  if (why) {
    throw new Error(
      [
        `npm run test:desktop needs desktop VS Code ${VERSION}, which is not downloaded yet, and ${new URL(RELEASES_URL).host} cannot be reached (${why}).`,
        'On a machine without that access:',
        '  - npm run test:e2e runs the end-to-end tests in code-server + Chromium instead (what .ci/run uses), or',
        '  - set VSCODE_EXECUTABLE_PATH to a desktop VS Code (1.100 or later) already on this machine.',
      ].join('\n'),
    );
  }
  return undefined;
}

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..', '..');
  const executable = await desktopVsCode(root);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'desktop-test-'));
  const workspace = path.join(tmp, 'workspace');
  fs.cpSync(path.join(root, 'sample', 'workspace'), workspace, { recursive: true });
  fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
  fs.rmSync(path.join(workspace, '.github'), { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, '.context-ledger'));
  execFileSync(process.execPath, [path.join(root, 'dist', 'cli.js'), 'import', path.join(root, 'sample', 'knowledge.jsonl'), '--db', path.join(workspace, '.context-ledger', 'ledger.db')], { stdio: 'inherit' });
  try {
    await runTests({
      ...(executable ? { vscodeExecutablePath: executable } : { version: VERSION }),
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(__dirname, 'suite'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
