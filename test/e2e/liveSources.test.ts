/**
 * Live sources in a real code-server: with `contextLedger.sources.enabled`, opening a
 * TypeScript file with a type error puts that error (from the editor's own diagnostics)
 * and the file itself into "Build agent context". Screenshots in test-output/e2e/sources/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openFile, readClipboard, runCommand, screenshot, startExtensionSession, waitFor } from './harness';
import type { ExtensionSession, Workbench } from './harness';

let session: ExtensionSession | undefined;
let wb: Workbench | undefined;

before(async () => {
  session = await startExtensionSession(
    'sources',
    { 'contextLedger.budget': 6000, 'contextLedger.sources.enabled': true, 'contextLedger.autoInject.enabled': false },
    {
      prepare: ({ workspace }) =>
        fs.writeFileSync(
          path.join(workspace, 'src', 'payments', 'refunds.ts'),
          "export function refundAmount(cents: number): number {\n  const reason: number = 'duplicate webhook';\n  return cents - reason;\n}\n",
        ),
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
  assert.match(text, /ledger:\/\/artifact\//, 'the ledger knowledge is still there');
});
