import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_PATH, OUTPUT_DIR, TIMEOUTS } from './paths';
import { screenshotDirs, withFailureScreenshot } from './screenshots';
import { activeEditorTitle, viewPane, waitFor } from './ui';
import { normalize, sleep } from './util';

// ---------------------------------------------------------------------------
// Browser / workbench
// ---------------------------------------------------------------------------

export interface Workbench {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (useful in failure messages). */
  consoleErrors: string[];
  close(): Promise<void>;
}


export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Opens the workbench for `folder` (or a `.code-workspace` file) in headless Chromium, with clipboard permissions,
 * and waits until the workbench has rendered and the extension host is up.
 */
export async function openWorkbench(url: string, folder: string, screenshotDir: string = OUTPUT_DIR): Promise<Workbench> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}; run: bash scripts/setup-e2e.sh`);
  }
  fs.mkdirSync(screenshotDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  const consoleErrors: string[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1280 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUTS.ui);
    screenshotDirs.set(page, screenshotDir);
    page.on('console', (msg) => {
      if (msg.type() === 'error') {
        consoleErrors.push(msg.text());
      }
    });
    page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));

    const target = new URL(url);
    // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
    target.searchParams.set(folder.endsWith('.code-workspace') ? 'workspace' : 'folder', path.resolve(folder));
    await page.goto(target.toString(), { waitUntil: 'domcontentloaded', timeout: TIMEOUTS.workbench });
    await withFailureScreenshot(page, 'open-workbench', async () => {
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: TIMEOUTS.workbench });
      await waitForWorkbenchReady(page);
    });
    const close = async (): Promise<void> => {
      await browser.close().catch(() => undefined);
    };
    return { browser, context, page, consoleErrors, close };
  } catch (err) {
    await browser.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Waits for the parts of the workbench tests touch: the status bar and the explorer
 * showing the folder. Extension activation is separate: use runCommand (it retries until
 * the command is registered) or waitForStatusBarText.
 */
export async function waitForWorkbenchReady(page: Page, timeout: number = TIMEOUTS.workbench): Promise<void> {
  await page.locator('#workbench\\.parts\\.statusbar').waitFor({ state: 'visible', timeout });
  // The remote connection indicator and the explorer only render once the server side is connected.
  await page.locator('.explorer-folders-view, .explorer-viewlet, .pane-body').first().waitFor({ state: 'attached', timeout });
}

// ---------------------------------------------------------------------------
// Quick input (command palette, quick open)
// ---------------------------------------------------------------------------

const QUICK_INPUT = '.quick-input-widget';
export const QUICK_INPUT_BOX = '.quick-input-widget .quick-input-box input';
const QUICK_INPUT_ROWS = '.quick-input-widget .quick-input-list .monaco-list-row';

export async function quickInputLabels(page: Page): Promise<string[]> {
  const rows = page.locator(QUICK_INPUT_ROWS);
  const labels: string[] = [];
  for (const row of await rows.all()) {
    const label = await row.locator('.label-name').first().textContent({ timeout: 1_000 }).catch(() => null);
    if (label !== null) {
      labels.push(normalize(label));
    }
  }
  return labels;
}

/**
 * Types `value` into the quick input, first reopening it with `openKey` if it closed:
 * the workbench closes it when something else takes the focus (a late notification,
 * an editor opened by the previous step), which a fixed sequence of key presses cannot see.
 */
async function fillQuickInput(page: Page, openKey: string, value: string): Promise<void> {
  const input = page.locator(QUICK_INPUT_BOX);
  for (let attempt = 0; ; attempt++) {
    try {
      if (!(await input.isVisible())) {
        await page.keyboard.press(openKey);
        await input.waitFor({ state: 'visible', timeout: 5_000 });
      }
      await input.fill(value, { timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

async function closeQuickInput(page: Page): Promise<void> {
  const widget = page.locator(QUICK_INPUT);
  if (await widget.isVisible()) {
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }
}

/**
 * With a quick input open (`openKey` reopens it): sets its text to `value`, waits until a row whose label
 * matches `want` appears (retyping now and then, as the list is only recomputed on input),
 * moves the focus to it with the arrow keys and presses Enter.
 */
async function pickInQuickInput(
  page: Page,
  openKey: string,
  value: string,
  want: (label: string) => boolean,
  describe: string,
  timeout: number,
): Promise<void> {
  const input = page.locator(QUICK_INPUT_BOX);
  const deadline = Date.now() + timeout;
  let labels: string[] = [];
  let round = 0;
  for (;;) {
    // Retype: some providers (commands from an extension host that is still starting,
    // file search) only show new entries when the input changes.
    await fillQuickInput(page, openKey, round % 2 === 0 ? value : `${value} `);
    if (round % 2 === 1) {
      await input.press('Backspace');
    }
    round++;
    const stepEnd = Math.min(deadline, Date.now() + 3_000);
    while (Date.now() < stepEnd) {
      labels = await quickInputLabels(page);
      const index = labels.findIndex(want);
      if (index >= 0) {
        await focusRow(page, want);
        await page.keyboard.press('Enter');
        await page.locator(QUICK_INPUT).waitFor({ state: 'hidden', timeout: TIMEOUTS.ui }).catch(() => undefined);
        return;
      }
      await sleep(200);
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `no ${describe} in the quick input after ${timeout} ms (typed ${JSON.stringify(value)}); ` +
          `rows shown: ${labels.length ? labels.map((l) => JSON.stringify(l)).join(', ') : '(none)'}`,
      );
    }
  }
}

async function focusedLabel(page: Page): Promise<string | null> {
  const focused = page.locator(`${QUICK_INPUT_ROWS}.focused .label-name`).first();
  if ((await focused.count()) === 0) {
    return null;
  }
  const text = await focused.textContent({ timeout: 1_000 }).catch(() => null);
  return text === null ? null : normalize(text);
}

export async function focusRow(page: Page, want: (label: string) => boolean): Promise<void> {
  // The list has at most a few dozen rows for a specific query; walk down to the wanted one.
  for (let i = 0; i < 60; i++) {
    const label = await focusedLabel(page);
    if (label !== null && want(label)) {
      return;
    }
    await page.keyboard.press('ArrowDown');
    await sleep(30);
  }
  throw new Error('could not move the quick input focus to the wanted row');
}

/**
 * Runs a command from the command palette by its displayed title, e.g.
 * "Context Ledger: Show Ledger" (category + ": " + title, exactly as the palette shows it).
 * Retries until the command is registered (the extension host may still be starting).
 */
export async function runCommand(page: Page, title: string, timeout: number = TIMEOUTS.command): Promise<void> {
  await withFailureScreenshot(page, `runCommand-${title}`, async () => {
    await closeQuickInput(page);
    await page.locator('.monaco-workbench').click({ position: { x: 5, y: 5 }, trial: true }).catch(() => undefined);
    // pickInQuickInput opens the palette itself, and reopens it if something took the focus.
    const want = normalize(title);
    await pickInQuickInput(page, 'F1', `>${title}`, (label) => label === want, `command ${JSON.stringify(title)}`, timeout);
  });
}

/** Opens a workspace file by its path relative to the workspace folder, via Quick Open (Ctrl+P). */
export async function openFile(page: Page, relPath: string, timeout: number = TIMEOUTS.command): Promise<void> {
  await withFailureScreenshot(page, `openFile-${relPath}`, async () => {
    await closeQuickInput(page);
    const rel = relPath.split(path.sep).join('/');
    const base = path.posix.basename(rel);
    const dir = path.posix.dirname(rel);
    // Quick Open shows the file name as the label and its folder as the description;
    // several files may share a name, so match both.
    await pickFileRow(page, rel, base, dir === '.' ? '' : dir, timeout);
    await waitFor(() => activeEditorTitle(page), (title) => title === base, `an editor titled ${JSON.stringify(base)}`);
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  });
}

async function pickFileRow(page: Page, rel: string, base: string, dir: string, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout;
  let seen: string[] = [];
  let round = 0;
  while (Date.now() < deadline) {
    await fillQuickInput(page, 'Control+P', round++ % 2 === 0 ? rel : `${rel} `);
    const stepEnd = Math.min(deadline, Date.now() + 3_000);
    while (Date.now() < stepEnd) {
      seen = [];
      const rows = await page.locator(QUICK_INPUT_ROWS).all();
      for (const row of rows) {
        const label = normalize((await row.locator('.label-name').first().textContent({ timeout: 1_000 }).catch(() => '')) ?? '');
        const desc = normalize((await row.locator('.label-description').first().textContent({ timeout: 1_000 }).catch(() => '')) ?? '');
        seen.push(`${label} (${desc})`);
        // In a multi-root workspace the folder's name comes first: "ferry • src".
        if (label === base && (dir === '' ? desc === '' : desc === dir || desc.endsWith(`/${dir}`) || desc.endsWith(` ${dir}`))) {
          // The list may re-render between reading its rows and the click (results arriving): look again.
          if (!(await row.click({ timeout: 2_000 }).then(() => true, () => false))) break;
          await page.locator(QUICK_INPUT).waitFor({ state: 'hidden', timeout: TIMEOUTS.ui }).catch(() => undefined);
          return;
        }
      }
      await sleep(200);
    }
  }
  throw new Error(`no file ${JSON.stringify(rel)} in Quick Open after ${timeout} ms; rows: ${seen.join(', ') || '(none)'}`);
}

/** Opens a view by name through Quick Open's "view " provider (same as "View: Open View..."). */
export async function openView(page: Page, viewName: string, timeout: number = TIMEOUTS.command): Promise<void> {
  await withFailureScreenshot(page, `openView-${viewName}`, async () => {
    await closeQuickInput(page);
    const want = normalize(viewName).toLowerCase();
    await pickInQuickInput(page, 'Control+P', `view ${viewName}`, (label) => label.toLowerCase() === want, `view ${JSON.stringify(viewName)}`, timeout);
    await viewPane(page, viewName).waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  });
}

