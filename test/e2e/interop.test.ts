/**
 * Interop in a real code-server + Chromium, as a person would use it: "Import Knowledge…"
 * on a workspace that keeps an ADR folder and Copilot instructions (detected formats in a
 * multi-select, a dry-run summary to confirm, the result message), the artifacts then in
 * the sidebar and in the database; and "Which Rules Apply to This File?" on an open file.
 * The menus on a file (Which Rules, Add module memory, on code-server's vscode-remote: files)
 * are walked by newUser.test.ts on both builds. Screenshots land in test-output/e2e/interop/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  CLI_PATH,
  TIMEOUTS,
  activeEditorText,
  clickDialogButton,
  openFile,
  openView,
  openWorkbench,
  OUTPUT_DIR,
  packageExtension,
  REPO_ROOT,
  runCommand,
  runCommandForQuickInput,
  screenshot,
  startCodeServer,
  VSIX_PATH,
  viewPane,
  waitFor,
  waitForDialog,
  waitForNotification,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { CodeServer, Workbench } from './harness';

const VSIX = VSIX_PATH;
const CLI = CLI_PATH;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-interop-'));
const workspace = path.join(tmp, 'workspace');
const db = path.join(workspace, '.context-ledger', 'ledger.db');
const shots = path.join(OUTPUT_DIR, 'interop');
let server: CodeServer | undefined;
let wb: Workbench | undefined;

const FILES: Record<string, string> = {
  'docs/adr/0001-use-sqlite-for-the-ledger.md': [
    '# 1. Use SQLite for the ledger',
    '',
    'Date: 2024-03-01',
    '',
    '## Status',
    '',
    'Accepted',
    '',
    '## Context',
    '',
    'The ledger must travel with the repository — one file, no server.',
    '',
    '## Decision',
    '',
    'Keep it in a single SQLite file under `.context-ledger/`.',
    '',
  ].join('\n'),
  'docs/adr/0002-déjà-vu-retries.md': [
    '---',
    'status: accepted',
    'date: 2024-05-10',
    'tags: [network, résilience]',
    '---',
    '# Retries back off with jitter — déjà vu avoided',
    '',
    '## Context and Problem Statement',
    '',
    'Fixed retry delays caused thundering herds.',
    '',
    '## Decision Outcome',
    '',
    'Exponential back-off with full jitter.',
    '',
  ].join('\n'),
  '.github/copilot-instructions.md': '# Project conventions\n\n## Errors\n\nThrow `UserError` for anything the user can fix.\n\n## Style\n\nNamed exports only.\n',
  '.github/instructions/typescript.instructions.md': '---\napplyTo: "src/**/*.ts"\n---\nUse strict TypeScript; no `any`.\n',
  '.github/instructions/python.instructions.md': '---\napplyTo: "src/**/*.py, docs/**"\n---\nPython files follow PEP 8.\n',
  'src/app.ts': 'export const answer = 42;\n',
};

function run(command: string, args: string[], cwd = REPO_ROOT): string {
  return execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

function listed(): { title: string; type: string; scope: string; paths: string[] }[] {
  if (!fs.existsSync(db)) return [];
  const parsed = JSON.parse(run(process.execPath, [CLI, 'list', '--db', db, '--format', 'json'])) as unknown;
  return (Array.isArray(parsed) ? parsed : ((parsed as { artifacts?: unknown[] }).artifacts ?? [])) as { title: string; type: string; scope: string; paths: string[] }[];
}

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  packageExtension();
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace, rel), text);
  }
  server = await startCodeServer({
    workspace,
    extensionsDir: path.join(tmp, 'extensions'),
    userDataDir: path.join(tmp, 'user-data'),
    vsixPath: VSIX,
    // Small enough that the global rule file cannot hold every artifact.
    // Import watch off: the last test's import is the one that reads the files it adds.
    settings: { 'contextLedger.export.ruleFileBudget': 150, 'contextLedger.import.watch': false },
    logFile: path.join(shots, 'code-server.log'),
  });
  wb = await openWorkbench(server.url, workspace, shots);
});

after(async () => {
  await wb?.close();
  await server?.stop();
  if (!process.env.E2E_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

test('"Import Knowledge…" finds the ADR folder and the Copilot instructions, shows a dry run, imports them into the tree and the database', async () => {
  const page = wb!.page;
  assert.equal(fs.existsSync(db), false, 'no ledger before the import');
  await openView(page, 'Artifacts');
  // An empty ledger: the Artifacts view's welcome offers the import...
  await withFailureScreenshot(page, 'welcome-import', () =>
    viewPane(page, 'Artifacts').locator('.welcome-view-content .monaco-button', { hasText: 'Import Knowledge…' }).waitFor({ state: 'visible', timeout: TIMEOUTS.command }),
  );
  // ...and so does a build, which says why there is nothing to copy and creates no ledger.
  await runCommand(page, 'Context Ledger: Build agent context');
  const empty = await waitForNotification(page, /holds no knowledge yet/);
  assert.match(empty, /no context to copy/);
  assert.equal(fs.existsSync(db), false, 'a build on no ledger created one');
  await screenshot(page, '00-empty-build');
  await withFailureScreenshot(page, 'empty-build-import', () =>
    page.locator('.notifications-toasts .notification-list-item', { hasText: 'holds no knowledge yet' }).locator('.monaco-button', { hasText: 'Import Knowledge…' }).click({ timeout: TIMEOUTS.ui }),
  );

  await withFailureScreenshot(page, 'import-pick', async () => {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Import Knowledge' }).waitFor({ state: 'visible' });
    const labels = await waitFor(
      () => page.locator('.quick-input-widget .quick-input-list .monaco-list-row .label-name').allInnerTexts(),
      (l) => l.length >= 3,
      'the detected formats',
    );
    // Each format with its files on a detail line.
    assert.deepEqual(
      labels.map((l) => l.trim()).filter((l) => !l.includes('.md')),
      ['ADR folder', 'Copilot instructions', 'Another folder…'],
    );
    assert.ok(labels.some((l) => l.includes('docs/adr/: 0001-use-sqlite-for-the-ledger.md, 0002-déjà-vu-retries.md')), JSON.stringify(labels));
    // Both detected formats come pre-selected.
    assert.match((await page.locator('.quick-input-widget .quick-input-count').first().innerText()).trim(), /^2 Selected$/);
    await screenshot(page, '01-import-pick');
    await page.keyboard.press('Enter');
  });

  await withFailureScreenshot(page, 'import-confirm', async () => {
    const dialog = await waitForDialog(page);
    // What it WILL do, with the titles (as `import-folder --dry-run` names them).
    assert.match(dialog.message, /Import into the ledger of workspace\? It will add 6\./);
    assert.match(dialog.detail, /ADR folder \(2 files\): will add 2/);
    assert.match(dialog.detail, /\+ ADR-0001: Use SQLite for the ledger/);
    assert.match(dialog.detail, /Copilot instructions \(3 files\): will add 4/);
    assert.doesNotMatch(dialog.message + dialog.detail, /\b\d+ (added|updated)\b/, 'nothing in the past tense before anything happened');
    assert.equal(fs.existsSync(db), false, 'the dry run wrote nothing');
    await screenshot(page, '02-import-dry-run');
    await clickDialogButton(page, 'Import');
  });

  await waitForNotification(page, /Context Ledger: added 6 in the ledger of workspace from ADR folder and Copilot instructions\./);

  const rows = listed();
  const titles = rows.map((r) => r.title);
  assert.ok(titles.includes('ADR-0001: Use SQLite for the ledger'), JSON.stringify(titles));
  assert.ok(titles.includes('ADR-0002: Retries back off with jitter — déjà vu avoided'), JSON.stringify(titles));
  assert.ok(
    rows.some((r) => r.scope === 'path' && r.paths.includes('src/**/*.ts')),
    `the applyTo glob became a path scope: ${JSON.stringify(rows)}`,
  );

  const hasTitles = (all: { label: string }[]): boolean =>
    all.some((i) => i.label === 'ADR-0001: Use SQLite for the ledger') && all.some((i) => i.label === 'ADR-0002: Retries back off with jitter — déjà vu avoided');
  await waitForTreeItems(page, 'Artifacts', hasTitles, 20_000).catch(async () => {
    // A group the tree left collapsed: open it, as a person would.
    for (const row of await page.locator('.pane-body .monaco-list-row[aria-expanded="false"]').all()) await row.click();
    return waitForTreeItems(page, 'Artifacts', hasTitles, 10_000);
  });
  await screenshot(page, '03-imported-tree');

  // Importing again: nothing new, said so, nothing written.
  const before = fs.statSync(db).mtimeMs;
  await runCommandForQuickInput(page, 'Context Ledger: Import Knowledge…', 'Import Knowledge');
  await page.keyboard.press('Enter');
  await waitForNotification(page, /nothing new to import — 6 already in the ledger, unchanged[.;]/);
  assert.equal(fs.statSync(db).mtimeMs, before, 're-import left the database file alone');
});

test('"Which Rules Apply to This File?" on an open file lists the rule files that fire, each with its glob mistakes', async () => {
  const page = wb!.page;
  await openFile(page, 'src/app.ts');
  await runCommand(page, 'Context Ledger: Which Rules Apply to This File?');
  const text = await waitFor(() => activeEditorText(page), (t) => t.includes('Which rules apply') && t.includes('Rule files:'), 'the which-rules report');
  assert.match(text, /fires\s+\.github\/copilot-instructions\.md/);
  assert.match(text, /fires\s+\.github\/instructions\/typescript\.instructions\.md\s+\(applyTo src\/\*\*\/\*\.ts\)/);
  assert.match(text, /silent\s+\.github\/instructions\/python\.instructions\.md/);
  // One verdict per rule file, with its own glob problems under it.
  assert.match(text, /silent\s+\.github\/instructions\/python\.instructions\.md[^\n]*\n\s+! applyTo: [^\n]*has a space after a comma/);
  // The imported path-scoped artifact applies too.
  assert.match(text, /1 path-scoped artifacts/);
  await screenshot(page, '04-which-rules');
});

async function exportCopilot(page: Workbench['page'], expected: RegExp): Promise<string> {
  // Only this export's message counts.
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommandForQuickInput(page, 'Context Ledger: Export to Agent Rules…', 'Export to Agent Rules');
  await page.locator('.quick-input-widget .quick-input-box input').fill('Copilot');
  await page.keyboard.press('Enter');
  return waitForNotification(page, expected);
}

test('"Export to Agent Rules…" writes Copilot instruction files within contextLedger.export.ruleFileBudget; the Markdown mirror holds one file per artifact, and "Sync Artifact Files" finds it current', async () => {
  const page = wb!.page;
  const global = path.join(workspace, '.github', 'instructions', 'context-ledger-global.instructions.md');
  // The budget from the user settings (150 tokens a file): what does not fit the global file goes
  // on to a further global file, which Copilot attaches the same way. Nothing is dropped for size.
  const folder = path.join(workspace, '.github', 'instructions');
  const exportedFiles = () => fs.readdirSync(folder).filter((n) => n.startsWith('context-ledger-')).sort();
  const message = await exportCopilot(page, /Context Ledger: wrote \d+ Copilot instructions files \(6 artifacts, at most 150 tokens a file\)/);
  assert.deepEqual(exportedFiles(), [
    'context-ledger-docs-src-py-bb6703.instructions.md',
    'context-ledger-global-2.instructions.md',
    'context-ledger-global.instructions.md',
    'context-ledger-src-ts-daeff6.instructions.md',
  ], message);
  for (const name of exportedFiles()) {
    const tokens = Number(/^(\d+) tokens/.exec(run(process.execPath, [CLI, 'count', path.join(folder, name)]))![1]);
    assert.ok(tokens <= 150, `${name}: ${tokens} tokens`);
  }
  const everything = exportedFiles().map((n) => fs.readFileSync(path.join(folder, n), 'utf8')).join('\n');
  for (const said of [/Use SQLite for the ledger/, /back off with jitter/, /Throw `UserError`/, /Named exports only/, /no `any`/, /PEP 8/]) assert.match(everything, said);
  await screenshot(page, '05a-export-budget-150');

  // A workspace setting takes over at once: 300 tokens hold the global knowledge in one file,
  // and the further file of the earlier export is removed.
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'contextLedger.export.ruleFileBudget': 300 }));
  await waitFor(
    async () => {
      // Any export's message: until the editor has read the new settings file, an export still
      // writes at 150 tokens (4 files), and the next attempt comes at once.
      await exportCopilot(page, /Context Ledger: wrote \d+ Copilot instructions files/);
      return exportedFiles();
    },
    (names) => !names.includes('context-ledger-global-2.instructions.md'),
    'an export with the 300-token workspace setting',
    TIMEOUTS.command,
  );
  const text = fs.readFileSync(global, 'utf8');
  assert.match(text, /Use SQLite for the ledger/);
  assert.match(text, /Named exports only/);
  // The hand-written instructions are untouched.
  assert.equal(fs.readFileSync(path.join(workspace, '.github/instructions/typescript.instructions.md'), 'utf8'), FILES['.github/instructions/typescript.instructions.md']);

  // The Markdown mirror follows the ledger on its own (debounced): one file per imported artifact
  // is there without a command, and Sync Artifact Files finds nothing left to write.
  const mirror = path.join(workspace, '.context-ledger', 'artifacts');
  const mirrorFiles = (): string[] => (fs.existsSync(mirror) ? fs.readdirSync(mirror, { recursive: true }).map(String).filter((n) => n.endsWith('.md')) : []);
  await waitFor(() => Promise.resolve(mirrorFiles()), (files) => files.length === 6, 'one mirror file per imported artifact', TIMEOUTS.command);
  await runCommand(page, 'Context Ledger: Sync Artifact Files');
  await waitForNotification(page, /Context Ledger: synced .*0 added to the ledger, 0 updated, 0 archived, 0 files written/);
  assert.equal(mirrorFiles().length, 6, mirrorFiles().join(', '));
  await screenshot(page, '05-export-and-sync');
});

test('what "Import Knowledge…" skips goes to the Problems view, on the file and line, and the result names only what it imported', async () => {
  const page = wb!.page;
  // An instructions file with nothing under its front matter, and a ctx file with a stray line.
  const empty = '.github/instructions/empty.instructions.md';
  fs.writeFileSync(path.join(workspace, empty), '---\napplyTo: "docs/**"\n---\n\n');
  fs.mkdirSync(path.join(workspace, '.context'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.context', 'DECISIONS.md'), '# Decisions\n\nstray text\n\n## [2024-05-01] Keep the ledger in SQLite\n\nOne file, easy to back up.\n');
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommandForQuickInput(page, 'Context Ledger: Import Knowledge…', 'Import Knowledge');
  await page.keyboard.press('Enter');
  await withFailureScreenshot(page, 'import-problems-confirm', async () => {
    const dialog = await waitForDialog(page);
    assert.match(dialog.message, /It will add 1, leave \d+ unchanged and skip \d+ files/);
    assert.match(dialog.detail, /\+ Keep the ledger in SQLite/);
    assert.match(dialog.detail, /× \.github\/instructions\/empty\.instructions\.md: no content/);
    await screenshot(page, '06a-import-preview-with-skips');
    await clickDialogButton(page, 'Import');
  });
  const message = await waitForNotification(page, /Context Ledger: added 1 in the ledger of workspace from ctx \.context\/ folder; \d+ unchanged, \d+ files skipped\./);
  assert.doesNotMatch(message, /Copilot|ADR/, 'formats it took nothing from are not named');
  await withFailureScreenshot(page, 'show-problems', () =>
    page.locator('.notifications-toasts .notification-list-item', { hasText: 'files skipped' }).locator('.monaco-button', { hasText: 'Show Problems' }).click({ timeout: TIMEOUTS.ui }),
  );
  const rows = page.locator('.markers-panel .monaco-list-row');
  const texts = await waitFor(
    () => rows.allInnerTexts().then((all) => all.map((t) => t.replace(/\s+/g, ' '))),
    (all) => all.some((t) => t.includes('no content')) && all.some((t) => t.includes('not a [timestamp] entry')),
    'the skipped files in the Problems view',
  );
  const joined = texts.join('\n');
  assert.match(joined, /empty\.instructions\.md/);
  assert.match(joined, /DECISIONS\.md/);
  assert.match(joined, /Import Knowledge skipped this: text under "Decisions" is not a \[timestamp\] entry.*\[Ln 1, Col 1\]/);
  await screenshot(page, '06b-problems-view');
});
