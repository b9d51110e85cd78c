/**
 * Live knowledge files in a real code-server: a workspace whose AGENTS.md, Cursor rules and
 * Cline `.cline/rules/` were imported (`context-ledger import-folder`, a pin set in the ledger) is open in VS Code
 * while its files change on disk — written by the test as an editor or a script would, a new
 * rule file, a `git checkout` of another branch. Each time the Artifacts view shows the
 * refreshed artifact within seconds, the next "Build agent context" holds the new text, and
 * the pin made in the ledger is still there. Screenshots in test-output/e2e/knowledge-watch/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openView, readClipboard, runCli, runCommand, screenshot, startExtensionSession, TIMEOUTS, treeItems, viewPane, waitFor, waitForNotification } from './harness';
import type { ExtensionSession, TreeItem, Workbench } from './harness';

let session: ExtensionSession | undefined;
let wb: Workbench | undefined;
let workspace = '';
let db = '';

const WEBHOOKS = '## Webhooks\n\nVerify every webhook signature before parsing the body.\n';
const CHARGEBACKS = '## Chargebacks\n\nA chargeback freezes the order until finance reviews it.\n';
const agents = (refunds: string, rest = `${WEBHOOKS}\n${CHARGEBACKS}`): string => `# Payments conventions\n\n## Refunds\n\n${refunds}\n\n${rest}`;
/** A Cursor rule: its description is the artifact's title. */
const RULE = (title: string, text: string): string => `---\ndescription: ${title}\nalwaysApply: true\n---\n${text}\n`;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, encoding: 'utf8', stdio: 'pipe' });
}

interface Listed {
  chainId: string;
  title: string;
  version: number;
  status: string;
  pinned: boolean;
}

function listed(...filter: string[]): Listed[] {
  return JSON.parse(runCli(['list', ...filter, '--db', db, '--format', 'json'])) as Listed[];
}

before(async () => {
  session = await startExtensionSession(
    'knowledge-watch',
    { 'contextLedger.budget': 8000, 'contextLedger.autoInject.enabled': false },
    {
      prepare: (seeded) => {
        ({ workspace, db } = seeded);
        // Only the workspace's own knowledge, imported as a user would: the sample ledger goes.
        fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
        fs.writeFileSync(path.join(workspace, 'AGENTS.md'), agents('Refunds go through the refund queue (ALPHA-ORIGINAL).'));
        fs.mkdirSync(path.join(workspace, '.cursor', 'rules'), { recursive: true });
        fs.writeFileSync(path.join(workspace, '.cursor', 'rules', 'testing.mdc'), RULE('Testing', 'Tests use the real database.'));
        // Cline's newer rule folder (untracked: the branch switch below leaves it alone).
        fs.mkdirSync(path.join(workspace, '.cline', 'rules'), { recursive: true });
        fs.writeFileSync(path.join(workspace, '.cline', 'rules', 'logging.md'), '# Logging\n\nLog the request id with every error (CLINE-ORIGINAL).\n');
        // A repository with a release branch whose AGENTS.md says something else and has no Chargebacks section.
        git('init', '-q', '-b', 'main');
        git('add', 'AGENTS.md', '.cursor');
        git('commit', '-q', '-m', 'knowledge');
        git('checkout', '-q', '-b', 'release');
        fs.writeFileSync(path.join(workspace, 'AGENTS.md'), agents('Refunds on the release branch are manual (RELEASE-BRANCH-TEXT).', WEBHOOKS));
        git('commit', '-q', '-am', 'release knowledge');
        git('checkout', '-q', 'main');
        fs.mkdirSync(path.join(workspace, '.context-ledger'));
        runCli(['import-folder', workspace, '--db', db]);
        runCli(['pin', 'agents-md-refunds', '--db', db]);
      },
    },
  );
  wb = session.wb;
});

after(async () => {
  await session?.close();
});

/** The Artifacts view's items once `accept` holds (groups the tree left collapsed are opened, as a person would). */
async function artifactsWhen(accept: (items: TreeItem[]) => boolean, what: string): Promise<TreeItem[]> {
  const page = wb!.page;
  return waitFor(
    async () => {
      for (const row of await viewPane(page, 'Artifacts').locator('.monaco-list-row[aria-expanded="false"]').all()) await row.click().catch(() => undefined);
      return treeItems(page, 'Artifacts');
    },
    accept,
    what,
    TIMEOUTS.ui,
  );
}

const item = (items: TreeItem[], label: string): TreeItem | undefined => items.find((i) => i.label === label);

async function buildContext(): Promise<string> {
  const page = wb!.page;
  await page.evaluate('navigator.clipboard.writeText("")').catch(() => undefined);
  await runCommand(page, 'Context Ledger: Build agent context');
  // Cleared above, so any text is the new build (a whole item carries no URN, so none is awaited).
  return waitFor(() => readClipboard(page), (t) => t.includes('## '), 'the built context on the clipboard', TIMEOUTS.command);
}

test('an edit of AGENTS.md on disk refreshes its artifact in the tree and the next build; the pin made in the ledger stays', async () => {
  const page = wb!.page;
  await openView(page, 'Artifacts');
  await artifactsWhen((items) => item(items, 'Payments conventions: Refunds') !== undefined && item(items, 'Testing') !== undefined, 'the imported artifacts');
  assert.match(await buildContext(), /ALPHA-ORIGINAL/);

  const started = Date.now();
  fs.writeFileSync(path.join(workspace, 'AGENTS.md'), agents('Refunds go through the refund queue, idempotently (EDITED-ON-DISK, déjà vu).'));
  const items = await artifactsWhen((all) => /\bv2\b/.test(item(all, 'Payments conventions: Refunds')?.description ?? ''), 'Refunds at v2 in the tree');
  console.log(`knowledge-watch: the tree showed the edit ${Date.now() - started} ms after the write`);
  await screenshot(page, '01-edited-on-disk');
  assert.doesNotMatch(item(items, 'Payments conventions: Webhooks')?.description ?? '', /\bv2\b/, 'the unchanged section is left alone');

  const context = await buildContext();
  assert.match(context, /EDITED-ON-DISK, déjà vu/);
  assert.doesNotMatch(context, /ALPHA-ORIGINAL/);
  const refunds = listed().find((a) => a.chainId === 'agents-md-refunds')!;
  assert.equal(refunds.version, 2);
  assert.equal(refunds.pinned, true, 'the pin set in the ledger survives the refresh');
});

test('a new rule file in .cursor/rules appears in the tree', async () => {
  const page = wb!.page;
  fs.writeFileSync(path.join(workspace, '.cursor', 'rules', 'retries.mdc'), RULE('Retries', 'Retries back off with full jitter.'));
  await artifactsWhen((items) => items.some((i) => i.label === 'Retries'), 'the new rule in the tree');
  await screenshot(page, '02-new-rule-file');
  assert.ok(listed().some((a) => a.title === 'Retries' && a.status === 'active'));
  assert.ok(item(await treeItems(page, 'Artifacts'), 'Payments conventions: Webhooks'), 'the other artifacts stay');
});

test('a git checkout of another branch refreshes the knowledge: changed text, a removed section archived, the pin kept', async () => {
  const page = wb!.page;
  // The edit of the first test is the working tree's: put it aside as a person would before switching.
  git('checkout', '-q', '--', 'AGENTS.md');
  git('checkout', '-q', 'release');
  await artifactsWhen(
    (items) => /\bv[3-9]\b/.test(item(items, 'Payments conventions: Refunds')?.description ?? '') && item(items, 'Payments conventions: Chargebacks') === undefined,
    'the release branch knowledge in the tree',
  );
  await screenshot(page, '03-branch-switched');
  const context = await buildContext();
  assert.match(context, /RELEASE-BRANCH-TEXT/);
  assert.doesNotMatch(context, /EDITED-ON-DISK|ALPHA-ORIGINAL/);
  const all = listed();
  assert.equal(all.find((a) => a.chainId === 'agents-md-refunds')!.pinned, true);
  assert.ok(listed('--status', 'archived').some((a) => a.title === 'Payments conventions: Chargebacks'), 'gone from the file: archived, not deleted');
});

test('an artifact edited in the ledger whose file then changes keeps the edit, with a warning that it no longer follows the file', async () => {
  const page = wb!.page;
  runCli(['update', 'agents-md-webhooks', '--body', 'Webhooks: the person in the ledger wrote this (LEDGER-EDIT).', '--db', db]);
  await runCommand(page, 'Notifications: Clear All Notifications');
  fs.writeFileSync(path.join(workspace, 'AGENTS.md'), agents('Refunds on the release branch are manual (RELEASE-BRANCH-TEXT).', WEBHOOKS.replace('every webhook', 'each webhook (FILE-EDIT)')));
  const warning = await waitForNotification(page, /"Payments conventions: Webhooks" was edited in the ledger and AGENTS\.md changed/);
  assert.match(warning, /the ledger's version is kept and no longer follows the file/);
  await screenshot(page, '04-detached-warning');
  // `list --text` searches the latest version of each artifact.
  assert.ok(listed('--text', 'LEDGER-EDIT').some((a) => a.chainId === 'agents-md-webhooks'), 'the edit made in the ledger is the latest version');
  assert.deepEqual(listed('--text', 'FILE-EDIT'), [], 'the file did not overwrite the edit');
  assert.doesNotMatch(await buildContext(), /FILE-EDIT/);
});

test('an edit of a Cline rule in .cline/rules/ on disk refreshes its artifact in the tree and the next build', async () => {
  const page = wb!.page;
  await openView(page, 'Artifacts');
  await artifactsWhen((items) => item(items, 'Logging') !== undefined, 'the imported Cline rule');
  fs.writeFileSync(path.join(workspace, '.cline', 'rules', 'logging.md'), '# Logging\n\nLog the request id and the tenant with every error (CLINE-EDITED).\n');
  await artifactsWhen((items) => /\bv2\b/.test(item(items, 'Logging')?.description ?? ''), 'the Cline rule at v2 in the tree');
  await screenshot(page, '05-cline-rule-edited');
  const context = await buildContext();
  assert.match(context, /CLINE-EDITED/);
  assert.doesNotMatch(context, /CLINE-ORIGINAL/);
});
