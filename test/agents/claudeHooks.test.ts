/**
 * The ledger in Claude Code's loop, end to end: `context-ledger hooks install claude-code`
 * in a real project, then the real Claude Code binary against a scripted model, and what the
 * model received asserted request by request. No part is mocked: the hooks run the built CLI
 * (dist/cli.js) exactly as the installed settings name it.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type Workspace, commitAll, createWorkspace, requestText, runClaude, startScriptedModel, ledgerCli, occurrences, PATIENT_HOOKS } from './harness';

const CLAUDE_RULE = 'Run the type check before every commit (marker CLAUDE-ROOT-7731).';
const CURSOR_RULE = 'Every refund call passes an idempotency key built from the booking id (marker CURSOR-PAY-4410).';
const COPILOT_RULE = 'Handlers log the request id with every line they write (marker COPILOT-API-9902).';
const DECISION = 'Refunds of cancelled bookings go back to the original card within 5 days (marker LEDGER-DECISION-5521).';
const HEADER = 'Project knowledge from Context Ledger';
/** Claude Code hands the model at most this many characters of one hook's additionalContext (NOTES.md). */
const CLAUDE_CONTEXT_LIMIT = 10_000;


/** A project with a CLAUDE.md, a Cursor rule and a Copilot rule Claude Code never loads, and a decision only the ledger holds. */
function project(): Workspace {
  const ws = createWorkspace({
    git: true,
    files: {
      'CLAUDE.md': `# Harbor\n\n## Checks\n\n${CLAUDE_RULE}\n`,
      '.cursor/rules/payments.mdc': `---\ndescription: Payments code\nglobs: src/payments/**\nalwaysApply: false\n---\n# Payments\n\n${CURSOR_RULE}\n`,
      '.github/instructions/api.instructions.md': `---\napplyTo: "src/api/**"\n---\n# API handlers\n\n${COPILOT_RULE}\n`,
      'src/app.ts': 'export {};\n',
    },
  });
  ledgerCli(ws, ['import-folder']);
  ledgerCli(ws, ['add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION]);
  commitAll(ws);
  const installed = ledgerCli(ws, ['hooks', 'install', 'claude-code']);
  assert.match(installed, /added UserPromptSubmit/);
  return ws;
}

function hookLog(ws: Workspace): Array<{ event: string; outcome: string; tokens?: number; chars?: number; detail?: string }> {
  return (JSON.parse(ledgerCli(ws, ['hook', '--last', '50', '--format', 'json'])) as { entries: Array<{ event: string; outcome: string; tokens?: number; chars?: number; detail?: string }> }).entries;
}



/** The hook answers in a request: each `additionalContext` Claude Code put in, by its header. */
function ledgerBlocks(text: string): string[] {
  return text.split(HEADER).slice(1).map((rest) => HEADER + rest.split('\n\n\n')[0]);
}

test('after hooks install, Claude Code gets the ledger context for the prompt, then the scoped rule of the file it writes, nothing twice, within budget', async () => {
  const ws = project();
  const target = path.join(ws.dir, 'src', 'api', 'refunds.ts');
  const model = await startScriptedModel([{ write: { file_path: target, content: 'export const refund = 1;\n' } }, { text: 'Added the refund.' }]);
  try {
    const run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Refund the deposit when a booking is cancelled', env: PATIENT_HOOKS });
    assert.equal(run.code, 0, `claude failed: ${run.stderr}`);
    assert.match(run.stdout, /Added the refund\./);
    const [first, second] = model.mainRequests().map(requestText);
    assert.ok(first !== undefined && second !== undefined, 'two main-loop requests');

    assert.ok(first.includes(DECISION), "the ledger's decision for the prompt is in the first request");
    assert.equal(occurrences(first, COPILOT_RULE), 0, 'the API rule waits for a file under src/api/');
    assert.ok(second.includes(COPILOT_RULE), "after the Write of src/api/refunds.ts, the Copilot rule Claude Code never loads is in the next request");
    assert.equal(occurrences(second, COPILOT_RULE), 1);
    for (const request of [first, second]) {
      assert.equal(occurrences(request, CLAUDE_RULE), 1, 'CLAUDE.md reaches the model once: Claude Code loads it, the ledger leaves it out');
      assert.equal(occurrences(request, DECISION), 1, 'what the session received is not given again');
    }
    assert.equal(fs.readFileSync(target, 'utf8'), 'export const refund = 1;\n', 'the write was carried out (the hook decided nothing)');

    const log = hookLog(ws);
    const added = log.filter((e) => e.outcome === 'added');
    assert.deepEqual([...new Set(log.map((e) => e.event))].sort(), ['pre-write', 'prompt', 'session-start']);
    const budgets: Record<string, number> = { 'session-start': 1500, prompt: 2000, 'pre-write': 800 };
    for (const e of added) {
      assert.ok((e.tokens ?? Infinity) <= budgets[e.event]!, `${e.event} added ${e.tokens} tokens, within its budget`);
      assert.ok((e.chars ?? Infinity) <= CLAUDE_CONTEXT_LIMIT, `${e.event} answer fits Claude Code's limit`);
    }
    for (const block of ledgerBlocks(second)) assert.ok(block.length <= CLAUDE_CONTEXT_LIMIT);
    assert.ok(!second.includes('Output too large'), 'no hook answer was cut by Claude Code');
  } finally {
    await model.close();
    ws.dispose();
  }
});

test('Claude Code runs on when the ledger is corrupt (rebuilt from the files), locked, or too slow to answer; the hook log says why', async () => {
  const ws = project();
  const db = path.join(ws.dir, '.context-ledger', 'ledger.db');
  const model = await startScriptedModel([{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }]);
  try {
    // Corrupt: the database is only the index, so the hook moves it aside, rebuilds it from the
    // artifact files and answers; the agent runs on with the ledger's context (issue 42).
    fs.writeFileSync(db, 'this is not a SQLite database');
    let run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Refund the deposit when a booking is cancelled' });
    assert.equal(run.code, 0, `claude failed with a corrupt ledger: ${run.stderr}`);
    assert.match(run.stdout, /One\./);
    assert.ok(requestText(model.mainRequests()[0]!).includes(HEADER), 'the context, rebuilt from the files, reached the model');
    assert.ok(fs.readdirSync(path.dirname(db)).some((name) => name.startsWith('ledger.db.corrupt-')), 'the corrupt database is kept aside, not deleted');

    // Locked by another writer: hooks only read, so the agent still gets its context.
    fs.writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
    run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Refund the deposit when a booking is cancelled' });
    assert.equal(run.code, 0, `claude failed with a locked ledger: ${run.stderr}`);
    assert.match(run.stdout, /Two\./);
    fs.rmSync(`${db}.lock`);

    // Too slow: a 1 ms bound stands in for a build that takes too long. Nothing reaches the model, the run goes on.
    const before = model.mainRequests().length;
    run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Refund the deposit when a booking is cancelled', env: { CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '1' } });
    assert.equal(run.code, 0, `claude failed with a slow hook: ${run.stderr}`);
    assert.match(run.stdout, /Three\./);
    const last = requestText(model.mainRequests()[before]!);
    assert.ok(!last.includes(HEADER), 'a hook past its bound adds nothing');
    assert.ok(hookLog(ws).some((e) => e.outcome === 'timeout'), 'the log says the hook ran out of time');
  } finally {
    await model.close();
    ws.dispose();
  }
});
