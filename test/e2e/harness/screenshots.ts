import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { OUTPUT_DIR, TIMEOUTS } from './paths';
import { errorMessage, safeName } from './util';

/** Where each page's screenshots go (set when the workbench opens). */
export const screenshotDirs = new WeakMap<Page, string>();

// ---------------------------------------------------------------------------
// Screenshots and failure reporting
// ---------------------------------------------------------------------------

/** Saves a full-window screenshot as <screenshotDir>/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = screenshotDirs.get(page) ?? OUTPUT_DIR;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${safeName(name)}.png`);
  await page.screenshot({ path: file, timeout: TIMEOUTS.ui });
  return file;
}

/**
 * What a person would have seen on the screen when a step failed, in words: CI keeps the log but
 * not always the screenshot, so the toasts, the editor tabs and an open menu go in the message.
 */
async function visibleState(page: Page): Promise<string> {
  const texts = (selector: string): Promise<string[]> =>
    page.locator(selector).allInnerTexts().then((all) => all.map((t) => t.replace(/\s+/g, ' ').trim()).filter((t) => t !== ''), () => []);
  const [toasts, tabs, menu] = await Promise.all([
    texts('.notifications-toasts .notification-list-item-message'),
    texts('.editor-group-container .tab .label-name'),
    texts('.context-view .monaco-menu .action-item .action-label'),
  ]);
  const lines = [`toasts: ${JSON.stringify(toasts)}`, `editor tabs: ${JSON.stringify(tabs)}`];
  if (menu.length > 0) lines.push(`an open menu: ${JSON.stringify(menu)}`);
  return lines.map((l) => `\n  ${l}`).join('');
}

/**
 * Runs `fn`; if it throws, takes a screenshot named failure-<what>-<time>.png and rethrows
 * with the screenshot's path added to the message.
 */
export async function withFailureScreenshot<T>(page: Page, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    let shot = '(screenshot failed)';
    try {
      shot = await screenshot(page, `failure-${what}-${Date.now()}`);
    } catch (shotErr) {
      shot = `(screenshot failed: ${errorMessage(shotErr)})`;
    }
    const wrapped = new Error(`${what}: ${errorMessage(err)}\n  screenshot: ${shot}${await visibleState(page)}`);
    if (err instanceof Error && err.stack) {
      wrapped.stack = `${wrapped.message}\n  caused by: ${err.stack}`;
    }
    throw wrapped;
  }
}

