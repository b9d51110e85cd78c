/**
 * The ledger in Codex's loop: `context-ledger hooks install codex`, then the real Codex binary
 * against a scripted model. Codex runs a project's hooks only in a trusted project, and each
 * hook only once a person has reviewed it in its /hooks view (a terminal UI): here the test's
 * own CODEX_HOME trusts the project, and `--dangerously-bypass-hook-trust` stands in for that
 * review for this one run (Codex's flag for automation that vetted its hooks; docs/hooks.md).
 * Without it, the run is checked to get nothing from the ledger: what a user sees before they
 * approve the hooks.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type Workspace, commitAll, createWorkspace, requestText, runCodex, startScriptedModel, ledgerCli, occurrences, PATIENT_HOOKS } from './harness';

const AGENTS_RULE = 'Run the type check before every commit (marker AGENTS-ROOT-6113).';
const CURSOR_RULE = 'Every refund call passes an idempotency key built from the booking id (marker CURSOR-PAY-8120).';
const DECISION = 'Refunds of cancelled bookings go back to the original card within 5 days (marker LEDGER-DECISION-4471).';
const HEADER = 'Project knowledge from Context Ledger';




/** A project Codex trusts (as `codex exec --trust` records it), with the ledger's hooks installed. */
function project(): Workspace {
  const ws = createWorkspace({
    git: true,
    files: {
      'AGENTS.md': `# Harbor\n\n## Checks\n\n${AGENTS_RULE}\n`,
      '.cursor/rules/refunds.mdc': `---\ndescription: Refund code\nalwaysApply: true\n---\n# Refunds\n\n${CURSOR_RULE}\n`,
      'src/app.ts': 'export {};\n',
    },
  });
  ledgerCli(ws, ['import-folder']);
  ledgerCli(ws, ['add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION]);
  commitAll(ws);
  const installed = ledgerCli(ws, ['hooks', 'install', 'codex']);
  assert.match(installed, /\.codex\/hooks\.json:\n {2}added SessionStart: .* hook session-start --agent codex\n {2}added UserPromptSubmit: .* hook prompt --agent codex/);
  assert.match(installed, /trust this project .* \/hooks/, 'the person is told what Codex still asks of them');
  const codexHome = path.join(ws.home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'config.toml'), `[projects.${JSON.stringify(fs.realpathSync(ws.dir))}]\ntrust_level = "trusted"\n`);
  return ws;
}

test('after hooks install codex (and the hooks approved), the first request holds the ledger’s context for the prompt; AGENTS.md only once', async () => {
  const ws = project();
  const model = await startScriptedModel([{ text: 'Refunds now go back to the card.' }]);
  try {
    const run = await runCodex({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', args: ['--dangerously-bypass-hook-trust'], env: PATIENT_HOOKS });
    assert.equal(run.code, 0, `codex failed: ${run.stderr}`);
    const [first] = model.mainRequests().map(requestText);
    assert.ok(first !== undefined, 'Codex asked the model');
    assert.ok(first.includes(HEADER), `the ledger's hooks reached the model:\n${first.slice(0, 3000)}`);
    assert.ok(first.includes(DECISION), "the ledger's decision is in the first request");
    assert.equal(occurrences(first, CURSOR_RULE), 1, 'the Cursor rule Codex never loads arrives, once');
    assert.equal(occurrences(first, AGENTS_RULE), 1, 'AGENTS.md once: Codex loads it, the ledger does not repeat it');
    const log = (JSON.parse(ledgerCli(ws, ['hook', '--last', '20', '--format', 'json'])) as { entries: Array<{ agent: string; event: string; outcome: string; tokens?: number }> }).entries.filter((e) => e.agent === 'codex');
    assert.ok(log.some((e) => e.event === 'prompt' && e.outcome === 'added'), JSON.stringify(log));
    for (const e of log) assert.ok((e.tokens ?? 0) <= 2000, 'each answer within its event’s budget');
  } finally {
    await model.close();
    ws.dispose();
  }
});

test('until the person approves the hooks, Codex skips them: the run succeeds without the ledger’s context', async () => {
  const ws = project();
  const model = await startScriptedModel([{ text: 'ok' }]);
  try {
    const run = await runCodex({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', env: PATIENT_HOOKS });
    assert.equal(run.code, 0, `codex failed: ${run.stderr}`);
    const [first] = model.mainRequests().map(requestText);
    assert.ok(first !== undefined);
    assert.ok(!first.includes(HEADER), 'an unreviewed hook does not run');
    assert.ok(first.includes(AGENTS_RULE), 'Codex’s own loading is untouched');
  } finally {
    await model.close();
    ws.dispose();
  }
});
