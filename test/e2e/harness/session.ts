import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { type CodeServer, type CodeServerOptions, startCodeServer } from './codeServer';
import { type SampleWorkspace, packageExtension, seedSampleWorkspace } from './packaging';
import { OUTPUT_DIR, REPO_ROOT, TIMEOUTS } from './paths';
import { waitFor } from './ui';
import { withFailureScreenshot } from './screenshots';
import { normalize, safeName, sleep } from './util';
import { QUICK_INPUT_BOX, type Workbench, focusRow, openWorkbench, quickInputLabels, runCommand } from './workbench';

// ---------------------------------------------------------------------------
// Answering the extension's own quick picks and input boxes
// ---------------------------------------------------------------------------

/** Waits for an open quick input whose title contains `title`. */
export async function waitForQuickInputTitle(page: Page, title: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout });
}

/**
 * Runs a command that opens a quick input titled `title` and waits for it. The palette and
 * the command's quick pick share one widget: a pick shown while the palette is still
 * closing can be hidden with it (seen once in CI, the title present but hidden). A second
 * run then shows it; a person would simply run the command again.
 */
export async function runCommandForQuickInput(page: Page, command: string, title: string): Promise<void> {
  await runCommand(page, command);
  try {
    await waitForQuickInputTitle(page, title, 5_000);
    return;
  } catch {
    await runCommand(page, command);
  }
  await waitForQuickInputTitle(page, title);
}

/**
 * With a quick pick open (titled `title`): types `filter`, moves to the row whose label
 * (icons render as nothing) equals `label`, and accepts it with Enter.
 */
export async function pickQuickInputItem(page: Page, title: string, filter: string, label: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await withFailureScreenshot(page, `pick-${label}`, async () => {
    await waitForQuickInputTitle(page, title, timeout);
    const want = normalize(label);
    const deadline = Date.now() + timeout;
    const input = page.locator(QUICK_INPUT_BOX);
    await input.fill(filter);
    for (;;) {
      const labels = await quickInputLabels(page);
      if (labels.some((l) => l === want)) break;
      if (Date.now() > deadline) throw new Error(`no row ${JSON.stringify(label)} under ${JSON.stringify(title)}; rows: ${labels.map((l) => JSON.stringify(l)).join(', ') || '(none)'}`);
      await sleep(200);
    }
    await focusRow(page, (l) => l === want);
    await page.keyboard.press('Enter');
  });
}

/** With an input box open (titled `title`): replaces its text with `value` and accepts it with Enter. */
export async function answerInputBox(page: Page, title: string, value: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await withFailureScreenshot(page, `input-${title}`, async () => {
    await waitForQuickInputTitle(page, title, timeout);
    const input = page.locator(QUICK_INPUT_BOX);
    await input.fill('');
    if (value) await input.pressSequentially(value, { delay: 5 });
    await waitFor(() => input.inputValue(), (v) => v === value, `the typed text in the input box titled ${JSON.stringify(title)}`);
    await page.keyboard.press('Enter');
  });
}

export interface ExtensionSession extends SampleWorkspace {
  /** The temporary folder holding the workspace, the extensions and the user data. */
  dir: string;
  userDataDir: string;
  server: CodeServer;
  wb: Workbench;
  /** Stops the browser and the server; removes `dir` unless E2E_KEEP_TMP is set. */
  close(): Promise<void>;
}

/**
 * The deterministic local language model the chat tests talk to (test/e2e/fixtures/test-model):
 * registered through the language-model chat provider API of current VS Code, so the chat
 * view works without Copilot or a network. Test-only: never packaged with the extension.
 */
export const TEST_MODEL_EXTENSION: string = path.join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'test-model');

/**
 * Copies an extension folder (package.json + plain JS, no build) into `extensionsDir` as
 * `publisher.name-version`, which code-server loads at start-up like an installed one.
 */
export function installUnpackedExtension(folder: string, extensionsDir: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.cpSync(folder, target, { recursive: true });
  return target;
}

/** `<dir>/workspace`, empty, and where its ledger will be once something creates it. */
function blankWorkspace(dir: string): SampleWorkspace {
  const workspace = path.join(dir, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  return { workspace, db: path.join(workspace, '.context-ledger', 'ledger.db') };
}

/**
 * The usual start of an extension test file: the packaged .vsix (packageExtension) installed
 * into a fresh code-server on a seeded copy of the sample workspace (seedSampleWorkspace),
 * with `settings` (and `options.trusted === false`: in Restricted Mode), and the workbench open. Screenshots and the server log go to OUTPUT_DIR/<name>.
 */
export async function startExtensionSession(
  name: string,
  settings: Record<string, unknown> = {},
  options: Pick<CodeServerOptions, 'trusted'> & {
    /** Adds the test's own files to the seeded workspace before VS Code opens it. */
    prepare?: (seeded: SampleWorkspace) => void;
    /** Test-only extension folders (e.g. TEST_MODEL_EXTENSION) loaded beside the packaged one. */
    unpacked?: string[];
    /** A new user's workspace: an empty folder with no ledger (`prepare` writes its files), not the seeded sample. */
    blank?: boolean;
  } = {},
): Promise<ExtensionSession> {
  const shots = path.join(OUTPUT_DIR, name);
  fs.mkdirSync(shots, { recursive: true });
  const vsix = packageExtension();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `e2e-${safeName(name)}-`));
  const remove = (): void => {
    if (!process.env.E2E_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const seeded = options.blank ? blankWorkspace(dir) : seedSampleWorkspace(dir);
    options.prepare?.(seeded);
    const userDataDir = path.join(dir, 'user-data');
    for (const folder of options.unpacked ?? []) installUnpackedExtension(folder, path.join(dir, 'extensions'));
    const t0 = Date.now();
    const server = await startCodeServer({
      workspace: seeded.workspace,
      extensionsDir: path.join(dir, 'extensions'),
      userDataDir,
      vsixPath: vsix,
      settings,
      logFile: path.join(shots, 'code-server.log'),
      ...(options.trusted !== undefined ? { trusted: options.trusted } : {}),
    });
    const t1 = Date.now();
    const wb = await openWorkbench(server.url, seeded.workspace, shots).catch(async (err: unknown) => {
      await server.stop();
      throw err;
    });
    console.log(`${name}: code-server up in ${t1 - t0} ms, workbench ready ${Date.now() - t1} ms later`);
    const close = async (): Promise<void> => {
      await wb.close();
      await server.stop();
      remove();
    };
    return { ...seeded, dir, userDataDir, server, wb, close };
  } catch (err) {
    remove();
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Dialogs (modal messages)
// ---------------------------------------------------------------------------

/** Waits for a modal dialog; returns its message and detail text. */
export async function waitForDialog(page: Page, timeout: number = TIMEOUTS.command): Promise<{ message: string; detail: string }> {
  const box = page.locator('.monaco-dialog-box');
  await box.waitFor({ state: 'visible', timeout });
  const message = normalize((await box.locator('.dialog-message-text').first().textContent()) ?? '');
  const detail = (await box.locator('.dialog-message-detail').first().textContent().catch(() => '')) ?? '';
  return { message, detail };
}

/** Clicks the button labelled `label` in the open modal dialog and waits for the dialog to close. */
export async function clickDialogButton(page: Page, label: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  const box = page.locator('.monaco-dialog-box');
  await box.locator('.dialog-buttons .monaco-button', { hasText: label }).first().click({ timeout });
  await box.waitFor({ state: 'hidden', timeout });
}

// ---------------------------------------------------------------------------
// Chat view (current VS Code; with TEST_MODEL_EXTENSION loaded)
// ---------------------------------------------------------------------------

const CHAT_INPUT = '.interactive-input-part';
const CHAT_RESPONSE = '.interactive-item-container.interactive-response';

/** Opens the Chat view and waits until the model picker shows `model` (the test model registered). */
export async function openChat(page: Page, model = 'E2E Echo', timeout: number = TIMEOUTS.command): Promise<void> {
  await runCommand(page, 'Chat: Open Chat');
  await withFailureScreenshot(page, `chat-model-${model}`, () =>
    waitFor(() => page.locator(CHAT_INPUT).first().innerText(), (text) => text.includes(model), `the chat model picker to show "${model}"`, timeout),
  );
}

/** The text the chat input shows (its rendered lines: what is scrolled out of view is not included). */
export async function chatInputText(page: Page): Promise<string> {
  return page.locator(`${CHAT_INPUT} .view-lines`).first().innerText();
}

/** Scrolls the chat input to its first line (a long text sent to it shows its end). */
export async function scrollChatInputToTop(page: Page): Promise<void> {
  await page.locator(`${CHAT_INPUT} .monaco-editor`).first().click();
  await page.keyboard.press('ControlOrMeta+Home');
}

/**
 * The newest response in the chat view: its list position, whether it is still streaming
 * and its text. The list is virtualised (older rows leave the DOM), so a new response is
 * told by its position, not by counting rendered rows.
 */
export async function lastChatResponse(page: Page): Promise<{ index: number; loading: boolean; text: string } | undefined> {
  const row = page.locator('.monaco-list-row').filter({ has: page.locator(`${CHAT_RESPONSE}.chat-most-recent-response`) }).last();
  if ((await row.count()) === 0) return undefined;
  const response = row.locator(CHAT_RESPONSE).first();
  const index = Number((await row.getAttribute('data-index')) ?? '-1');
  const loading = ((await response.getAttribute('class')) ?? '').includes('chat-response-loading');
  return { index, loading, text: normalize(await response.innerText()) };
}

/** The whole Chat view (responses, and the tool confirmations docked above the input). */
export function chatView(page: Page): Locator {
  return page.locator('[id="workbench.panel.chat"]');
}

/**
 * Waits for a tool confirmation whose text matches `title` in the Chat view and returns
 * its text; the widget sits above the input, outside the response it belongs to.
 */
export async function waitForChatConfirmation(page: Page, title: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, 'chat-confirmation', () =>
    waitFor(async () => normalize(await chatView(page).innerText()), (text) => title.test(text), `a chat confirmation matching ${String(title)}`, timeout),
  );
}

/** Clicks the Chat view's button whose label starts with `label` (e.g. a confirmation's "Allow"). */
export async function clickChatButton(page: Page, label: string, timeout: number = TIMEOUTS.ui): Promise<void> {
  await chatView(page).locator('.monaco-button', { hasText: new RegExp(`^\\s*${label}`) }).last().click({ timeout });
}

/**
 * Types `prompt` into the chat input (replacing what is there), sends it, and waits until a
 * new response has finished and its text matches `expected`; returns that text. Waits on
 * the response itself, not on time: the response container carries `chat-response-loading`
 * while it streams.
 */
export async function askChat(page: Page, prompt: string, expected: RegExp, timeout: number = TIMEOUTS.command): Promise<string> {
  return withFailureScreenshot(page, `chat-${prompt.slice(0, 40)}`, async () => {
    const before = (await lastChatResponse(page))?.index ?? -1;
    const input = page.locator(`${CHAT_INPUT} .monaco-editor`).first();
    await input.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(prompt);
    // The input shows the end of a long prompt, wrapped anywhere: compare without white space.
    const tail = prompt.replace(/\s+/g, '').slice(-15);
    await waitFor(() => chatInputText(page), (text) => text.replace(/\s+/g, '').includes(tail), 'the prompt in the chat input');
    await page.keyboard.press('Enter');
    return waitFor(
      async () => {
        const last = await lastChatResponse(page);
        if (!last || last.index <= before) return '';
        // A response that waits for a confirmation stays "loading"; what it shows is final until then.
        return last.loading && !/confirmation pending/i.test(last.text) ? '' : last.text;
      },
      (text) => expected.test(text),
      `a chat response to "${prompt}" matching ${String(expected)}`,
      timeout,
    );
  });
}

