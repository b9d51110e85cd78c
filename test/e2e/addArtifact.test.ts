/**
 * "Context Ledger: Add artifact" end to end in a real code-server + Chromium, as a person
 * would do it: command palette, pick a type, type a (non-ASCII) title, write the body in the
 * draft document, save with Ctrl+S; the artifact then shows in the sidebar and in the
 * database. Screenshots land in test-output/e2e/add-artifact/.
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
  TIMEOUTS,
  activeEditorText,
  openView,
  openWorkbench,
  runCommand,
  screenshot,
  startCodeServer,
  waitFor,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { CodeServer, Workbench } from './harness';

const VSIX = path.join(REPO_ROOT, 'test-output', 'context-ledger.vsix');
const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const TITLE = 'Retries need jitter — café ☕';
const BODY = 'Back off exponentially with full jitter — naïve fixed delays cause thundering herds.';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-add-artifact-'));
const workspace = path.join(tmp, 'workspace');
const db = path.join(workspace, '.context-ledger', 'ledger.db');
const shots = path.join(OUTPUT_DIR, 'add-artifact');
let server: CodeServer | undefined;
let wb: Workbench | undefined;

function run(command: string, args: string[], cwd = REPO_ROOT): string {
  return execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

function listedTitles(): string[] {
  const out = run(process.execPath, [CLI, 'list', '--db', db, '--format', 'json']);
  const parsed = JSON.parse(out) as unknown;
  const rows = (Array.isArray(parsed) ? parsed : ((parsed as { artifacts?: unknown[] }).artifacts ?? [])) as { title?: string }[];
  return rows.map((r) => r.title ?? '');
}

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
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
  fs.cpSync(path.join(REPO_ROOT, 'sample', 'workspace'), workspace, { recursive: true });
  fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
  fs.rmSync(path.join(workspace, '.github'), { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, '.context-ledger'));
  const imported = run(process.execPath, [CLI, 'import', path.join('sample', 'knowledge.jsonl'), '--db', db]);
  assert.match(imported, /[1-9]\d* added/);
  server = await startCodeServer({
    workspace,
    extensionsDir: path.join(tmp, 'extensions'),
    userDataDir: path.join(tmp, 'user-data'),
    vsixPath: VSIX,
    logFile: path.join(shots, 'code-server.log'),
  });
  wb = await openWorkbench(server.url, workspace, shots);
});

after(async () => {
  await wb?.close();
  await server?.stop();
  if (!process.env.E2E_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

test('"Add artifact" with a non-ASCII title: draft, Ctrl+S, then in the sidebar and the database', async () => {
  const page = wb!.page;
  const t0 = Date.now();
  assert.ok(!listedTitles().includes(TITLE), 'the title is not in the seeded ledger');
  await openView(page, 'Artifacts');

  await runCommand(page, 'Context Ledger: Add artifact');
  const box = page.locator('.quick-input-widget .quick-input-box input');
  const firstRow = page.locator('.quick-input-widget .quick-input-list .monaco-list-row .label-name').first();

  await withFailureScreenshot(page, 'pick-type', async () => {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'add artifact' }).waitFor({ state: 'visible' });
    await box.fill('Learning');
    await waitFor(async () => ((await firstRow.textContent()) ?? '').trim(), (l) => l === 'Learning', 'the "Learning" row first');
    await screenshot(page, '01-pick-type');
    await page.keyboard.press('Enter');
  });

  await withFailureScreenshot(page, 'type-title', async () => {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'add learning' }).waitFor({ state: 'visible' });
    await box.focus();
    await page.keyboard.type(TITLE);
    await waitFor(() => box.inputValue(), (v) => v === TITLE, 'the typed title in the input box');
    await screenshot(page, '02-title');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  });

  await withFailureScreenshot(page, 'draft', async () => {
    const text = await waitFor(() => activeEditorText(page), (t) => t.includes('A new artifact') && t.includes(TITLE), 'the draft document');
    assert.match(text, /type: learning/);
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(BODY);
    await waitFor(() => activeEditorText(page), (t) => t.includes(BODY), 'the typed body in the editor');
    await screenshot(page, '03-draft');
    await page.keyboard.press('Control+S');
    // Saved: the tab loses its dirty marker.
    await page.locator('.editor-group-container.active .tab.active.dirty').waitFor({ state: 'detached', timeout: TIMEOUTS.ui });
  });

  const items = await waitForTreeItems(page, 'Artifacts', (all) => all.some((i) => i.label === TITLE), 20_000);
  const item = items.find((i) => i.label === TITLE)!;
  assert.equal(item.depth, 3, `under its scope and type: ${JSON.stringify(items)}`);
  await screenshot(page, '04-sidebar');

  const titles = await waitFor(() => Promise.resolve(listedTitles()), (t) => t.includes(TITLE), 'the title in `context-ledger list`', 10_000);
  assert.equal(titles.filter((t) => t === TITLE).length, 1, 'added exactly once');
  // The body was saved too (searched by a non-ASCII word from it).
  const shown = run(process.execPath, [CLI, 'list', '--db', db, '--format', 'json', '--text', 'naïve fixed delays']);
  assert.ok(shown.includes(TITLE), `list --text "naïve fixed delays": ${shown}`);
  console.log(`add-artifact flow took ${Date.now() - t0} ms`);
});
