/**
 * Context menus as a person opens them: a right-click on the editor text or on an Explorer
 * row, then the menu's entries (VS Code in the browser draws its own menus, so they are in
 * the page). Kept beside harness.ts so that file does not grow further.
 */
import type { Locator, Page } from 'playwright-core';
import { runCommand, TIMEOUTS, waitFor, withFailureScreenshot } from './harness';

const MENU = '.context-view .monaco-menu';

const clean = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The text area of the active editor (right-click target). */
export function editorTextArea(page: Page): Locator {
  return page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
}

/** Reveals the active editor's file in the Explorer and returns its (selected) row. */
export async function revealActiveFileInExplorer(page: Page, fileName: string): Promise<Locator> {
  await runCommand(page, 'File: Reveal Active File in Explorer View');
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: fileName }).first();
  await row.waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  return row;
}

/** Right-clicks `target` and returns the labels of its context menu's entries (the menu stays open). */
export async function openContextMenu(page: Page, target: Locator, what: string): Promise<string[]> {
  return withFailureScreenshot(page, `context-menu-${what}`, async () => {
    await page.keyboard.press('Escape');
    await target.click({ button: 'right' });
    const menu = page.locator(MENU).first();
    await menu.waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
    // The menu fills in one go, but give a late contribution a moment to settle.
    return waitFor(
      async () => (await menu.locator('.action-item .action-label').allTextContents()).map(clean).filter((l) => l !== ''),
      (labels) => labels.length > 0,
      `the ${what} context menu`,
    );
  });
}

/** Clicks the open context menu's entry labelled `label`. */
export async function clickContextMenuItem(page: Page, label: string): Promise<void> {
  const item = page.locator(`${MENU} .action-item`).filter({ has: page.locator('.action-label', { hasText: label }) }).first();
  await withFailureScreenshot(page, `context-menu-click-${label}`, () => item.click({ timeout: TIMEOUTS.ui }));
}

/**
 * Closes a context menu that is still open. After a click the menu closes itself: an Escape
 * pressed then reaches whatever the clicked command is opening and may cancel it, so it is
 * pressed only when the menu is still there.
 */
export async function closeContextMenu(page: Page): Promise<void> {
  const menu = page.locator(MENU).first();
  const closed = await menu.waitFor({ state: 'hidden', timeout: 2_000 }).then(() => true, () => false);
  if (closed) return;
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'hidden', timeout: TIMEOUTS.ui }).catch(() => undefined);
}
