/**
 * Restricted Mode in a real code-server + Chromium: the sample workspace opened untrusted.
 * What only reads the ledger keeps working (Build agent context); what would read or write
 * files the workspace controls refuses with a message that says why and offers the trust
 * editor (Import Knowledge, Export to Agent Rules, Sync Artifact Files, the agent inbox),
 * auto-inject writes nothing, an imported AGENTS.md that changes is not followed, and nothing
 * lands on disk. Trusting the workspace then turns the inbox, auto-inject and the following of
 * knowledge files on. Screenshots land in test-output/e2e/restricted/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  TIMEOUTS,
  activeEditorTitle,
  openFile,
  openView,
  runCli,
  runCommand,
  screenshot,
  startExtensionSession,
  viewPane,
  waitFor,
  waitForClipboard,
  waitForNotification,
  waitForStatusBarText,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { ExtensionSession } from './harness';

let session: ExtensionSession | undefined;
const INJECTED = '.github/instructions/context-ledger.instructions.md';
const INBOX_TITLE = 'Holds expire after 15 minutes — Sperrfrist';
const AGENTS = (marker: string): string => `# Holds\n\nA hold lasts 15 minutes (${marker}).\n`;

/** The latest version of the artifact imported from AGENTS.md. */
function agentsArtifact(db: string): { version: number; bodyChars: number } | undefined {
  return (JSON.parse(runCli(['list', '--db', db, '--format', 'json'])) as { source: string; version: number; bodyChars: number }[]).find((a) => a.source === 'import:agents-md:AGENTS.md');
}

function titles(db: string): string[] {
  return (JSON.parse(runCli(['list', '--db', db, '--format', 'json'])) as { title: string }[]).map((a) => a.title);
}

/** Files under `rel` in the workspace (recursively), or [] when it does not exist. */
function filesUnder(rel: string): string[] {
  const dir = path.join(session!.workspace, rel);
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String) : [];
}

before(async () => {
  session = await startExtensionSession(
    'restricted',
    {},
    {
      trusted: false,
      // An AGENTS.md imported earlier (when the workspace was trusted): followed only once it is trusted again.
      prepare: ({ workspace, db }) => {
        fs.writeFileSync(path.join(workspace, 'AGENTS.md'), AGENTS('RESTRICTED-BEFORE'));
        runCli(['import-folder', workspace, '--from', 'agents-md', '--db', db]);
      },
    },
  );
  // Knowledge the workspace keeps, which a trusted import would read: an ADR and an inbox file.
  fs.mkdirSync(path.join(session.workspace, 'docs', 'adr'), { recursive: true });
  fs.writeFileSync(path.join(session.workspace, 'docs', 'adr', '0001-holds.md'), '# 1. Holds live in Redis\n\n## Status\n\nAccepted\n\n## Decision\n\nRedis with a TTL.\n');
  const inbox = path.join(session.workspace, '.context-ledger', 'inbox');
  fs.mkdirSync(inbox, { recursive: true });
  fs.writeFileSync(path.join(inbox, '001.json'), JSON.stringify({ type: 'decision', title: INBOX_TITLE, body: 'A hold is released when its 15 minutes are up.' }));
});

after(async () => {
  await session?.close();
});

test('the workspace opens in Restricted Mode and "Build agent context" still works', async () => {
  const { page } = session!.wb;
  await waitForStatusBarText(page, /Restricted Mode/);
  await runCommand(page, 'Context Ledger: Build agent context');
  const text = await waitForClipboard(page, /Never log card numbers/);
  assert.match(text, /^## Rules$/m);
  // The preview opens beside, after the copy; it takes the focus (and would close a
  // Command Palette the next test opens in the meantime).
  await waitFor(() => activeEditorTitle(page), (t) => t.startsWith('Agent context'), 'the preview editor');
  await screenshot(page, '01-restricted-build');
});

test('Import Knowledge, Export to Agent Rules and Sync Artifact Files refuse with a message, and write nothing', async () => {
  const { page } = session!.wb;
  const { db } = session!;
  // Every other file of the ledger's folder (a lock, the knowledge files' stamps, a temporary file, a database moved aside), by name, size and time.
  const ledgerFolder = (): string[] =>
    fs.readdirSync(path.dirname(db))
      .filter((name) => name !== 'artifacts' && name !== 'inbox')
      .map((name) => {
        const stat = fs.statSync(path.join(path.dirname(db), name));
        return `${name} ${stat.size} ${stat.mtimeMs}`;
      })
      .sort();
  // The seeding CLI already wrote the Markdown mirror (every CLI write keeps it current): the refusal must leave it as it is.
  const mirrorFiles = (): string[][] =>
    filesUnder('.context-ledger/artifacts')
      .map((f) => path.join(session!.workspace, '.context-ledger', 'artifacts', f))
      .filter((f) => fs.statSync(f).isFile())
      .map((f) => [f, fs.readFileSync(f, 'utf8')]);
  // Read by the CLI before the knowledge file changes: the CLI follows it (trust is the editor's), the extension must not.
  const titlesBefore = titles(db);
  // A knowledge file the ledger imported changes on disk: untrusted, it is not followed (the checks below see no write).
  fs.writeFileSync(path.join(session!.workspace, 'AGENTS.md'), AGENTS('RESTRICTED-AFTER, changed while untrusted'));
  const mirrorBefore = mirrorFiles();
  const before = { mtime: fs.statSync(db).mtimeMs, folder: ledgerFolder(), titles: titlesBefore };
  const cases: [string, RegExp][] = [
    ['Context Ledger: Import Knowledge…', /does not import knowledge in Restricted Mode: it would read and write files this workspace controls/],
    ['Context Ledger: Export to Agent Rules…', /does not export agent rules in Restricted Mode/],
    ['Context Ledger: Sync Artifact Files', /does not sync the artifact files in Restricted Mode/],
  ];
  for (const [command, message] of cases) {
    await runCommand(page, command);
    const shown = await waitForNotification(page, message);
    assert.match(shown, /Trust the workspace to /);
  }
  // Each refusal offers the trust editor.
  const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'does not sync the artifact files' }).first();
  assert.equal(await toast.locator('.monaco-button', { hasText: 'Manage Workspace Trust' }).count(), 1);
  await screenshot(page, '02-refusals');

  assert.deepEqual(filesUnder('.github'), [], 'no rule files exported');
  assert.deepEqual(mirrorFiles(), mirrorBefore, 'the Markdown mirror is not written');
  // The extension did not follow the changed AGENTS.md: nothing was written.
  assert.equal(fs.statSync(db).mtimeMs, before.mtime, 'the ledger was not written');
  assert.deepEqual(ledgerFolder(), before.folder, 'nor any other file in its folder');
  assert.equal(agentsArtifact(db)?.version, 2, 'the CLI (run by hand, where trust is not a question) follows it');
  assert.deepEqual(titles(db), before.titles);
  assert.ok(!titles(db).includes('Holds live in Redis'), 'the ADR was not imported');
});

test('the agent inbox is left unread, and "Read the Agent Inbox Now" says why', async () => {
  const { page } = session!.wb;
  await openView(page, 'Needs Review');
  const link = viewPane(page, 'Needs Review').locator('.welcome-view-content .monaco-button', { hasText: 'Read the Agent Inbox Now' });
  await withFailureScreenshot(page, 'inbox-link', () => link.click({ timeout: TIMEOUTS.ui }));
  await waitForNotification(page, /does not read the agent inbox in Restricted Mode/);
  await screenshot(page, '03-inbox-refused');
  assert.ok(fs.existsSync(path.join(session!.workspace, '.context-ledger', 'inbox', '001.json')), 'the inbox file is still there');
  assert.ok(!titles(session!.db).includes(INBOX_TITLE));
});

test('opening a file updates the budget meter but auto-inject writes no file', async () => {
  const { page } = session!.wb;
  await openFile(page, 'src/payments/webhooks.ts');
  await waitForStatusBarText(page, /\d(\.\d)?k?\/8k/);
  // The meter and auto-inject share one debounced update: give a write the same time again.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  assert.ok(!fs.existsSync(path.join(session!.workspace, INJECTED)), 'no instructions file in Restricted Mode');
  await screenshot(page, '04-no-auto-inject');
});

test('trusting the workspace reads the inbox and starts auto-inject', async () => {
  const { page } = session!.wb;
  await runCommand(page, 'Workspaces: Manage Workspace Trust');
  await withFailureScreenshot(page, 'trust', async () => {
    const trust = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trust.click({ timeout: TIMEOUTS.ui });
  });
  await waitFor(() => Promise.resolve(titles(session!.db)), (t) => t.includes(INBOX_TITLE), 'the inbox file in the ledger', TIMEOUTS.command);
  await openView(page, 'Needs Review');
  await waitForTreeItems(page, 'Needs Review', (items) => items.some((i) => i.label === INBOX_TITLE));
  const injected = await waitFor(
    () => Promise.resolve(fs.existsSync(path.join(session!.workspace, INJECTED)) ? fs.readFileSync(path.join(session!.workspace, INJECTED), 'utf8') : ''),
    (t) => t !== '',
    'the auto-inject file',
    TIMEOUTS.command,
  );
  // The knowledge file that changed while untrusted is caught up with.
  await waitFor(() => Promise.resolve(agentsArtifact(session!.db)?.version), (v) => v === 2, 'AGENTS.md refreshed after trust', TIMEOUTS.command);
  assert.match(injected, /applyTo: "\*\*"/);
  assert.match(injected, /Never log card numbers/);
  await screenshot(page, '05-trusted');
});
