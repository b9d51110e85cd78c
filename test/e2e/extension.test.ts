/**
 * The packaged Context Ledger extension in a real code-server + Chromium: the sidebar
 * lists the seeded artifacts, "Build agent context" puts the context on the clipboard,
 * and the status bar shows the budget meter. Screenshots land in test-output/e2e/extension/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  REPO_ROOT,
  TIMEOUTS,
  activeEditorTitle,
  openFile,
  openView,
  packageExtension,
  pickQuickInputItem,
  runCommand,
  runCommandForQuickInput,
  screenshot,
  startExtensionSession,
  statusBarTexts,
  waitFor,
  waitForClipboard,
  waitForNotification,
  waitForStatusBarText,
  waitForTreeItems,
  viewPane,
  VSCODE_FLAVOUR,
} from './harness';
import type { ExtensionSession, Workbench } from './harness';

const BUDGET = 1500;
const SEEDED_TITLES = ['Never log card numbers or CVCs', 'Every money amount is an integer of minor units'];

let session: ExtensionSession | undefined;
let workspace = '';
/** The meter text as the status bar renders it (the book icon is not text): `887/1.5k`, `1.4k/1.5k`. */
const METER = /^\d+(\.\d+)?k?\/1\.5k$/;

function tokensOf(meter: string): number {
  const used = meter.split('/')[0]!;
  return used.endsWith('k') ? Number(used.slice(0, -1)) * 1000 : Number(used);
}
let wb: Workbench | undefined;

before(async () => {
  session = await startExtensionSession('extension', { 'contextLedger.budget': BUDGET });
  ({ workspace, wb } = session);
});

after(async () => {
  await session?.close();
});

test('the packaged .vsix is small and holds only what it needs', () => {
  assert.ok(fs.statSync(packageExtension()).size < 5 * 1024 * 1024, 'the .vsix should be under 5 MB');
});

test('the sidebar lists the seeded artifacts', async () => {
  const page = wb!.page;
  await openView(page, 'Artifacts');
  // While the extension host starts and reads the ledger, the view says it is loading: never
  // that a ledger holding artifacts has none. Watch it until the artifacts are there.
  const said = new Set<string>();
  let loaded = false;
  const watch = (async () => {
    while (!loaded) {
      const text = (await viewPane(page, 'Artifacts').textContent().catch(() => '')) ?? '';
      if (/no artifacts yet/.test(text)) said.add('no artifacts yet');
      if (/Loading the ledger/.test(text)) said.add('Loading the ledger…');
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const items = await waitForTreeItems(page, 'Artifacts', (all) => SEEDED_TITLES.every((t) => all.some((i) => i.label === t)), 45_000).finally(() => {
    loaded = true;
  });
  await watch;
  assert.ok(!said.has('no artifacts yet'), `the view said: ${[...said].join(', ')}`);
  assert.ok(items.some((i) => i.label === 'Global' && i.depth === 1), `expected a "Global" scope group: ${JSON.stringify(items.slice(0, 5))}`);
  const artifact = items.find((i) => i.label === SEEDED_TITLES[0])!;
  assert.equal(artifact.depth, 3, 'artifacts sit under their scope and type');
  await screenshot(page, '01-sidebar');
});

// VS Code 1.139+ reads the chat instructions the extension contributes, so auto-inject writes no file
// there (chat.test.ts checks the contribution reaches the chat); 1.100 gets the file, kept up to date.
const writesAutoInjectFile = VSCODE_FLAVOUR === 'min';

test(`opening a file changes the status-bar meter and ${writesAutoInjectFile ? 'rewrites the auto-inject file' : 'writes no auto-inject file (the editor reads the contributed instructions)'}`, async () => {
  const page = wb!.page;
  const file = path.join(workspace, '.github', 'instructions', 'context-ledger.instructions.md');
  const read = (): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  // Before any editor is open: global knowledge only.
  const before = await waitForStatusBarText(page, METER);
  if (writesAutoInjectFile) {
    const first = await waitFor(() => Promise.resolve(read()), (t) => t.includes(SEEDED_TITLES[0]!), 'the instructions file with the global rules', 45_000);
    assert.match(first, /^---\napplyTo: "\*\*"/, 'Copilot front matter');
    assert.ok(!first.includes('Module: src/bookings'), 'no bookings module memory before a bookings file is open');
  }
  await screenshot(page, '02a-before-open');

  await openFile(page, 'src/bookings/holds.ts');
  const after = await waitFor(() => statusBarTexts(page), (all) => all.some((t) => METER.test(t) && t !== before), `the meter to move from ${before}`);
  const meter = after.find((t) => METER.test(t))!;
  assert.ok(tokensOf(meter) > tokensOf(before), `more knowledge applies to an open bookings file: ${before} -> ${meter}`);
  if (writesAutoInjectFile) {
    const second = await waitFor(() => Promise.resolve(read()), (t) => t.includes('Module: src/bookings'), 'the bookings module memory in the instructions file');
    assert.ok(second.includes('ADR-003: Bookings are a state machine'), 'the path-scoped ADR follows the open file');
    assert.ok(second.includes('src/bookings/holds.ts'), 'the file names the paths it was built for');
  } else {
    // The live context was rebuilt twice (the meter moved), and auto-inject is on: still no file in the repository.
    assert.equal(fs.existsSync(file), false, `${file} must not be written on a VS Code that reads contributed instructions`);
    assert.equal(fs.existsSync(path.dirname(file)) && fs.readdirSync(path.dirname(file)).length > 0, false, 'nothing written under .github/instructions');
  }
  await screenshot(page, '02b-after-open-bookings');
});

test('"Build agent context" copies the context with a seeded artifact and stays within the budget', async () => {
  const page = wb!.page;
  await openFile(page, 'src/payments/webhooks.ts');
  assert.equal(await activeEditorTitle(page), 'webhooks.ts');
  await runCommand(page, 'Context Ledger: Build agent context');
  const text = await waitForClipboard(page, /## Rules/);
  assert.ok(text.includes(SEEDED_TITLES[0]!), `the context should contain "${SEEDED_TITLES[0]}"`);
  // The pinned rule, whole: its heading names it (title and type), no URN line under it.
  assert.match(text, /^### Never log card numbers or CVCs · constitution$/m);
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
  const meter = await waitForStatusBarText(page, METER);
  const usedTokens = tokensOf(meter);
  assert.ok(usedTokens > 0 && usedTokens <= BUDGET, `meter ${meter}; status bar: ${(await statusBarTexts(page)).join(' | ')}`);
  await screenshot(page, '03-status-bar');
});

test("the meter measures the context for the files in play, names them in its tooltip, and never counts the ledger's own files", async () => {
  const page = wb!.page;
  await openFile(page, 'src/payments/webhooks.ts');
  // An artifact's own Markdown file under .context-ledger/ is the ledger, not work in play.
  const artifactsDir = path.join(workspace, '.context-ledger', 'artifacts');
  const own = fs.readdirSync(artifactsDir, { recursive: true, encoding: 'utf8' }).find((p) => p.endsWith('.md'));
  assert.ok(own, `an artifact file under ${artifactsDir}`);
  await openFile(page, path.posix.join('.context-ledger', 'artifacts', own.split(path.sep).join('/')));
  const meter = await waitForStatusBarText(page, METER);
  const item = page.locator('.statusbar-item', { hasText: meter }).first();
  const label = await waitFor(
    () => item.locator('[aria-label]').first().getAttribute('aria-label').then((l) => l ?? ''),
    (l) => /files in play/.test(l),
    'the meter says what it measures to a screen reader',
  );
  await item.hover();
  const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'files in play' }).first();
  const tooltip = await waitFor(() => hover.textContent().then((t) => t ?? '').catch(() => ''), (t) => /Files in play:/.test(t), 'the meter tooltip');
  assert.match(tooltip, /the context for the files in play: [\d,]+ of 1,500 tokens/);
  assert.match(tooltip, /src\/payments\/webhooks\.ts/);
  assert.ok(!tooltip.includes('.context-ledger'), `no ledger file among the files in play: ${tooltip}`);
  assert.match(label, /the context for the \d+ files in play uses/);
  await screenshot(page, '03b-meter-tooltip');
  await page.mouse.move(5, 5);
});

test('without a chat model (code-server has none), "Use @ledger Without a Chat Model…" says so and copies the context the agent needs', async () => {
  const page = wb!.page;
  await runCommand(page, 'Notifications: Clear All Notifications');
  await page.bringToFront();
  await page.evaluate('navigator.clipboard.writeText("")');
  await runCommandForQuickInput(page, 'Context Ledger: Use @ledger Without a Chat Model…', 'Context Ledger without a chat model');
  const placeholder = await page.locator('.quick-input-widget .quick-input-box input').getAttribute('placeholder');
  assert.match(placeholder ?? '', /No chat model in this VS Code, so the chat refuses @ledger/);
  await screenshot(page, '04a-without-chat-model');
  await pickQuickInputItem(page, 'Context Ledger without a chat model', 'copy', 'Copy the context');
  const text = await waitForClipboard(page, /## Rules/);
  assert.ok(text.includes(SEEDED_TITLES[0]!), 'the context as Build agent context makes it');
  await waitForNotification(page, /copied the context .* and opened it beside/);
});

test('the "Get started" walkthrough shows its steps, and a step\'s button runs its command and checks the step', async () => {
  const page = wb!.page;
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    contributes: { walkthroughs: { title: string; steps: { id: string; title: string }[] }[] };
  };
  const walkthrough = manifest.contributes.walkthroughs[0]!;
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommand(page, 'Welcome: Open Walkthrough...');
  await page.locator('.quick-input-widget .quick-input-box input').fill('Context Ledger');
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: walkthrough.title });
  await row.waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  await row.click();

  const steps = page.locator('.getting-started-step .step-title');
  await waitFor(() => steps.allInnerTexts(), (t) => t.length === walkthrough.steps.length, 'the walkthrough steps');
  assert.deepEqual((await steps.allInnerTexts()).map((t) => t.trim()), walkthrough.steps.map((s) => s.title));

  const build = page.locator('.getting-started-step', { hasText: 'Build the agent context' });
  await build.locator('.step-title').click();
  const checkbox = build.locator('[role="checkbox"]');
  assert.equal(await checkbox.getAttribute('aria-checked'), 'false');
  await build.locator('.button-container .monaco-button', { hasText: 'Build Agent Context' }).click();
  await waitForNotification(page, /copied the context/);
  await waitFor(() => checkbox.getAttribute('aria-checked'), (v) => v === 'true', 'the step checked once its command ran');
  await screenshot(page, '04-walkthrough');
});
