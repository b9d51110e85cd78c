/**
 * One hook answer in process, as the hook server builds it on the ledger it keeps open: the
 * answer a hook that opens the ledger itself gives, within the agent's character limit,
 * and the session's read without refresh (the server's, when its watch saw nothing change).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runHookJob, type HookJob, type LedgerReader } from '../../../src/cli/hookRun';
import { CONTEXT_CHAR_LIMIT } from '../../../src/core/hooks/agents';
import { LedgerSession } from '../../../src/node/session';
import { cli, tempDir } from '../helpers';

const WORDS = 'webhook retry queue timeout payment handler lock worker backoff idempotency ledger charge refund card settlement'.split(' ');

/** A workspace whose knowledge on the prompt is far more than one answer can carry (its 2,000 tokens run past 10,000 characters). */
function workspace(): string {
  const dir = path.join(tempDir('ledger-hook-answer-'), 'project');
  fs.mkdirSync(dir, { recursive: true });
  assert.equal(cli(['init'], { cwd: dir }).code, 0);
  const lines = Array.from({ length: 80 }, (_, i) => {
    const body = Array.from({ length: 120 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ');
    return JSON.stringify({ id: `note-${i}`, type: 'decision', title: `Webhook retry queue decision ${i} — Zahlungen ✓`, body: `${body}.\n\n- ${body.slice(0, 200)}.`, tags: ['webhook'] });
  });
  fs.writeFileSync(path.join(dir, 'notes.jsonl'), `${lines.join('\n')}\n`);
  const imported = cli(['import', 'notes.jsonl'], { cwd: dir });
  assert.equal(imported.code, 0, imported.stderr);
  return dir;
}

function job(dir: string, session: string): HookJob {
  return { agent: 'claude-code', event: 'prompt', payload: { sessionId: session, cwd: dir, prompt: 'Fix the webhook retry queue timeout under load' }, cwd: dir, showCommand: 'context-ledger' };
}

test('answers built on a ledger kept open give what a hook opening it afresh gives, each within the agent’s limit', async () => {
  const dir = workspace();
  const fresh = await runHookJob(job(dir, 'fresh'));
  assert.equal(fresh.entry.outcome, 'added');
  const session = await LedgerSession.open({ cwd: dir });
  try {
    const kept: LedgerReader = (_context, fn) => session.read(fn);
    // The first answer on the kept ledger learns its density; the next ones start from it.
    const answers = [];
    for (const id of ['kept-1', 'kept-2', 'kept-3']) answers.push(await runHookJob(job(dir, id), kept));
    for (const answer of answers) {
      // The kept ledger starts at the budget its last answer says fits: the same knowledge first, about as much of it.
      assert.deepEqual(answer.entry.items?.slice(0, 5), fresh.entry.items?.slice(0, 5));
      assert.ok((answer.entry.tokens ?? 0) >= 0.9 * (fresh.entry.tokens ?? 0), `${answer.entry.tokens} tokens against ${fresh.entry.tokens}`);
      const text = (JSON.parse(answer.output) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      assert.ok(text.length <= CONTEXT_CHAR_LIMIT['claude-code'], `${text.length} characters`);
      assert.ok(text.includes('Zahlungen ✓'));
    }
  } finally {
    session.close();
  }
});

test('a read without refresh gives the index as the last refresh left it; a refresh then reads the changed file in', async () => {
  const dir = workspace();
  const session = await LedgerSession.open({ cwd: dir });
  try {
    const title = (): Promise<string | undefined> => session.readAsIs((store) => store.latestOfChain('note-3')?.title);
    assert.equal(await session.read((store) => store.latestOfChain('note-3')?.title), 'Webhook retry queue decision 3 — Zahlungen ✓');
    const folder = path.join(dir, '.context-ledger', 'artifacts');
    const file = fs.readdirSync(folder, { recursive: true }).map(String).find((f) => f.endsWith('.md') && fs.readFileSync(path.join(folder, f), 'utf8').includes('decision 3 —'));
    assert.ok(file, 'the artifact file of note-3');
    const abs = path.join(folder, file);
    fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace('Webhook retry queue decision 3 — Zahlungen ✓', 'Renamed by a teammate — 名前'));
    assert.equal(await title(), 'Webhook retry queue decision 3 — Zahlungen ✓', 'not read in without a refresh');
    assert.equal(await session.refresh(), true);
    assert.equal(await title(), 'Renamed by a teammate — 名前');
  } finally {
    session.close();
  }
});

/** The database and its delta, as sizes: what a save changes. */
function savedSizes(dir: string): string {
  const db = path.join(dir, '.context-ledger', 'ledger.db');
  return [db, `${db}.delta`].map((f) => fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0).join(' + ');
}

test('a hook that opens the ledger itself keeps the token counts its build made: the next one finds them, writes nothing and answers the same', async () => {
  const dir = workspace();
  const before = savedSizes(dir);
  const first = await runHookJob(job(dir, 'cold-1'));
  assert.equal(first.entry.outcome, 'added');
  const kept = savedSizes(dir);
  assert.notEqual(kept, before, 'the counts of what the answer rendered are saved with the index');
  const second = await runHookJob(job(dir, 'cold-2'));
  assert.equal(savedSizes(dir), kept, 'nothing left to count: nothing written');
  assert.equal(second.output, first.output);
});

test('a hook never waits on a writer to keep its counts: with the ledger locked it answers and writes nothing', async () => {
  const dir = workspace();
  const lock = path.join(dir, '.context-ledger', 'ledger.db.lock');
  // A live writer's lock (this process, now): not stale, so it is not taken over.
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at: new Date().toISOString(), token: 'another-writer' }));
  const before = savedSizes(dir);
  const answer = await runHookJob(job(dir, 'locked'));
  assert.equal(answer.entry.outcome, 'added');
  assert.equal(savedSizes(dir), before);
  assert.equal(fs.readFileSync(lock, 'utf8').includes('another-writer'), true, 'the writer keeps its lock');
});
