/**
 * The ledger in Gemini CLI's loop: `context-ledger hooks install gemini-cli`, then the real
 * Gemini CLI against a scripted model. Its SessionStart and BeforeAgent hooks carry context
 * into the request; its BeforeTool cannot, so a written file's rules come with AfterTool, on
 * the write's result (docs/hooks.md).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { commitAll, createWorkspace, requestText, runGemini, startScriptedModel, ledgerCli, occurrences, PATIENT_HOOKS } from './harness';

const NATIVE = 'Keep functions under forty lines (marker GEMINI-NATIVE-3141).';
const DECISION = 'Refunds of cancelled bookings go back to the original card (marker LEDGER-DECISION-2718).';
const SCOPED = 'Migrations are append-only: never edit a shipped one (marker CURSOR-MIGRATIONS-1618).';




test('after hooks install gemini-cli, the prompt’s context reaches the first request and a written file’s Cursor rule the next, GEMINI.md once', async () => {
  const ws = createWorkspace({
    git: true,
    files: {
      'GEMINI.md': `# Rules\n\n${NATIVE}\n`,
      '.cursor/rules/migrations.mdc': `---\ndescription: Database migrations\nglobs: db/migrations/**\nalwaysApply: false\n---\n# Migrations\n\n${SCOPED}\n`,
      'src/app.ts': 'export {};\n',
    },
  });
  ledgerCli(ws, ['import-folder']);
  ledgerCli(ws, ['add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION]);
  commitAll(ws);
  assert.match(ledgerCli(ws, ['hooks', 'install', 'gemini-cli']), /added AfterTool \(write_file\|replace\)/);
  const target = path.join(ws.dir, 'db', 'migrations', '0002_refunds.sql');
  const model = await startScriptedModel([{ write: { file_path: target, content: 'ALTER TABLE booking ADD refunded_at timestamptz;\n' } }, { text: 'Added the migration.' }]);
  try {
    const run = await runGemini({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', env: PATIENT_HOOKS });
    assert.equal(run.code, 0, `gemini failed: ${run.stderr}`);
    const [first, second] = model.mainRequests().map(requestText);
    assert.ok(first !== undefined && second !== undefined);
    assert.ok(first.includes(DECISION), "the ledger's decision is in the first request");
    assert.equal(occurrences(first, SCOPED), 0, 'the migrations rule waits for a file under db/migrations/');
    assert.equal(occurrences(second, SCOPED), 1, 'after the write, the Cursor rule Gemini CLI never loads arrives once');
    for (const request of [first, second]) assert.equal(occurrences(request, NATIVE), 1, 'GEMINI.md once: Gemini loads it, the ledger does not repeat it');
  } finally {
    await model.close();
    ws.dispose();
  }
});
