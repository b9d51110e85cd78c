/**
 * The ledger in Gemini CLI's loop: `context-ledger hooks install gemini-cli`, then the real
 * Gemini CLI against a scripted model. Its SessionStart and BeforeAgent hooks carry context
 * into the request; its BeforeTool cannot, so a written file's rules come with AfterTool, on
 * the write's result (docs/hooks.md).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLI_PATH, type Workspace, commitAll, createWorkspace, requestText, runGemini, startScriptedModel } from './harness';

const NATIVE = 'Keep functions under forty lines (marker GEMINI-NATIVE-3141).';
const DECISION = 'Refunds of cancelled bookings go back to the original card (marker LEDGER-DECISION-2718).';
const SCOPED = 'Migrations are append-only: never edit a shipped one (marker CURSOR-MIGRATIONS-1618).';

function cli(ws: Workspace, args: string[]): string {
  const r = spawnSync(process.execPath, [CLI_PATH, ...args], { cwd: ws.dir, encoding: 'utf8', env: { ...process.env, HOME: ws.home } });
  assert.equal(r.status, 0, `context-ledger ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** The hook's own 4 s bound is tested apart; here a loaded test machine must not turn a slow answer into none. */
const PATIENT = { CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '30000' };

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

test('after hooks install gemini-cli, the prompt’s context reaches the first request and a written file’s Cursor rule the next, GEMINI.md once', async () => {
  const ws = createWorkspace({
    git: true,
    files: {
      'GEMINI.md': `# Rules\n\n${NATIVE}\n`,
      '.cursor/rules/migrations.mdc': `---\ndescription: Database migrations\nglobs: db/migrations/**\nalwaysApply: false\n---\n# Migrations\n\n${SCOPED}\n`,
      'src/app.ts': 'export {};\n',
    },
  });
  cli(ws, ['import-folder']);
  cli(ws, ['add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION]);
  commitAll(ws);
  assert.match(cli(ws, ['hooks', 'install', 'gemini-cli']), /added AfterTool \(write_file\|replace\)/);
  const target = path.join(ws.dir, 'db', 'migrations', '0002_refunds.sql');
  const model = await startScriptedModel([{ write: { file_path: target, content: 'ALTER TABLE booking ADD refunded_at timestamptz;\n' } }, { text: 'Added the migration.' }]);
  try {
    const run = await runGemini({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', env: PATIENT });
    assert.equal(run.code, 0, `gemini failed: ${run.stderr}`);
    const [first, second] = model.mainRequests().map(requestText);
    assert.ok(first !== undefined && second !== undefined);
    assert.ok(first.includes(DECISION), "the ledger's decision is in the first request");
    assert.equal(count(first, SCOPED), 0, 'the migrations rule waits for a file under db/migrations/');
    assert.equal(count(second, SCOPED), 1, 'after the write, the Cursor rule Gemini CLI never loads arrives once');
    for (const request of [first, second]) assert.equal(count(request, NATIVE), 1, 'GEMINI.md once: Gemini loads it, the ledger does not repeat it');
  } finally {
    await model.close();
    ws.dispose();
  }
});
