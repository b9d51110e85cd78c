/**
 * The chat, end to end, in the current VS Code (E2E_VSCODE=current; skipped on the
 * 1.100 minimum, whose chat has no language-model provider API). There is no Copilot
 * here: a test-only extension (test/e2e/fixtures/test-model, loaded unpacked, never
 * shipped) registers a deterministic local model through the language-model chat
 * provider API, and `@e2eagent`, which runs the model with the tool-calling loop an
 * agent runs. Against the packaged extension on the seeded sample workspace:
 *  - "Build agent context" puts the context into the chat input;
 *  - `@ledger /search`, `/context`, `/explain` and `/remember` answer in the chat view,
 *    and saving what `/remember` proposes adds an unreviewed artifact (Needs Review);
 *  - the model calls the ledger's tools through the chat: a read runs at once, a write
 *    shows its confirmation in the chat and runs once allowed, a declined one writes nothing;
 *  - the MCP server the extension registers is listed by the editor (running);
 *  - the contributed chat instructions are listed by the editor, and auto-inject writes
 *    no file into the repository.
 * Screenshots: test-output/e2e/chat/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  askChat,
  clickChatButton,
  lastChatResponse,
  waitForChatConfirmation,
  chatInputText,
  ONLY_ON_CURRENT,
  openChat,
  openView,
  runCommand,
  scrollChatInputToTop,
  screenshot,
  startExtensionSession,
  TEST_MODEL_EXTENSION,
  waitFor,
  waitForNotification,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { ExtensionSession } from './harness';

let session: ExtensionSession | undefined;
const skip = ONLY_ON_CURRENT;

function s(): ExtensionSession {
  assert.ok(session, 'the session did not start');
  return session;
}

before(async () => {
  if (skip) return;
  session = await startExtensionSession('chat', {}, { unpacked: [TEST_MODEL_EXTENSION] });
  await openChat(session.wb.page);
});

after(async () => {
  await session?.close();
});

test('"Build agent context" puts the context into the chat input', { skip }, async () => {
  const { page } = s().wb;
  await runCommand(page, 'Context Ledger: Build agent context');
  await withFailureScreenshot(page, 'context-in-chat-input', () =>
    waitFor(() => chatInputText(page), (t) => t.replace(/\s+/g, ' ').includes('Never log card numbers'), 'the context in the chat input'),
  );
  await scrollChatInputToTop(page);
  // The editor renders spaces as no-break spaces and wraps long lines.
  const text = (await chatInputText(page)).replace(/\s+/g, ' ');
  // The pinned constitution leads the Rules layer of every build of the sample ledger.
  // A rule given whole is its heading (title and type) and its text: the title names it for the agent tools.
  assert.match(text, /^## Rules ### Never log card numbers or CVCs · constitution /);
  await screenshot(page, 'context-in-chat-input');
});

test('@ledger /search lists the matching artifacts with their URNs', { skip }, async () => {
  const { page } = s().wb;
  const answer = await askChat(page, '@ledger /search webhook', /\d+ match/);
  assert.match(answer, /Stripe retries webhooks for three days/);
  assert.match(answer, /ledger:\/\/artifact\/harbor-learn-1/);
  await screenshot(page, 'ledger-search');
});

test('@ledger /context shows the budget breakdown and the context itself', { skip }, async () => {
  const { page } = s().wb;
  const answer = await askChat(page, '@ledger /context', /Active paths/);
  assert.match(answer, /\d+ of [\d,]+ tokens \(\d+%/);
  assert.match(answer, /Never log card numbers or CVCs · constitution/);
  await screenshot(page, 'ledger-context');
});

test('@ledger /explain says whether and why an artifact is in the context', { skip }, async () => {
  const { page } = s().wb;
  const answer = await askChat(page, '@ledger /explain harbor-learn-1', /is (in|out of|not in) the context|is \*?\*?(in|out)/);
  assert.match(answer, /Stripe retries webhooks for three days/);
  // In: the reason and the score. Out: the reason it was left out (a weak match stays out however much room is left).
  assert.match(answer, /Why: \S|is \*?\*?out\*?\*? of the context: \S.*Score /s);
  await screenshot(page, 'ledger-explain');
});

test('@ledger /remember previews the artifact; saving it adds an unreviewed one to Needs Review', { skip }, async () => {
  const { page } = s().wb;
  const title = 'Refund webhooks arrive before the charge one — 順序';
  const answer = await askChat(page, `@ledger /remember learning: ${title}. Wait for the charge before refunding.`, /Save as learning/);
  assert.match(answer, /unreviewed/);
  await screenshot(page, 'ledger-remember');
  await page.locator('.interactive-item-container.interactive-response.chat-most-recent-response .monaco-button', { hasText: 'Save as learning' }).first().click();
  await waitForNotification(page, /saved learning .*\(unreviewed\)/);
  await openView(page, 'Needs Review');
  await waitForTreeItems(page, 'Needs Review', (items) => items.some((i) => i.label === title));
  await screenshot(page, 'ledger-remember-saved');
});

test('the model gets the ledger tools; a read tool call runs without asking', { skip }, async () => {
  const { page } = s().wb;
  const offered = await askChat(page, '@e2eagent list tools', /Tools offered:/);
  for (const tool of ['contextLedger_buildContext', 'contextLedger_searchArtifacts', 'contextLedger_createArtifact']) assert.match(offered, new RegExp(tool));
  const answer = await askChat(page, '@e2eagent call contextLedger_searchArtifacts {"query":"refund"}', /Tool contextLedger_searchArtifacts answered:/);
  assert.doesNotMatch(answer, /confirmation pending/);
  await screenshot(page, 'tool-read');
});

// Declining comes first: "Allow in this Session" (the button a person clicks below) stops the asking.
test('a declined write tool call writes nothing', { skip }, async () => {
  const { page } = s().wb;
  const title = 'Declined in the chat';
  await askChat(page, `@e2eagent call contextLedger_createArtifact ${JSON.stringify({ type: 'note', title, body: 'Never saved.' })}`, /confirmation pending/i);
  await waitForChatConfirmation(page, new RegExp(`Record a note in the Context Ledger\\?.*${title}`));
  await clickChatButton(page, 'Skip');
  await waitFor(async () => (await lastChatResponse(page))?.text ?? '', (text) => /did not run|Skipped|skipped/.test(text) || !/confirmation pending/i.test(text), 'the confirmation to close');
  await openView(page, 'Needs Review');
  const items = await waitForTreeItems(page, 'Needs Review', (all) => all.length > 0);
  assert.ok(!items.some((i) => i.label === title), `"${title}" must not be saved: ${JSON.stringify(items.map((i) => i.label))}`);
  await screenshot(page, 'tool-declined');
});

test('a write tool call shows its confirmation in the chat; allowed, it saves an unreviewed artifact', { skip }, async () => {
  const { page } = s().wb;
  const title = 'Refunds need the original charge id';
  const input = JSON.stringify({ type: 'learning', title, body: 'Look the charge up before refunding.' });
  await askChat(page, `@e2eagent call contextLedger_createArtifact ${input}`, /confirmation pending/i);
  const confirmation = await waitForChatConfirmation(page, /Record a learning in the Context Ledger\?/);
  assert.match(confirmation, new RegExp(`Title: ${title}`));
  assert.match(confirmation, /saved as unreviewed/);
  await screenshot(page, 'tool-confirmation');
  await clickChatButton(page, 'Allow');
  await waitFor(
    async () => (await lastChatResponse(page))?.text ?? '',
    (text) => /Tool contextLedger_createArtifact answered:/.test(text),
    'the model to report the tool result',
  );
  await openView(page, 'Needs Review');
  await waitForTreeItems(page, 'Needs Review', (items) => items.some((i) => i.label === title));
  await screenshot(page, 'tool-allowed');
});

test('the editor lists the ledger MCP server, running', { skip }, async () => {
  const { page } = s().wb;
  await runCommand(page, 'MCP: List Servers');
  const rows = await withFailureScreenshot(page, 'mcp-list', () =>
    waitFor(
      () => page.locator('.quick-input-widget .monaco-list-row').allInnerTexts(),
      (all) => all.some((r) => /Context Ledger/.test(r) && /Running/.test(r)),
      'Context Ledger (Running) in MCP: List Servers',
    ),
  );
  assert.ok(rows.length >= 1);
  await screenshot(page, 'mcp-servers');
  await page.keyboard.press('Escape');
});

test("the MCP server's tools reach the model, and a call through the chat answers from the ledger", { skip }, async () => {
  const { page } = s().wb;
  const offered = await askChat(page, '@e2eagent list tools', /Tools offered:/);
  // VS Code names an MCP tool mcp_<server>_<tool>; the server part is the label, shortened.
  const name = /mcp_[\w-]*_search_artifacts/.exec(offered)?.[0];
  assert.ok(name, `the MCP server's search_artifacts among the tools: ${offered}`);
  const first = await askChat(page, `@e2eagent call ${name} {"query":"refund"}`, /answered:|confirmation pending/i);
  if (/confirmation pending/i.test(first)) {
    // The editor asks before running a tool of an MCP server; the person allows it.
    await waitForChatConfirmation(page, /search_artifacts|Context Ledger/);
    await screenshot(page, 'mcp-tool-confirmation');
    await clickChatButton(page, 'Allow');
  }
  const answer = await waitFor(async () => (await lastChatResponse(page))?.text ?? '', (text) => /answered:/.test(text), `the answer of ${name}`);
  // The MCP server answers with structured results: the same ledger, including what the chat wrote above.
  // The structured answer: the text first (what a model reads), then the counts and results.
  assert.match(answer, new RegExp(`Tool ${name} answered: \\{"text":".*"total":\\d+`));
  assert.match(answer, /"urn":"ledger:\/\/artifact\/harbor-learn-1"/);
  assert.match(answer, /"title":"Refunds need the original charge id".*?"unreviewed":true/);
  await screenshot(page, 'mcp-tool-call');
});

test('the contributed instructions are in the editor, and auto-inject writes no file into the repository', { skip }, async () => {
  const { page } = s().wb;
  const file = path.join(s().workspace, '.github', 'instructions', 'context-ledger.instructions.md');
  // The live context was built (the meter shows it) and nothing was written.
  assert.equal(fs.existsSync(file), false, `${file} must not exist on a VS Code that reads contributed instructions`);
  await runCommand(page, 'Chat: Configure Instructions & Rules...', 20_000).catch(() => runCommand(page, 'Chat: Configure Instructions...', 20_000));
  await withFailureScreenshot(page, 'instructions-list', () =>
    waitFor(
      () => page.locator('.quick-input-widget .monaco-list-row').allInnerTexts(),
      (all) => all.some((r) => /context-ledger/i.test(r)),
      'the contributed context-ledger instructions in Configure Instructions',
    ),
  );
  await screenshot(page, 'instructions');
  await page.keyboard.press('Escape');
});
