/**
 * The Context Inspector in a real code-server + Chromium: opened from the status-bar
 * meter, its bar and table checked against the same assembly built by the CLI, an
 * excluded artifact with its reason, "try budget" and a budget change seen live, the
 * always-on agent files, restore after reload, and screenshots in light, dark and
 * high-contrast themes (test-output/e2e/inspector/).
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { EXCLUSION_LABELS } from '../../src/core/inspector/model';
import type { ExclusionReason } from '../../src/core/assemble/types';
import {
  CLI_PATH,
  activeEditorText,
  openFile,
  REPO_ROOT,
  runCommand,
  screenshot,
  startExtensionSession,
  waitFor,
  waitForNotification,
  waitForStatusBarText,
  waitForWorkbenchReady,
  withFailureScreenshot,
} from './harness';
import type { ExtensionSession, Workbench } from './harness';

const BUDGET = 1500;
const NEW_BUDGET = 3000;
const CLI = CLI_PATH;
const RULE_BODY_ID = 'harbor-const-1';
/** Included for src/payments/webhooks.ts; AGENTS.md carries its body as one of its sections. */
const SECTION_ID = 'harbor-learn-1';

let session: ExtensionSession | undefined;
let workspace = '';
let db = '';
let wb: Workbench | undefined;

function run(command: string, args: string[], cwd = REPO_ROOT): string {
  return execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

interface CliBuild {
  tokensUsed: number;
  budget: number;
  items: Array<{ id: string; mode: string; title: string; tokens: number }>;
  excluded: Array<{ id: string; reason: string }>;
  candidates: number;
}

function sampleArtifacts(): Array<{ id: string; body: string; scope: string }> {
  return fs
    .readFileSync(path.join(REPO_ROOT, 'sample', 'knowledge.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; body: string; scope: string });
}

function cliBuild(budget: number, paths: string[], log = false): CliBuild {
  const args = [CLI, 'build', '--db', db, '--budget', String(budget), '--format', 'json', ...paths.flatMap((p) => ['--path', p])];
  if (!log) args.push('--no-log');
  return JSON.parse(run(process.execPath, args, workspace)) as CliBuild;
}

/** What the checks below use of the webview page's globals (the e2e tests compile without the DOM library). */
interface PageGlobals {
  scrollTo(x: number, y: number): void;
  getComputedStyle(element: unknown): { fill: string; backgroundColor: string };
  document: { body: unknown };
}

/** The inspector's page: the webview sits two iframes deep in the workbench. */
function inspector(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

async function summary(page: Page): Promise<Record<string, string>> {
  const el = inspector(page).locator('#summary');
  const names = ['data-used', 'data-budget', 'data-included', 'data-excluded', 'data-candidates', 'data-paths'];
  const out: Record<string, string> = {};
  for (const name of names) out[name] = (await el.getAttribute(name, { timeout: 5_000 })) ?? '';
  return out;
}

before(async () => {
  session = await startExtensionSession(
    'inspector',
    // Auto-inject off: the agent files are the test's own, nothing else is written.
    { 'contextLedger.budget': BUDGET, 'contextLedger.autoInject.enabled': false, 'workbench.colorTheme': 'Default Dark Modern' },
    {
      prepare: (seeded) => {
        ({ workspace, db } = seeded);
        // Two logged builds for the history timeline.
        cliBuild(800, ['src/payments/webhooks.ts'], true);
        cliBuild(BUDGET, ['src/bookings/holds.ts'], true);
        // Agent files: Copilot's always-on file says a ledger rule again in its own layout (bullets, capitals, other
        // punctuation); AGENTS.md carries a ledger learning as one of its sections; a Python-only file does not apply.
        const section = sampleArtifacts().find((a) => a.id === SECTION_ID)!.body;
        fs.mkdirSync(path.join(workspace, '.github', 'instructions'), { recursive: true });
        fs.writeFileSync(
          path.join(workspace, '.github', 'copilot-instructions.md'),
          '# Harbor\n\n- PAYMENT CARD DATA — PAN / CVC / expiry — must never reach: logs; error messages; analytics events; test fixtures!\n' +
            '- Use maskPan() (src/payments/mask.ts) when a card must be referred to.\n\nUse pnpm. Räder und Zahlungen — 日本語.\n',
        );
        fs.writeFileSync(path.join(workspace, '.github', 'instructions', 'python.instructions.md'), '---\napplyTo: "**/*.py"\n---\nFormat with black.\n');
        fs.writeFileSync(path.join(workspace, 'AGENTS.md'), `# Agents\n\nRun \`npm test\` before every commit.\n\n## Webhooks\n\n${section}\n\n## Releases\n\nTag from main only.\n`);
      },
    },
  );
  wb = session.wb;
});

after(async () => {
  await session?.close();
});

test('the status-bar meter opens the inspector; bar and table match the assembly', async () => {
  const page = wb!.page;
  await openFile(page, 'src/payments/webhooks.ts');
  await waitForStatusBarText(page, /\/1\.5k$/);
  await withFailureScreenshot(page, 'open-from-status-bar', async () => {
    await page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: /\/1\.5k$/ }).first().locator('a').first().click();
    await page.locator('.tab', { hasText: 'Context Inspector' }).first().waitFor({ state: 'visible' });
    await inspector(page).locator('#summary').waitFor({ state: 'visible', timeout: 45_000 });
  });
  const s = await summary(page);
  const paths = JSON.parse(s['data-paths']!) as string[];
  assert.ok(paths.includes('src/payments/webhooks.ts'), `paths in play: ${s['data-paths']}`);
  const expected = cliBuild(BUDGET, paths);
  assert.equal(Number(s['data-budget']), BUDGET);
  assert.equal(Number(s['data-used']), expected.tokensUsed, 'tokens used: the panel and the CLI build agree');
  assert.equal(Number(s['data-included']), expected.items.length);
  assert.equal(Number(s['data-excluded']), expected.excluded.length);
  assert.equal(Number(s['data-candidates']), expected.candidates);

  const frame = inspector(page);
  // The bar: one segment per layer plus headroom, tokens as the tooltip says.
  const headroom = frame.locator('svg.bar rect[data-key="headroom"]');
  assert.equal(Number(await headroom.getAttribute('data-tokens')), BUDGET - expected.tokensUsed);
  assert.match((await headroom.locator('title').textContent()) ?? '', new RegExp(`Unused headroom: ${(BUDGET - expected.tokensUsed).toLocaleString('en-US')} tokens`));
  assert.ok((await frame.locator('svg.bar rect[data-key="fixed"]').count()) === 1, 'the fixed layer (constitution rules) has a segment');

  // The table: every candidate, the included ones first.
  const rows = frame.locator('#items tbody tr[data-id]');
  assert.equal(await rows.count(), expected.items.length + expected.excluded.length);
  assert.deepEqual(
    await frame.locator('#items tbody tr[data-id]:not([data-status="excluded"])').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { id: string } }).dataset.id)),
    expected.items.map((i) => i.id),
  );
  const out = expected.excluded[0]!;
  const row = frame.locator(`#items tbody tr[data-id="${out.id}"]`);
  assert.equal(await row.getAttribute('data-status'), 'excluded');
  assert.match((await row.locator('.col-reason').textContent()) ?? '', new RegExp(EXCLUSION_LABELS[out.reason as ExclusionReason]));
  await screenshot(page, '01-inspector-dark');
});

test('filtering, the agent files and the history tab', async () => {
  const page = wb!.page;
  const frame = inspector(page);
  await frame.locator('#filter').locator('input').fill('card numbers');
  await waitFor(() => frame.locator('#items tbody tr[data-id]').count(), (n) => n === 1, 'one row for "card numbers"');
  assert.equal(await frame.locator('#items tbody tr[data-id]').first().getAttribute('data-id'), RULE_BODY_ID);
  await frame.locator('#filter').locator('input').fill('');

  await frame.locator('vscode-tab-header[data-tab="agent"]').click();
  const copilot = frame.locator('#agent-files tr[data-path=".github/copilot-instructions.md"]');
  await copilot.waitFor({ state: 'visible' });
  assert.equal(await copilot.getAttribute('data-applies'), 'true');
  // Found by content, not by an exact copy: the rule in other layout is the same text, all of it read twice.
  const ruleTokens = cliBuild(BUDGET, JSON.parse((await summary(page))['data-paths']!) as string[]).items.find((i) => i.id === RULE_BODY_ID)!;
  const flag = copilot.locator(`.overlap[data-id="${RULE_BODY_ID}"]`);
  assert.equal(Number(await flag.getAttribute('data-share')), 1);
  assert.match((await flag.textContent()) ?? '', new RegExp(`Never log card numbers or CVCs \\(100%, ${ruleTokens.tokens} of ${ruleTokens.tokens} tokens, same text\\)`));
  const agents = frame.locator('#agent-files tr[data-path="AGENTS.md"]');
  assert.equal(Number(await agents.locator(`.overlap[data-id="${SECTION_ID}"]`).getAttribute('data-share')), 1, 'the learning AGENTS.md carries as a section is flagged');
  assert.equal(await frame.locator('#agent-files tr[data-path=".github/instructions/python.instructions.md"]').getAttribute('data-applies'), 'false');
  assert.equal(await frame.locator('#agent-files tr[data-path="AGENTS.md"]').getAttribute('data-applies'), 'true');
  assert.match((await frame.locator('#agent-total').textContent()) ?? '', /ledger tokens repeat what those files already say/);
  await screenshot(page, '02-agent-files');
  // The items table flags the same artifacts where the user looks at them.
  await frame.locator('vscode-tab-header[data-tab="items"]').click();
  const pill = frame.locator(`#items tbody tr[data-id="${RULE_BODY_ID}"] .pill-overlap`);
  await pill.waitFor({ state: 'visible' });
  assert.match((await pill.textContent()) ?? '', /100% also in \.github\/copilot-instructions\.md/);
  assert.equal(await frame.locator(`#items tbody tr[data-id="${SECTION_ID}"] .pill-overlap[data-overlap="AGENTS.md"]`).count(), 1);

  await frame.locator('vscode-tab-header[data-tab="history"]').click();
  await frame.locator('svg.timeline').waitFor({ state: 'visible' });
  assert.equal(await frame.locator('svg.timeline rect.tl-bar').count(), 2, 'two logged builds');
  assert.match(await frame.locator('.tl-caption').innerText(), /last 2 logged builds, from #\d+ \(.+\) on the left to #\d+ \(.+\) on the right/);
  // The newest build is the one compared at first; a click on the oldest bar compares that one.
  const oldest = await frame.locator('svg.timeline rect.tl-bar').first().getAttribute('data-id');
  assert.notEqual(await frame.locator('svg.timeline rect.tl-selected').getAttribute('data-id'), oldest);
  await frame.locator('svg.timeline g.tl-build').first().click();
  await waitFor(() => frame.locator('svg.timeline rect.tl-selected').getAttribute('data-id'), (id) => id === oldest, 'the clicked build highlighted');
  assert.equal(await frame.locator('#diff-from').evaluate((el) => (el as unknown as { value: string }).value), oldest);
  await screenshot(page, '03-history');
  await frame.locator('vscode-tab-header[data-tab="items"]').click();
});

test('a click opens the artifact; Pin brings a left-out artifact into the context', async () => {
  const page = wb!.page;
  const frame = inspector(page);
  const s = await summary(page);
  const out = cliBuild(BUDGET, JSON.parse(s['data-paths']!) as string[]).excluded.find((e) => e.reason === 'below-threshold');
  assert.ok(out, 'the sample leaves some artifact below the threshold');
  const row = frame.locator(`#items tbody tr[data-id="${out.id}"]`);
  const title = ((await row.locator('.col-title a').textContent()) ?? '').trim();
  // A left-out row says where it would go and what it would cost in full.
  const scope = sampleArtifacts().find((a) => a.id === out.id)!.scope;
  assert.equal(((await row.locator('.col-layer').textContent()) ?? '').trim(), scope === 'path' ? 'global' : scope);
  const wouldCost = await waitFor(async () => Number(((await row.locator('.col-tokens').textContent()) ?? '').trim().replace(/,/g, '')), (n) => Number.isInteger(n) && n > 0, `the token count of the left-out "${title}"`);
  assert.match((await row.locator('.col-tokens .would').getAttribute('title')) ?? '', new RegExp(`would take ${wouldCost} tokens in full`));
  await row.scrollIntoViewIfNeeded();
  await screenshot(page, '03-left-out-rows');
  const superseded = cliBuild(BUDGET, JSON.parse(s['data-paths']!) as string[]).excluded.find((e) => e.reason === 'superseded');
  if (superseded) {
    const sRow = frame.locator(`#items tbody tr[data-id="${superseded.id}"]`);
    assert.equal(((await sRow.locator('.col-layer').textContent()) ?? '').trim(), sampleArtifacts().find((a) => a.id === superseded.id)!.scope);
    assert.match(((await sRow.locator('.col-tokens').textContent()) ?? '').trim(), /^\d[\d,]*$/);
  }
  await row.locator('.col-title a').click();
  await waitFor(() => activeEditorText(page), (text) => text.includes(title), `"${title}" to open in an editor`);
  await screenshot(page, '03a-artifact-opened');
  await runCommand(page, 'View: Close Editor');
  await page.locator('.tab', { hasText: 'Context Inspector' }).first().click();
  await frame.locator('#summary').waitFor({ state: 'visible' });

  await frame.locator(`#items tbody tr[data-id="${out.id}"] vscode-button`, { hasText: 'Pin' }).click();
  await waitFor(() => frame.locator(`#items tbody tr[data-id="${out.id}"]`).getAttribute('data-status'), (st) => st !== null && st !== 'excluded', `"${title}" to be included after pinning`, 45_000);
  assert.equal(((await frame.locator(`#items tbody tr[data-id="${out.id}"] .col-layer`).textContent()) ?? '').trim(), 'fixed', 'a pinned artifact sits in the fixed layer');
  // Now in: the CLI counts what the panel said it would cost.
  const pinned = cliBuild(BUDGET, JSON.parse(s['data-paths']!) as string[]).items.find((i) => i.id === out.id);
  assert.equal(pinned?.mode, 'full');
  assert.equal(pinned.tokens, wouldCost, 'the left-out row showed the cost it has once in');
  await frame.locator(`#items tbody tr[data-id="${out.id}"] vscode-button`, { hasText: 'Unpin' }).waitFor({ state: 'visible' });
  await screenshot(page, '03b-pinned');
});

test('"try budget" shows the difference, and changing the budget updates the panel live', async () => {
  const page = wb!.page;
  const frame = inspector(page);
  const before = await summary(page);
  const field = frame.locator('#trial-budget').locator('input');
  await field.fill(String(NEW_BUDGET));
  await field.press('Enter');
  await field.blur();
  await frame.locator('#trial-run').click();
  await frame.locator('#trial-result').waitFor({ state: 'visible' });
  const trialText = (await frame.locator('#trial-result').textContent()) ?? '';
  assert.match(trialText, new RegExp(`At ${NEW_BUDGET.toLocaleString('en-US')} tokens`));
  const paths = JSON.parse(before['data-paths']!) as string[];
  const wider = cliBuild(NEW_BUDGET, paths);
  assert.match(trialText, new RegExp(`would use ${wider.tokensUsed.toLocaleString('en-US')}`));
  await screenshot(page, '04-try-budget');

  await frame.locator('#trial-apply').click();
  const after = await waitFor(() => summary(page), (x) => Number(x['data-budget']) === NEW_BUDGET, `the panel to show a budget of ${NEW_BUDGET}`, 45_000);
  assert.equal(Number(after['data-used']), cliBuild(NEW_BUDGET, JSON.parse(after['data-paths']!) as string[]).tokensUsed);
  const settings = JSON.parse(fs.readFileSync(path.join(session!.userDataDir, 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(settings['contextLedger.budget'], NEW_BUDGET, 'the budget setting was written');
  await waitForStatusBarText(page, /\/3k$/);
});

test('2,000 more candidates (added by the CLI while the panel is open) page without jank', async () => {
  const page = wb!.page;
  const frame = inspector(page);
  const jsonl = path.join(session!.dir, 'bulk.jsonl');
  const lines = Array.from({ length: 2000 }, (_, i) =>
    JSON.stringify({ id: `bulk-${i}`, type: 'note', title: `Bulk note ${i} — Zahlungsprotokoll 日本語 ${i % 10 === 0 ? 'webhook' : 'misc'}`, body: `Body of bulk note ${i}: ${i % 10 === 0 ? 'payment webhook retries' : 'marina berth glossary'}.` }),
  );
  fs.writeFileSync(jsonl, `${lines.join('\n')}\n`);
  run(process.execPath, [CLI, 'import', jsonl, '--db', db]);
  const s = await waitFor(() => summary(page), (x) => Number(x['data-included']) + Number(x['data-excluded']) >= 2000, 'the panel to see the 2,000 new artifacts', 90_000);
  const rows = frame.locator('#items tbody tr[data-id]');
  assert.equal(await rows.count(), 100, 'one page of 100 rows is rendered, not 2,000');
  assert.match((await frame.locator('#range').textContent()) ?? '', /^1–100 of 2,0\d\d$/);
  const total = Number(s['data-included']) + Number(s['data-excluded']);
  const started = Date.now();
  await frame.locator('vscode-button', { hasText: 'Next' }).click();
  await waitFor(() => frame.locator('#range').textContent(), (t) => (t ?? '').startsWith('101–200'), 'the second page');
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 1500, `the next page took ${elapsed} ms`);
  await frame.locator('#filter').locator('input').fill('日本語 webhook');
  await waitFor(() => frame.locator('#range').textContent(), (t) => /of 200$/.test(t ?? ''), 'the filter to find the 200 webhook notes');
  assert.ok(total >= 2000);
  await screenshot(page, '04b-2000-candidates');
  await frame.locator('#filter').locator('input').fill('');
});

test('screenshots in light and high-contrast themes', async () => {
  const page = wb!.page;
  for (const [theme, name] of [['Default Light Modern', '05-inspector-light'], ['Default High Contrast', '06-inspector-high-contrast'], ['Default Dark Modern', '07-inspector-dark-after']] as const) {
    const want = theme.includes('Light') ? 'vs' : theme.includes('High') ? 'hc-black' : 'vs-dark';
    await withFailureScreenshot(page, `theme-${want}`, async () => {
      await runCommand(page, 'Preferences: Color Theme');
      // The theme picker replaces the command palette; type only once it is there.
      const box = page.locator('.quick-input-widget .quick-input-box input[placeholder*="Color Theme"]');
      await box.waitFor({ state: 'visible' });
      await box.fill(theme);
      const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: theme }).first();
      await row.waitFor({ state: 'visible' });
      await row.click();
      await waitFor(() => page.locator('.monaco-workbench').getAttribute('class'), (c) => (c ?? '').split(/\s+/).includes(want), `the ${theme} theme`, 30_000);
    });
    const frame = inspector(page);
    await frame.locator('#summary').waitFor({ state: 'visible' });
    await frame.locator('#summary').evaluate(() => (globalThis as unknown as PageGlobals).scrollTo(0, 0));
    await page.waitForTimeout(800);
    // Every segment of the bar is painted in a colour of its own, none lost in the theme's background.
    const colours = await frame.locator('svg.bar rect').evaluateAll((rects: unknown[]) => {
      const g = globalThis as unknown as PageGlobals;
      const page = g.getComputedStyle(g.document.body).backgroundColor;
      return rects.map((r) => ({ key: (r as { getAttribute(name: string): string | null }).getAttribute('data-key'), fill: g.getComputedStyle(r).fill, page }));
    });
    assert.ok(colours.length >= 2, `segments: ${JSON.stringify(colours)}`);
    assert.equal(new Set(colours.map((c) => c.fill)).size, colours.length, `distinct fills in ${theme}: ${JSON.stringify(colours)}`);
    for (const c of colours.filter((x) => x.key !== 'headroom')) assert.notEqual(c.fill, c.page, `${c.key} is visible on the ${theme} background`);
    const file = await screenshot(page, name);
    assert.ok(fs.statSync(file).size > 10_000, `${file} is a real screenshot`);
  }
});

test('"Show details" of "Build agent context" opens the inspector, whose history gains the build', async () => {
  const page = wb!.page;
  const frame = inspector(page);
  const historyBadge = frame.locator('vscode-tab-header[data-tab="history"] vscode-badge');
  const before = Number(((await historyBadge.textContent()) ?? '').trim());
  await runCommand(page, 'Context Ledger: Build agent context');
  await waitForNotification(page, /copied the context/);
  await page.locator('.notifications-toasts .monaco-button', { hasText: 'Show details' }).first().click();
  await page.locator('.tab.active', { hasText: 'Context Inspector' }).first().waitFor({ state: 'visible' });
  await waitFor(async () => Number(((await historyBadge.textContent()) ?? '').trim()), (n) => n === before + 1, 'one more build in the history');
});

test('the inspector is restored after a reload, on the tab it was on', async () => {
  const page = wb!.page;
  const before = await summary(page);
  await inspector(page).locator('vscode-tab-header[data-tab="agent"]').click();
  await inspector(page).locator('#agent-files').waitFor({ state: 'visible' });
  // As a user reloads: the workbench saves its state (the webview's included) on the way down.
  await Promise.all([page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90_000 });
  await waitForWorkbenchReady(page);
  await withFailureScreenshot(page, 'restore', async () => {
    await inspector(page).locator('#summary').waitFor({ state: 'visible', timeout: 60_000 });
  });
  const s = await summary(page);
  assert.equal(Number(s['data-budget']), Number(before['data-budget']));
  await withFailureScreenshot(page, 'restore-tab', () => inspector(page).locator('#agent-files').waitFor({ state: 'visible' }));
  const csp = wb!.consoleErrors.filter((e) => /Content Security Policy|Refused to/i.test(e));
  assert.deepEqual(csp, [], 'no CSP violations');
  await screenshot(page, '08-restored');
});
