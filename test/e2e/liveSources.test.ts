/**
 * Live sources in a real code-server: with `contextLedger.sources.enabled`, opening a
 * TypeScript file with a type error puts that error (from the editor's own diagnostics)
 * and the file itself into "Build agent context"; a command that fails in the integrated
 * terminal puts its error there too (the logs source, through shell integration).
 * Screenshots in test-output/e2e/sources/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extensionLogLines, openFile, readClipboard, runCli, runCommand, screenshot, startExtensionSession, waitFor } from './harness';
import type { ExtensionSession, Workbench } from './harness';

let session: ExtensionSession | undefined;
let wb: Workbench | undefined;

before(async () => {
  session = await startExtensionSession(
    'sources',
    { 'contextLedger.budget': 6000, 'contextLedger.sources.enabled': true, 'contextLedger.autoInject.enabled': false },
    {
      prepare: ({ workspace, db }) => {
        fs.writeFileSync(
          path.join(workspace, 'src', 'payments', 'refunds.ts'),
          "export function refundAmount(cents: number): number {\n  const reason: number = 'duplicate webhook';\n  return cents - reason;\n}\n",
        );
        // A bug-fix task: the profile under which what just failed matters most.
        runCli(['task', 'add', '--title', 'Fix the crash when a refund webhook is retried', '--label', 'bug', '--activate', '--db', db]);
      },
    },
  );
  wb = session.wb;
});

after(async () => {
  await session?.close();
});

test('a type error in the open file reaches "Build agent context", with the file', async () => {
  const page = wb!.page;
  await openFile(page, 'src/payments/refunds.ts');
  // The TypeScript server needs a moment to report: build again until the problem is in.
  const text = await waitFor(
    async () => {
      await runCommand(page, 'Context Ledger: Build agent context');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return readClipboard(page);
    },
    (t) => /Problems in src\/payments\/refunds\.ts/.test(t),
    'the diagnostic in the built context',
    120_000,
  );
  await screenshot(page, '01-built-with-diagnostic');
  assert.match(text, /## Problems the editor reports/);
  assert.match(text, /- error at 2:9 \[ts 2322\]: Type 'string' is not assignable to type 'number'\./);
  assert.match(text, /## Code in play\n\n### src\/payments\/refunds\.ts/);
  assert.match(text, /^## (?:Rules|Pinned|Project knowledge|Knowledge for the files in play)$/m, 'the ledger knowledge is still there');
});

test('a command that fails in the integrated terminal reaches the next "Build agent context" with its error', async () => {
  const page = wb!.page;
  await runCommand(page, 'Terminal: Create New Terminal');
  const terminal = page.locator('.terminal-wrapper.active .xterm, .terminal .xterm').first();
  await terminal.waitFor({ state: 'visible', timeout: 60_000 });
  // The shell's integration script must have run before the command, or VS Code cannot see it end.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  await terminal.click();
  await page.keyboard.type(`node -e "throw new Error('refund webhook retried twice: ledger-e2e-marker')"`);
  await page.keyboard.press('Enter');
  await screenshot(page, '02-failed-command');
  const text = await waitFor(
    async () => {
      await runCommand(page, 'Context Ledger: Build agent context');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return readClipboard(page);
    },
    (t) => /ledger-e2e-marker/.test(t),
    'the failed command in the built context',
    90_000,
  ).catch((err: unknown) => {
    throw new Error(`${String(err).slice(0, 300)}\nextension log:\n${extensionLogLines(session!.userDataDir).slice(-30).join('\n')}`);
  });
  await screenshot(page, '03-built-with-failed-command');
  assert.match(text, /## What just failed \(logs\)/);
  assert.match(text, /### Failed command: node -e .*\(exit 1\)/);
  assert.match(text, /Error: refund webhook retried twice: ledger-e2e-marker\n\s+at /, 'the error with its stack trace');
});
