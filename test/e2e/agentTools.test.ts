/**
 * The agent loop end to end in a real code-server + Chromium, without Copilot:
 *  - a second, test-only extension (built and installed here, never shipped) plays the
 *    agent: it lists `vscode.lm.tools` and calls ours through `vscode.lm.invokeTool`,
 *    writing what came back into the workspace for this test to read. The confirmation
 *    before a write is a real workbench dialog that the test answers like a person.
 *  - an inbox file dropped into `.context-ledger/inbox/` appears in the Needs Review
 *    view, a malformed one lands in `inbox/rejected/` with its `.error`, and approving
 *    from the view clears the item.
 *  - git, through the built-in Git extension (enabled here): a commit made while a task
 *    is active becomes its event (Active Task view, `task events`), and the module memory
 *    whose paths it changed is flagged possibly stale in the Artifacts tree.
 * Screenshots land in test-output/e2e/agent-tools/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  CLI_PATH,
  installVsix,
  openView,
  openWorkbench,
  OUTPUT_DIR,
  extensionLogLines,
  packageExtension,
  REPO_ROOT,
  runCommand,
  screenshot,
  seedSampleWorkspace,
  startCodeServer,
  TIMEOUTS,
  viewPane,
  VSIX_PATH,
  waitFor,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { CodeServer, Workbench } from './harness';

const VSIX = VSIX_PATH;
const DRIVER_VSIX = path.join(REPO_ROOT, 'test-output', 'ledger-e2e-driver.vsix');
const CLI = CLI_PATH;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-agent-tools-'));
const workspace = path.join(tmp, 'workspace');
const extensionsDir = path.join(tmp, 'extensions');
const userDataDir = path.join(tmp, 'user-data');
const db = path.join(workspace, '.context-ledger', 'ledger.db');
const results = path.join(workspace, '.e2e', 'lm-tools.json');
const shots = path.join(OUTPUT_DIR, 'agent-tools');
let server: CodeServer | undefined;
let wb: Workbench | undefined;

/** The test-only "agent": calls the tools the way Copilot's agent mode would, outside a chat session. */
const DRIVER_JS = String.raw`
const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('ledgerE2e.invokeTools', async () => {
    const out = { steps: {} };
    const target = vscode.Uri.joinPath(vscode.workspace.workspaceFolders[0].uri, '.e2e', 'lm-tools.json');
    const save = () => vscode.workspace.fs.writeFile(target, Buffer.from(JSON.stringify(out, null, 2)));
    const text = (result) => result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    const call = async (step, name, input) => {
      try {
        out.steps[step] = { text: text(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined })) };
      } catch (error) {
        out.steps[step] = { error: (error && error.name) + ': ' + (error && error.message) };
      }
      await save();
    };
    out.tools = vscode.lm.tools.filter((t) => t.tags.includes('context-ledger')).map((t) => ({ name: t.name, tags: t.tags, hasSchema: !!t.inputSchema }));
    await save();
    await call('build', 'contextLedger_buildContext', { task: 'Stop double bookings when the payment webhook is retried', paths: ['src/payments/webhooks.ts'], budget: 1500 });
    await call('search', 'contextLedger_searchArtifacts', { query: 'webhook' });
    await call('invalid', 'contextLedger_createArtifact', { type: 'constitution', title: '' });
    await call('create', 'contextLedger_createArtifact', { type: 'learning', title: 'Webhook retries arrive out of order — 順序', body: 'Sort by the event timestamp, not arrival.', paths: ['src/payments/**'] });
    await call('declined', 'contextLedger_createArtifact', { type: 'note', title: 'This one the person declines', body: 'Never saved.' });
    const created = /ledger:\/\/artifact\/(\S+)/.exec((out.steps.create && out.steps.create.text) || '');
    await call('get', 'contextLedger_getArtifact', { id: created ? created[0] : 'missing' });
    out.done = true;
    await save();
  }));
};
`;

function run(command: string, args: string[], cwd = REPO_ROOT, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true', ...env } });
}

const GIT_ID = { GIT_AUTHOR_NAME: 'e2e', GIT_AUTHOR_EMAIL: 'e2e@example.com', GIT_COMMITTER_NAME: 'e2e', GIT_COMMITTER_EMAIL: 'e2e@example.com' };
function git(args: string[], env: NodeJS.ProcessEnv = {}): string {
  return run('git', args, workspace, { ...GIT_ID, ...env });
}

/** The sample workspace as a repository whose one commit is older than the sample's module memories (2026-03-02). */
function initRepository(): void {
  fs.writeFileSync(path.join(workspace, '.gitignore'), '.context-ledger/\n.e2e/\n.github/\n');
  git(['init', '-q', '-b', 'main']);
  git(['add', '.']);
  const old = { GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };
  git(['commit', '-q', '-m', 'Sample marina app'], old);
}

function vsce(cwd: string, out: string, extra: string[] = []): void {
  run(process.execPath, [path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--allow-missing-repository', '--skip-license', ...extra, '--out', out], cwd);
}

function buildDriver(): void {
  const dir = path.join(tmp, 'driver');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'extension.js'), DRIVER_JS);
  fs.writeFileSync(path.join(dir, 'README.md'), 'Test-only extension for the Context Ledger e2e suite.\n');
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'ledger-e2e-driver',
      displayName: 'Ledger e2e driver',
      description: 'Calls the Context Ledger language-model tools in the e2e tests.',
      version: '0.0.1',
      publisher: 'context-ledger-tests',
      engines: { vscode: '^1.100.0' },
      activationEvents: ['onStartupFinished'],
      main: './extension.js',
      contributes: { commands: [{ command: 'ledgerE2e.invokeTools', title: 'Invoke Context Ledger tools', category: 'Ledger e2e' }] },
    }),
  );
  vsce(dir, DRIVER_VSIX, ['--no-dependencies']);
}

function readResults(): { tools?: Array<{ name: string; tags: string[]; hasSchema: boolean }>; steps: Record<string, { text?: string; error?: string }>; done?: boolean } {
  try {
    return JSON.parse(fs.readFileSync(results, 'utf8')) as ReturnType<typeof readResults>;
  } catch {
    return { steps: {} };
  }
}

function listed(): Array<{ id: string; title: string; source: string }> {
  return JSON.parse(run(process.execPath, [CLI, 'list', '--db', db, '--format', 'json'])) as Array<{ id: string; title: string; source: string }>;
}

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  packageExtension();
  buildDriver();
  seedSampleWorkspace(tmp);
  initRepository();
  await installVsix(VSIX, extensionsDir, userDataDir);
  await installVsix(DRIVER_VSIX, extensionsDir, userDataDir);
  server = await startCodeServer({ workspace, extensionsDir, userDataDir, logFile: path.join(shots, 'code-server.log'), settings: { 'git.enabled': true } });
  wb = await openWorkbench(server.url, workspace, shots);
});

after(async () => {
  await wb?.close();
  await server?.stop();
  if (!process.env.E2E_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Waits for the workbench's modal dialog showing `title`, screenshots it, and presses `button`. */
async function answerDialog(title: RegExp, button: 'Yes' | 'Cancel', shot: string): Promise<string> {
  const page = wb!.page;
  return withFailureScreenshot(page, `dialog-${shot}`, async () => {
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: TIMEOUTS.command });
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.match(text, title);
    await screenshot(page, shot);
    await dialog.locator('.monaco-button', { hasText: new RegExp(`^${button}$`) }).first().click();
    // The next tool call's dialog can open before this one is seen gone: wait for this one, by its text.
    await page.locator('.monaco-dialog-box', { hasText: title }).waitFor({ state: 'hidden' });
    return text;
  });
}

test('the language-model tools are listed and work through vscode.lm.invokeTool, asking before a write', async () => {
  const page = wb!.page;
  const before = listed().length;
  await runCommand(page, 'Ledger e2e: Invoke Context Ledger tools');

  const createDialog = await answerDialog(/Record a learning in the Context Ledger\?/, 'Yes', '01-confirm-create');
  assert.match(createDialog, /Webhook retries arrive out of order — 順序/);
  assert.match(createDialog, /unreviewed/);
  await answerDialog(/Record a note in the Context Ledger\?/, 'Cancel', '02-confirm-declined');

  const out = await waitFor(async () => Promise.resolve(readResults()), (r) => r.done === true, 'the driver to finish', TIMEOUTS.command);
  assert.deepEqual(
    out.tools?.map((t) => t.name),
    ['contextLedger_buildContext', 'contextLedger_getArtifact', 'contextLedger_searchArtifacts', 'contextLedger_createArtifact', 'contextLedger_proposeVersion', 'contextLedger_proposeSupersession'],
  );
  assert.ok(out.tools?.every((t) => t.hasSchema));

  const build = out.steps.build?.text ?? '';
  assert.match(build, /Context Ledger: \d+ of 1500 tokens/, JSON.stringify(out.steps.build));
  assert.match(build, /webhook/i);
  assert.match(out.steps.search?.text ?? '', /\d+ match(es)?:/);
  const invalid = out.steps.invalid?.text ?? '';
  assert.match(invalid, /Invalid arguments for contextLedger_createArtifact/);
  assert.match(invalid, /only a person adds them/);
  assert.match(out.steps.create?.text ?? '', /Created learning ledger:\/\/artifact\/\S+ "Webhook retries arrive out of order — 順序"/);
  assert.match(out.steps.declined?.error ?? '', /Canceled/i, 'declining the dialog cancels the call');
  assert.match(out.steps.get?.text ?? '', /UNREVIEWED: written by agent via lm-tool/);

  const after = listed();
  assert.equal(after.length, before + 1, 'exactly the confirmed artifact was written');
  assert.ok(after.some((a) => a.title === 'Webhook retries arrive out of order — 順序' && a.source === 'agent'));
  assert.ok(!after.some((a) => a.title === 'This one the person declines'));

  await openView(page, 'Needs Review');
  await waitForTreeItems(page, 'Needs Review', (items) => items.some((i) => i.label === 'Webhook retries arrive out of order — 順序'));
  await screenshot(page, '03-needs-review');
});

test('an inbox file appears in Needs Review; a malformed one is moved to rejected/ with its reason; approving clears the item', async () => {
  const page = wb!.page;
  const inbox = path.join(workspace, '.context-ledger', 'inbox');
  fs.mkdirSync(inbox, { recursive: true });
  const title = 'Refunds go through the ledger service — Rückerstattung';
  // Written under another name and renamed, as agents are told to, so it is never read half-written.
  fs.writeFileSync(path.join(inbox, '001.json.tmp'), JSON.stringify({ type: 'decision', title, body: 'All refunds are recorded by the ledger service; never in the checkout.', tags: ['refunds'] }));
  fs.renameSync(path.join(inbox, '001.json.tmp'), path.join(inbox, '001.json'));
  fs.writeFileSync(path.join(inbox, '002-broken.json'), '{"type": "note", "title": ');

  await openView(page, 'Needs Review');
  const items = await waitForTreeItems(page, 'Needs Review', (i) => i.some((x) => x.label === title), TIMEOUTS.command);
  assert.match(items.find((x) => x.label === title)!.description, /decision · agent via inbox/);
  await screenshot(page, '04-inbox-ingested');
  await waitFor(async () => Promise.resolve(fs.existsSync(path.join(inbox, 'rejected', '002-broken.json.error'))), (x) => x, 'the .error file of the broken inbox file');
  assert.match(fs.readFileSync(path.join(inbox, 'rejected', '002-broken.json.error'), 'utf8'), /not valid JSON/);
  assert.equal(fs.readFileSync(path.join(inbox, 'rejected', '002-broken.json'), 'utf8'), '{"type": "note", "title": ', 'kept as it was');
  assert.ok(!fs.existsSync(path.join(inbox, '001.json')), 'the ingested file left the inbox');
  assert.ok(listed().some((a) => a.title === title));

  await withFailureScreenshot(page, 'approve', async () => {
    // The same title is in the Artifacts tree too: act on the Needs Review row.
    const row = viewPane(page, 'Needs Review').locator('.monaco-list-row', { hasText: title }).first();
    await row.hover();
    await row.locator('.action-label[aria-label="Approve"]').click();
    await waitForTreeItems(page, 'Needs Review', (i) => !i.some((x) => x.label === title), TIMEOUTS.command);
  });
  await screenshot(page, '05-approved');
  const inboxList = JSON.parse(run(process.execPath, [CLI, 'inbox', '--db', db, '--format', 'json'])) as Array<{ title: string }>;
  assert.ok(!inboxList.some((a) => a.title === title), 'the CLI agrees it is reviewed');
});

test('a commit made while a task is active becomes its event, and flags the module memory of the files it changed as possibly stale', async () => {
  const page = wb!.page;
  // The extension follows the repository through the Git extension before the commit is made. Whether
  // it first read HEAD with git or through the API depends on which finished first after start-up.
  await waitFor(
    async () => Promise.resolve(extensionLogLines(userDataDir)),
    (lines) => lines.some((l) => /Git: following workspace through the Git extension's API\./.test(l)),
    'the extension to follow the repository through the Git extension',
    TIMEOUTS.command,
  );
  await openView(page, 'Artifacts');
  const before = await waitForTreeItems(page, 'Artifacts', (items) => items.some((i) => i.label === 'Module: src/payments'), TIMEOUTS.command);
  assert.doesNotMatch(before.find((i) => i.label === 'Module: src/payments')!.description, /possibly stale/, 'the first commit is older than the memory');

  run(process.execPath, [CLI, 'task', 'add', '--db', db, '--id', 'git-task', '--title', 'Handle retried webhooks once', '--activate']);
  await openView(page, 'Active Task');
  await waitForTreeItems(page, 'Active Task', (items) => items.some((i) => i.label === 'Handle retried webhooks once'), TIMEOUTS.command);
  // Commit dates have whole seconds; the task must not look younger than the commit.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  fs.appendFileSync(path.join(workspace, 'src', 'payments', 'webhooks.ts'), '\n// Retries carry the same event id: handle each once.\n');
  git(['commit', '-q', '-am', 'Handle retried webhooks once — idempotent']);
  const hash = git(['rev-parse', 'HEAD']).trim();

  const task = await waitForTreeItems(page, 'Active Task', (items) => items.some((i) => i.label === '1 commit while active'), TIMEOUTS.command);
  assert.equal(task.find((i) => i.label === '1 commit while active')!.description, `${hash.slice(0, 8)} Handle retried webhooks once — idempotent`);
  await screenshot(page, '06-commit-task-event');
  const events = JSON.parse(run(process.execPath, [CLI, 'task', 'events', 'git-task', '--db', db, '--format', 'json'])) as Array<{ kind: string; payload: { hash?: string; subject?: string; files?: string[] } }>;
  const commit = events.find((e) => e.kind === 'commit');
  assert.equal(commit?.payload.hash, hash);
  assert.equal(commit?.payload.subject, 'Handle retried webhooks once — idempotent');
  assert.deepEqual(commit?.payload.files, ['src/payments/webhooks.ts']);

  await openView(page, 'Artifacts');
  const after = await waitForTreeItems(page, 'Artifacts', (items) => /possibly stale/.test(items.find((i) => i.label === 'Module: src/payments')?.description ?? ''), TIMEOUTS.command);
  assert.doesNotMatch(after.find((i) => i.label === 'Module: src/bookings')?.description ?? '', /possibly stale/, 'its paths did not change');
  await screenshot(page, '07-stale-module-memory');
});
