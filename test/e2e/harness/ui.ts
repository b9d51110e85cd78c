import type { Locator, Page } from 'playwright-core';
import { TIMEOUTS } from './paths';
import { withFailureScreenshot } from './screenshots';
import { errorMessage, normalize, sleep } from './util';

// ---------------------------------------------------------------------------
// Clipboard, status bar, notifications, trees, editor
// ---------------------------------------------------------------------------

/**
 * Reads the browser clipboard (what `vscode.env.clipboard.writeText` wrote).
 * The page must have focus; headless Chromium keeps it when the window is brought to front.
 */
export async function readClipboard(page: Page): Promise<string> {
  await page.bringToFront();
  // A string expression: the project's TypeScript lib has no DOM types.
  const text = await page.evaluate<unknown>('navigator.clipboard.readText()');
  if (typeof text !== 'string') {
    throw new Error(`clipboard read returned ${typeof text}`);
  }
  return text;
}

/** Waits until `read` returns a value accepted by `accept` (polling), returning it. */
export async function waitFor<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeout: number = TIMEOUTS.ui,
): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: T | undefined;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (accept(last)) {
        return last;
      }
    } catch (err) {
      lastErr = err;
    }
    await sleep(250);
  }
  throw new Error(
    `timed out after ${timeout} ms waiting for ${what}; last value: ${JSON.stringify(last)}` +
      (lastErr ? `; last error: ${errorMessage(lastErr)}` : ''),
  );
}

/** Waits until the clipboard content matches `expected` and returns it. */
export async function waitForClipboard(page: Page, expected: RegExp | string, timeout: number = TIMEOUTS.ui): Promise<string> {
  return withFailureScreenshot(page, 'clipboard', () =>
    waitFor(
      () => readClipboard(page),
      (text) => (typeof expected === 'string' ? text === expected : expected.test(text)),
      `clipboard to match ${String(expected)}`,
      timeout,
    ),
  );
}

/** The visible texts of all status bar items (icons appear as nothing, spaces collapsed). */
export async function statusBarTexts(page: Page): Promise<string[]> {
  const items = page.locator('#workbench\\.parts\\.statusbar .statusbar-item');
  const texts = await items.allInnerTexts();
  return texts.map(normalize).filter((t) => t.length > 0);
}

/** Waits until some status bar item's text matches `pattern`; returns that text. */
export async function waitForStatusBarText(page: Page, pattern: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, `statusbar-${pattern.source}`, async () => {
    const texts = await waitFor(
      () => statusBarTexts(page),
      (all) => all.some((t) => pattern.test(t)),
      `a status bar item matching ${String(pattern)}`,
      timeout,
    );
    return texts.find((t) => pattern.test(t))!;
  });
}

/** Messages of the notification toasts currently shown. */
export async function notifications(page: Page): Promise<string[]> {
  const texts = await page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
  return texts.map(normalize);
}

/** Waits for a notification toast whose message matches `pattern`; returns its text. */
export async function waitForNotification(page: Page, pattern: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, `notification-${pattern.source}`, async () => {
    // An information toast hides itself after about 15 s: one that came but did not match is gone by the
    // timeout, so the error names every toast seen while waiting, not just the last (often empty) list.
    const seen = new Set<string>();
    const read = async (): Promise<string[]> => {
      const texts = await notifications(page);
      for (const text of texts) seen.add(text);
      return texts;
    };
    const all = await waitFor(read, (n) => n.some((t) => pattern.test(t)), `a notification matching ${String(pattern)}`, timeout).catch((error: unknown) => {
      throw new Error(`${errorMessage(error)}; toasts seen while waiting: ${JSON.stringify([...seen])}`);
    });
    await sleep(500); // toasts slide in; let the animation finish so screenshots show them
    return all.find((t) => pattern.test(t))!;
  });
}

/** The pane (in any side bar or panel) whose header title is `viewTitle` (case-insensitive). */
export function viewPane(page: Page, viewTitle: string): Locator {
  const escaped = viewTitle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page
    .locator('.pane')
    .filter({ has: page.locator('.pane-header h3.title', { hasText: new RegExp(`^\\s*${escaped}\\s*$`, 'i') }) })
    .first();
}

export interface TreeItem {
  label: string;
  description: string;
  /** 1 for top-level items. */
  depth: number;
  /** undefined for leaves. */
  expanded: boolean | undefined;
}

/**
 * A group row of the Artifacts view: a scope or a type, described by its count ("7", or
 * "7 · Conventions" for a scope of one type, whose artifacts sit right under it). Not a workspace
 * folder's row in a multi-root workspace.
 */
export function isGroupRow(item: TreeItem): boolean {
  return /^\d+( · .+)?$/.test(item.description);
}

/** The rendered (visible) items of the tree in the view titled `viewTitle`, top to bottom. */
export async function treeItems(page: Page, viewTitle: string): Promise<TreeItem[]> {
  const pane = viewPane(page, viewTitle);
  if ((await pane.count()) === 0) {
    throw new Error(`no view titled ${JSON.stringify(viewTitle)} is open (use openView first)`);
  }
  const header = pane.locator('.pane-header').first();
  if ((await header.getAttribute('aria-expanded')) === 'false') {
    await header.click();
  }
  // One read of all rows in the page: a per-row locator would wait out Playwright's timeout
  // for every row that has no description (group rows), which made this take minutes.
  // (test/e2e compiles without the DOM lib, hence the minimal DomRow shape.)
  type DomRow = { querySelector(selector: string): { textContent: string | null } | null; getAttribute(name: string): string | null };
  const raw = await pane.locator('.pane-body .monaco-list-row').evaluateAll((rows: unknown[]) =>
    (rows as DomRow[]).map((row) => ({
      label: row.querySelector('.label-name, .monaco-highlighted-label')?.textContent ?? '',
      description: row.querySelector('.label-description')?.textContent ?? '',
      level: row.getAttribute('aria-level'),
      expanded: row.getAttribute('aria-expanded'),
    })),
  );
  return raw.map((r) => {
    const level = Number(r.level ?? '1');
    return {
      label: normalize(r.label),
      description: normalize(r.description),
      depth: Number.isFinite(level) ? level : 1,
      expanded: r.expanded === null ? undefined : r.expanded === 'true',
    };
  });
}

/**
 * The tooltip of the row labelled `label` in the view titled `viewTitle`, as a person reads it by
 * resting the mouse on the row (the row must be on screen). The mouse leaves the row first, so the
 * tooltip is the row's current one.
 */
export async function treeItemTooltip(page: Page, viewTitle: string, label: string, timeout: number = TIMEOUTS.ui): Promise<string> {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const row = viewPane(page, viewTitle).locator('.pane-body .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escaped}\\s*$`) }) }).first();
  const hovers = page.locator('.monaco-hover, .workbench-hover');
  await page.mouse.move(5, 5);
  await hovers.first().waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
  await row.hover({ timeout });
  // The row's own tooltip: it starts with the row's title (another row's may still be fading).
  const hover = hovers.filter({ hasText: new RegExp(`^\\s*${escaped}`) }).last();
  await hover.waitFor({ state: 'visible', timeout });
  const text = normalize((await hover.innerText()) ?? '');
  // Gone before the caller goes on: a tooltip left open covers the rows a screenshot is taken of.
  await page.mouse.move(5, 5);
  if (!(await hover.waitFor({ state: 'hidden', timeout: 3_000 }).then(() => true, () => false))) await page.keyboard.press('Escape');
  return text;
}

/** Waits until the tree in `viewTitle` shows items accepted by `accept`; returns them. */
export async function waitForTreeItems(
  page: Page,
  viewTitle: string,
  accept: (items: TreeItem[]) => boolean,
  timeout: number = TIMEOUTS.ui,
): Promise<TreeItem[]> {
  return withFailureScreenshot(page, `tree-${viewTitle}`, () =>
    waitFor(() => treeItems(page, viewTitle), accept, `tree items in ${JSON.stringify(viewTitle)}`, timeout),
  );
}

/** The text of the active editor, as Monaco renders it (visible lines only; fine for short files). */
export async function activeEditorText(page: Page): Promise<string> {
  // One read of all lines in the page: line by line, a line Monaco re-rendered meanwhile
  // left a locator waiting out Playwright's whole timeout.
  type DomLine = { getAttribute(name: string): string | null; textContent: string | null };
  const raw = await page
    .locator('.editor-group-container.active .monaco-editor .view-lines .view-line')
    .evaluateAll((lines: unknown[]) => (lines as DomLine[]).map((line) => ({ style: line.getAttribute('style') ?? '', text: line.textContent ?? '' })));
  const tops = raw.map(({ style, text }) => ({ top: Number(/top:\s*(-?\d+(?:\.\d+)?)px/.exec(style)?.[1] ?? '0'), text }));
  tops.sort((a, b) => a.top - b.top);
  return tops.map((l) => l.text.replace(/\u00a0/g, ' ')).join('\n');
}

/** The title of the active editor tab. */
export async function activeEditorTitle(page: Page): Promise<string> {
  // The tab's resource name: VS Code 1.139 draws a file's extension outside the label's text.
  const tab = page.locator('.editor-group-container.active .tab.active[data-resource-name]').first();
  if ((await tab.count()) > 0) return (await tab.getAttribute('data-resource-name')) ?? '';
  const label = page.locator('.editor-group-container.active .title-label .label-name').first();
  // No editor yet: say so at once, so a caller's waitFor polls again instead of one 30 s locator wait.
  if ((await label.count()) === 0) return '';
  return normalize((await label.textContent({ timeout: 2000 })) ?? '');
}

