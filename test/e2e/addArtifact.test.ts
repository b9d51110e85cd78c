/**
 * "Context Ledger: Add artifact" end to end in a real code-server + Chromium, as a person
 * would do it: command palette, pick a type, type a (non-ASCII) title, write the body in the
 * draft document, save with Ctrl+S; the artifact then shows in the sidebar and in the
 * database. Screenshots land in test-output/e2e/add-artifact/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  TIMEOUTS,
  activeEditorText,
  openView,
  runCli,
  runCommandForQuickInput,
  screenshot,
  startExtensionSession,
  waitFor,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { ExtensionSession, Workbench } from './harness';

const TITLE = 'Retries need jitter — café ☕';
const BODY = 'Back off exponentially with full jitter — naïve fixed delays cause thundering herds.';

let session: ExtensionSession | undefined;
let db = '';
let wb: Workbench | undefined;

function listedTitles(): string[] {
  const out = runCli(['list', '--db', db, '--format', 'json']);
  const parsed = JSON.parse(out) as unknown;
  const rows = (Array.isArray(parsed) ? parsed : ((parsed as { artifacts?: unknown[] }).artifacts ?? [])) as { title?: string }[];
  return rows.map((r) => r.title ?? '');
}

before(async () => {
  session = await startExtensionSession('add-artifact');
  ({ db, wb } = session);
});

after(async () => {
  await session?.close();
});

test('"Add artifact" with a non-ASCII title: draft, Ctrl+S, then in the sidebar and the database', async () => {
  const page = wb!.page;
  const t0 = Date.now();
  assert.ok(!listedTitles().includes(TITLE), 'the title is not in the seeded ledger');
  await openView(page, 'Artifacts');

  await runCommandForQuickInput(page, 'Context Ledger: Add artifact', 'add artifact');
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
  const shown = runCli(['list', '--db', db, '--format', 'json', '--text', 'naïve fixed delays']);
  assert.ok(shown.includes(TITLE), `list --text "naïve fixed delays": ${shown}`);
  console.log(`add-artifact flow took ${Date.now() - t0} ms`);
});
