/**
 * The ledger in Copilot CLI's loop: `context-ledger hooks install copilot-cli`, then the real
 * Copilot CLI in its own-model mode (COPILOT_OFFLINE, the OpenAI provider over the Responses API)
 * against a scripted model. Its `sessionStart`, `userPromptSubmitted` and `preToolUse` hooks
 * carry context (a top-level `additionalContext`): the prompt's into the first request, a file's
 * rules, before Copilot's `create` writes it, into the next. In `copilot -p` runs Copilot loads a
 * repository's hooks only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true or in a folder the
 * person trusted (docs/hooks.md); without it the run is checked to get nothing from the ledger.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type Workspace, commitAll, createWorkspace, requestText, runCopilot, startScriptedModel, ledgerCli, occurrences, PATIENT_HOOKS } from './harness';

const AGENTS_RULE = 'Run the type check before every commit (marker AGENTS-COPILOT-5501).';
const CLAUDE_RULE = 'Answer in British English (marker CLAUDE-COPILOT-5502).';
const DECISION = 'Refunds of cancelled bookings go back to the original card within 5 days (marker LEDGER-DECISION-5503).';
const SCOPED = 'Migrations are append-only: never edit a shipped one — ünïcode ✓ (marker CURSOR-MIGRATIONS-5504).';
const HEADER = 'Project knowledge from Context Ledger';
const REPO_HOOKS = { ...PATIENT_HOOKS, GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: 'true' };

function project(): Workspace {
  const ws = createWorkspace({
    git: true,
    files: {
      'AGENTS.md': `# Harbor\n\n## Checks\n\n${AGENTS_RULE}\n`,
      'CLAUDE.md': `# Style\n\n${CLAUDE_RULE}\n`,
      '.cursor/rules/migrations.mdc': `---\ndescription: Database migrations\nglobs: db/migrations/**\nalwaysApply: false\n---\n# Migrations\n\n${SCOPED}\n`,
      'db/migrations/0001_init.sql': 'CREATE TABLE booking (id int);\n',
    },
  });
  ledgerCli(ws, ['import-folder']);
  ledgerCli(ws, ['add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION]);
  commitAll(ws);
  const installed = ledgerCli(ws, ['hooks', 'install', 'copilot-cli']);
  assert.match(installed, /\.github\/hooks\/context-ledger\.json:\n {2}added sessionStart: .*\n {2}added userPromptSubmitted: .*\n {2}added preToolUse: .* hook pre-write --agent copilot-cli/);
  return ws;
}

interface LogEntry {
  agent: string;
  event: string;
  outcome: string;
  tokens?: number;
  detail?: string;
}

test('after hooks install copilot-cli, the prompt’s context reaches the first request and a file’s Cursor rule the request after Copilot writes it; AGENTS.md and CLAUDE.md once', async () => {
  const ws = project();
  const target = path.join(ws.dir, 'db', 'migrations', '0002_refunds.sql');
  const model = await startScriptedModel([{ tool: { name: 'create', input: { path: target, file_text: 'ALTER TABLE booking ADD refunded_at timestamptz;\n' } } }, { text: 'Added the migration.' }]);
  try {
    const run = await runCopilot({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', env: REPO_HOOKS });
    assert.equal(run.code, 0, `copilot failed: ${run.stderr}\n${run.stdout}`);
    assert.ok(fs.existsSync(target), 'Copilot wrote the file');
    const [first, second] = model.mainRequests().map(requestText);
    assert.ok(first !== undefined && second !== undefined, 'Copilot asked the model twice');
    assert.ok(first.includes(HEADER), `the ledger's hooks reached the model:\n${first.slice(0, 3000)}`);
    assert.ok(first.includes(DECISION), "the ledger's decision is in the first request");
    assert.equal(occurrences(first, SCOPED), 0, 'the migrations rule waits for a file under db/migrations/');
    assert.equal(occurrences(second, SCOPED), 1, 'before Copilot writes the migration, its rule, once');
    for (const request of [first, second]) {
      assert.equal(occurrences(request, AGENTS_RULE), 1, 'AGENTS.md once: Copilot loads it, the ledger does not repeat it');
      assert.equal(occurrences(request, CLAUDE_RULE), 1, 'CLAUDE.md once: Copilot loads it too');
      assert.equal(occurrences(request, DECISION), 1, 'what the session received is not given again');
    }
    const log = (JSON.parse(ledgerCli(ws, ['hook', '--last', '30', '--format', 'json'])) as { entries: LogEntry[] }).entries.filter((e) => e.agent === 'copilot-cli');
    assert.ok(log.some((e) => e.event === 'prompt' && e.outcome === 'added'), JSON.stringify(log));
    assert.ok(log.some((e) => e.event === 'pre-write' && e.outcome === 'added'), JSON.stringify(log));
    for (const e of log) assert.ok((e.tokens ?? 0) <= 2000, 'each answer within its event’s budget');
  } finally {
    await model.close();
    ws.dispose();
  }
});

test('a corrupt ledger never fails Copilot’s run; without repository hooks enabled Copilot runs none and its own loading is untouched', async () => {
  const ws = project();
  fs.writeFileSync(path.join(ws.dir, '.context-ledger', 'ledger.db'), 'not a database at all');
  const model = await startScriptedModel([{ text: 'ok' }, { text: 'ok' }]);
  try {
    const corrupt = await runCopilot({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', env: REPO_HOOKS });
    assert.equal(corrupt.code, 0, `copilot failed: ${corrupt.stderr}`);
    const off = await runCopilot({ workspace: ws, baseUrl: model.url, prompt: 'Refund cancelled bookings to the card', env: PATIENT_HOOKS });
    assert.equal(off.code, 0, `copilot failed: ${off.stderr}`);
    const [withHooks, withoutHooks] = model.mainRequests().map(requestText);
    assert.ok(withHooks !== undefined && withoutHooks !== undefined);
    assert.ok(withHooks.includes(DECISION), 'the knowledge rebuilt from the artifact files');
    assert.ok(!withoutHooks.includes(HEADER), 'repository hooks off in -p mode: the ledger adds nothing');
    assert.ok(withoutHooks.includes(AGENTS_RULE), 'Copilot’s own loading is untouched');
  } finally {
    await model.close();
    ws.dispose();
  }
});
