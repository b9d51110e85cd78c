import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext } from '../../src/core/assemble';
import { contentHash } from '../../src/core/tokens';
import { LedgerFile } from '../../src/node/ledgerFile';
import { cli, tempDir } from './helpers';

const TASK = ['--task-title', 'Fix the webhook retry queue timeout', '--path', 'src/queue/worker.ts'];

/** A ledger file with a few artifacts, written whole (no journal yet). */
async function created(): Promise<string> {
  const file = path.join(tempDir(), 'ledger.db');
  const ledger = await LedgerFile.open(file, { create: true });
  await ledger.write((store) => {
    for (let i = 0; i < 12; i++) {
      store.createArtifact({ id: `n-${i}`, type: 'learning', title: `Webhook retry queue note ${i} — 数据 🚀`, body: `The retry queue ${i} times out. ${'Lock it. '.repeat(i * 5)}` });
    }
  });
  ledger.close();
  return file;
}

/**
 * The same after one logged build: that build kept the bodies' term vectors, which
 * writes the database whole; builds after it only add to the journal.
 */
async function seeded(): Promise<{ file: string; warm: number }> {
  const file = await created();
  const { logId } = build(file);
  assert.equal(fs.existsSync(`${file}.journal`), false);
  return { file, warm: logId };
}

function build(file: string): { logId: number; items: Array<{ id: string }>; text: string } {
  const run = cli(['explain', '--db', file, '--format', 'json', '--now', '2026-06-01T00:00:00Z', ...TASK]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as { logId: number; items: Array<{ id: string }>; text: string };
}

async function logIds(file: string): Promise<number[]> {
  const ledger = await LedgerFile.open(file);
  try {
    return ledger.store.recentAssemblies(100).map((row) => row.id).reverse();
  } finally {
    ledger.close();
  }
}

describe('the build journal', () => {
  test('a logged CLI build leaves the database file alone; its log row and injection counts are there for every reader', async () => {
    const { file, warm } = await seeded();
    const before = fs.readFileSync(file);
    const first = build(file);
    const second = build(file);
    assert.deepEqual(fs.readFileSync(file), before, 'the database file was not rewritten');
    assert.ok(fs.existsSync(`${file}.journal`));
    assert.deepEqual(await logIds(file), [warm, first.logId, second.logId]);
    const ledger = await LedgerFile.open(file);
    const shown = first.items[0]!.id;
    assert.equal(ledger.store.feedbackFor(shown).timesInjected, 3);
    assert.equal(ledger.store.getTokenCount(contentHash(first.text), 'o200k_base') !== undefined, true, 'the counts it made are kept too');
    assert.equal(ledger.store.recentAssemblies(1)[0]!.trigger, 'cli-explain');
    ledger.close();
  });

  test('the next full write merges the journal into the database and removes it', async () => {
    const { file, warm } = await seeded();
    const { logId } = build(file);
    const added = cli(['add', '--db', file, '--type', 'note', '--title', 'One more', '--body', 'x']);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(fs.existsSync(`${file}.journal`), false);
    assert.deepEqual(await logIds(file), [warm, logId]);
    assert.equal(build(file).logId, logId + 1);
  });

  test('a record cut short by a crash is skipped: the records before it and the next ones count', async () => {
    const { file, warm } = await seeded();
    const first = build(file);
    fs.appendFileSync(`${file}.journal`, '{"records":[{"op":"log","entry":{"at":"2026-');
    assert.deepEqual(await logIds(file), [warm, first.logId]);
    const next = build(file);
    assert.deepEqual(await logIds(file), [warm, first.logId, next.logId]);
    // Damaged but complete lines are skipped the same way.
    fs.appendFileSync(`${file}.journal`, '\n{"records":[{"op":"log","entry":{"at":1}},{"op":"injected","ids":[3]}]}\nnot json\n');
    assert.deepEqual(await logIds(file), [warm, first.logId, next.logId]);
    assert.equal(build(file).logId, next.logId + 1);
  });

  test('a journal left beside a database written since (a crash before removing it) is not replayed twice', async () => {
    const { file, warm } = await seeded();
    const { logId } = build(file);
    const stale = fs.readFileSync(`${file}.journal`);
    assert.equal(cli(['add', '--db', file, '--type', 'note', '--title', 'Full write', '--body', 'x']).code, 0);
    fs.writeFileSync(`${file}.journal`, stale);
    assert.deepEqual(await logIds(file), [warm, logId]);
    const next = build(file);
    assert.deepEqual(await logIds(file), [warm, logId, next.logId]);
  });

  test('an open ledger sees other processes’ journal records, and its own full write keeps them', async () => {
    const { file, warm } = await seeded();
    const ledger = await LedgerFile.open(file);
    const other = build(file);
    assert.equal(ledger.refresh(), true, 'a new journal record is a change');
    assert.deepEqual(ledger.store.recentAssemblies().map((r) => r.id), [other.logId, warm]);
    // The extension's way: build and log in memory, then persist with an empty transaction.
    await ledger.write(async (store) => {
      await assembleContext(store, { budget: 500, task: { title: 'webhook retry' }, trigger: 'test' });
      store.transaction(() => undefined);
    });
    assert.equal(fs.existsSync(`${file}.journal`), false);
    ledger.close();
    assert.deepEqual(await logIds(file), [warm, other.logId, other.logId + 1]);
  });

  test('a journal past its size limit is merged by the next build instead of growing', async () => {
    const { file, warm } = await seeded();
    const { logId } = build(file);
    // Padding in a record readers skip: the journal is now at its limit.
    fs.appendFileSync(`${file}.journal`, `${JSON.stringify({ records: [{ op: 'pad', text: 'x'.repeat(1024 * 1024) }] })}\n`);
    const before = fs.statSync(file).mtimeMs;
    const next = build(file);
    assert.equal(fs.existsSync(`${file}.journal`), false);
    assert.notEqual(fs.statSync(file).mtimeMs, before);
    assert.deepEqual(await logIds(file), [warm, logId, next.logId]);
  });

  test('a build that keeps new term vectors writes the database whole; the journal is for what builds always record', async () => {
    const file = await created();
    const before = fs.statSync(file).mtimeMs;
    build(file);
    assert.notEqual(fs.statSync(file).mtimeMs, before);
    assert.equal(fs.existsSync(`${file}.journal`), false);
    const after = fs.statSync(file).mtimeMs;
    build(file);
    assert.equal(fs.statSync(file).mtimeMs, after);
    assert.ok(fs.existsSync(`${file}.journal`));
  });
});
