/**
 * What a person sees at 1,000 px, in the dark and the light theme: the sidebar's rows, the
 * meter, and the Context Inspector, which must reflow to the editor's width (no sideways
 * scroll of the page, no control cut off). Screenshots land in test-output/e2e/layout/ —
 * look at them: the assertions catch overflow, not taste.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { FrameLocator, Page } from 'playwright-core';
import { openFile, openView, runCommand, screenshot, startExtensionSession, waitFor, waitForStatusBarText, waitForTreeItems } from './harness';
import type { ExtensionSession } from './harness';

const THEMES = ['Default Dark Modern', 'Default Light Modern'] as const;
let session: ExtensionSession | undefined;

function inspector(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

before(async () => {
  session = await startExtensionSession('layout', { 'contextLedger.autoInject.enabled': false, 'workbench.colorTheme': THEMES[0] });
  await session.wb.page.setViewportSize({ width: 1000, height: 760 });
});

after(async () => {
  await session?.close();
});

for (const theme of THEMES) {
  test(`at 1,000 px in ${theme}: the Inspector fits the editor without sideways scroll, and the sidebar shows titles without markup`, async () => {
    const { page } = session!.wb;
    if (theme !== THEMES[0]) {
      // As a person switches it: the theme picker.
      await runCommand(page, 'Preferences: Color Theme');
      // The picker lists "Light Modern" (1.139) or "Default Light Modern" (1.100).
      const label = theme.replace(/^Default /, '');
      await page.locator('.quick-input-widget .quick-input-box input').fill(label);
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ state: 'visible' });
      await page.keyboard.press('Enter');
      await waitFor(
        () => page.locator('.monaco-workbench').getAttribute('class').then((c) => c ?? ''),
        (c) => /(^| )vs( |$)/.test(c),
        `the ${theme} theme`,
      );
    }
    await openView(page, 'Artifacts');
    const items = await waitForTreeItems(page, 'Artifacts', (all) => all.some((i) => i.depth === 3), 45_000);
    for (const item of items) assert.ok(!item.label.includes('`'), `no raw backticks in "${item.label}"`);
    await openFile(page, 'src/payments/webhooks.ts');
    await waitForStatusBarText(page, /^\d+(\.\d+)?k?\/8k$/);
    await runCommand(page, 'Context Ledger: Open Context Inspector');
    const frame = inspector(page);
    await frame.locator('#items tbody tr[data-id]').first().waitFor({ state: 'visible', timeout: 45_000 });
    const widths = await frame.locator('body').evaluate(() => {
      const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return { scroll: doc.documentElement.scrollWidth, client: doc.documentElement.clientWidth };
    });
    // The items table in its own scroller: every column in view, none behind a sideways scroll.
    const table = await frame.locator('.scroll.rows').evaluate((el) => {
      const box = el as unknown as { scrollWidth: number; clientWidth: number };
      return { scroll: box.scrollWidth, client: box.clientWidth };
    });
    const name = theme.includes('Dark') ? 'dark' : 'light';
    await screenshot(page, `inspector-1000px-${name}`);
    assert.ok(widths.scroll <= widths.client + 1, `the Inspector page scrolls sideways at 1,000 px: ${widths.scroll} > ${widths.client}`);
    assert.ok(table.scroll <= table.client + 1, `the items table scrolls sideways at 1,000 px: ${table.scroll} > ${table.client}`);
    await runCommand(page, 'View: Close All Editors');
  });
}
