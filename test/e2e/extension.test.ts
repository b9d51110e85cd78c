/**
 * The packaged Context Ledger extension in a real code-server + Chromium: the sidebar
 * lists the seeded artifacts, "Build agent context" puts the context on the clipboard,
 * and the status bar shows the budget meter. Screenshots land in test-output/e2e/extension/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  OUTPUT_DIR,
  REPO_ROOT,
  activeEditorTitle,
  openFile,
  openView,
  openWorkbench,
  runCommand,
  screenshot,
  startCodeServer,
  statusBarTexts,
  waitForClipboard,
  waitForNotification,
  waitForStatusBarText,
  waitForTreeItems,
} from './harness';
import type { CodeServer, Workbench } from './harness';

const BUDGET = 1500;
const VSIX = path.join(REPO_ROOT, 'test-output', 'context-ledger.vsix');
const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const SEEDED_TITLES = ['Never log card numbers or CVCs', 'Every money amount is an integer of minor units'];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-extension-'));
const workspace = path.join(tmp, 'workspace');
const shots = path.join(OUTPUT_DIR, 'extension');
let server: CodeServer | undefined;
let wb: Workbench | undefined;

function run(command: string, args: string[], cwd = REPO_ROOT): string {
  return execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  const t0 = Date.now();
  // Build the production bundle and the .vsix exactly as `npm run package` does.
  run(process.execPath, ['esbuild.config.mjs', '--production']);
  run(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--allow-missing-repository',
    '--skip-license',
    '--out',
    VSIX,
  ]);
  const t1 = Date.now();
  fs.cpSync(path.join(REPO_ROOT, 'sample', 'workspace'), workspace, { recursive: true });
  fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
  fs.rmSync(path.join(workspace, '.github'), { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, '.context-ledger'));
  const imported = run(process.execPath, [CLI, 'import', path.join('sample', 'knowledge.jsonl'), '--db', path.join(workspace, '.context-ledger', 'ledger.db')]);
  assert.match(imported, /[1-9]\d* added/);
  server = await startCodeServer({
    workspace,
    extensionsDir: path.join(tmp, 'extensions'),
    userDataDir: path.join(tmp, 'user-data'),
    vsixPath: VSIX,
    settings: { 'contextLedger.budget': BUDGET },
    logFile: path.join(shots, 'code-server.log'),
  });
  const t2 = Date.now();
  wb = await openWorkbench(server.url, workspace, shots);
  console.log(`packaged in ${t1 - t0} ms, code-server up ${t2 - t1} ms later, workbench ready ${Date.now() - t2} ms after that`);
});

after(async () => {
  await wb?.close();
  await server?.stop();
  if (!process.env.E2E_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the packaged .vsix is small and holds only what it needs', () => {
  assert.ok(fs.statSync(VSIX).size < 5 * 1024 * 1024, 'the .vsix should be under 5 MB');
});

test('the sidebar lists the seeded artifacts', async () => {
  const page = wb!.page;
  await openView(page, 'Artifacts');
  const items = await waitForTreeItems(page, 'Artifacts', (all) => SEEDED_TITLES.every((t) => all.some((i) => i.label === t)), 45_000);
  assert.ok(items.some((i) => i.label === 'Global' && i.depth === 1), `expected a "Global" scope group: ${JSON.stringify(items.slice(0, 5))}`);
  const artifact = items.find((i) => i.label === SEEDED_TITLES[0])!;
  assert.equal(artifact.depth, 3, 'artifacts sit under their scope and type');
  await screenshot(page, '01-sidebar');
});

test('"Build agent context" copies the context with a seeded artifact and stays within the budget', async () => {
  const page = wb!.page;
  await openFile(page, 'src/payments/webhooks.ts');
  assert.equal(await activeEditorTitle(page), 'webhooks.ts');
  await runCommand(page, 'Context Ledger: Build agent context');
  const text = await waitForClipboard(page, /ledger:\/\/artifact\//);
  assert.ok(text.includes(SEEDED_TITLES[0]!), `the context should contain "${SEEDED_TITLES[0]}"`);
  assert.match(text, /ledger:\/\/artifact\/harbor-const-1/);
  const note = await waitForNotification(page, /copied the context/);
  const m = /(\d+) of (\d+) tokens/.exec(note);
  assert.ok(m, `notification should state the token use: ${note}`);
  assert.equal(Number(m[2]), BUDGET);
  assert.ok(Number(m[1]) > 0 && Number(m[1]) <= BUDGET, `used ${m[1]} of ${m[2]}`);
  const showDetails = page.locator('.notifications-toasts .monaco-button', { hasText: 'Show details' });
  assert.ok((await showDetails.count()) > 0, 'the notification offers "Show details"');
  await screenshot(page, '02-build-context');
});

test('the status bar shows the budget meter', async () => {
  const page = wb!.page;
  const meter = await waitForStatusBarText(page, /^\d+(\.\d+)?k?\/1\.5k$/);
  const used = meter.split('/')[0]!;
  const usedTokens = used.endsWith('k') ? Number(used.slice(0, -1)) * 1000 : Number(used);
  assert.ok(usedTokens > 0 && usedTokens <= BUDGET, `meter ${meter}; status bar: ${(await statusBarTexts(page)).join(' | ')}`);
  await screenshot(page, '03-status-bar');
});
