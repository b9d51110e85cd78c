/**
 * The manifest and the running extension agree, as the real VS Code sees them: every command
 * package.json contributes is registered once the extension is active (a contributed command
 * nobody registers fails with "command not found" when clicked), every `contextLedger.*`
 * command it registers is contributed or one the extension runs itself, and every view it
 * contributes has its data provider (else the view says "There is no data provider
 * registered"). A test-only probe extension (test/e2e/fixtures/registrations-probe) reads
 * VS Code's command registry. Runs on both builds.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openView, readClipboard, REPO_ROOT, runCommand, screenshot, startExtensionSession, viewPane, waitFor, withFailureScreenshot } from './harness';
import type { ExtensionSession } from './harness';
import { INTERNAL_COMMAND_IDS } from '../../src/extension/commands/tableIds';

const PROBE = path.join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'registrations-probe');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[]; views: Record<string, { id: string; name: string }[]> };
};
/** Commands VS Code itself adds for each contributed view (`<view id>.focus`, `.resetViewLocation`, ...) and view container. */
const WORKBENCH_MADE = /^contextLedger\.(artifacts|task|files|review)\.|^workbench\.view\.extension\.contextLedger/;

let session: ExtensionSession | undefined;

before(async () => {
  session = await startExtensionSession('registrations', {}, { unpacked: [PROBE] });
});

after(async () => {
  await session?.close();
});

function s(): ExtensionSession {
  assert.ok(session, 'the session did not start');
  return session;
}

test('every contributed command is registered, and every registered one is contributed or internal', async () => {
  const { page } = s().wb;
  await runCommand(page, 'E2E Probe: Copy Context Ledger Registrations');
  const raw = await waitFor(() => readClipboard(page), (text) => text.startsWith('{"active"'), 'the registrations on the clipboard');
  const { active, commands } = JSON.parse(raw) as { active: boolean; commands: string[] };
  assert.ok(active, 'Context Ledger is active');
  const registered = new Set(commands);
  const contributed = manifest.contributes.commands.map((c) => c.command);
  const missing = contributed.filter((id) => !registered.has(id));
  assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  const extra = commands.filter((id) => !contributed.includes(id) && !INTERNAL_COMMAND_IDS.includes(id) && !WORKBENCH_MADE.test(id));
  assert.deepEqual(extra, [], `registered but not contributed: ${extra.join(', ')}`);
});

test('every contributed view has its data provider', async () => {
  const { page } = s().wb;
  for (const view of manifest.contributes.views.contextLedger ?? []) {
    await openView(page, view.name);
    const pane = viewPane(page, view.name);
    await withFailureScreenshot(page, `view-${view.id}`, async () => {
      // A tree with a provider renders rows or its welcome content; one without says so.
      const text = await waitFor(() => pane.innerText(), (t) => t.split('\n').length > 1, `the view ${view.name} to render`);
      assert.doesNotMatch(text, /no data provider registered/i, `${view.name} (${view.id})`);
    });
  }
  await screenshot(page, 'views');
});
