import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext } from '../../src/core/assemble';
import { historyEntries, snapshotOfResult } from '../../src/core/inspector/history';
import { ASSEMBLY_LOG_KEPT, LedgerStore } from '../../src/core/store';
import { LedgerFile, loadSqlJs } from '../../src/node/ledgerFile';
import { cli, memoryStore, tempDir } from './helpers';

const TASK = { title: 'Fix the webhook retry queue timeout' };

/** Artifacts enough for log rows of the usual size: each build lists what was in, cut and left out. */
function fill(store: LedgerStore, count: number): void {
  for (let i = 0; i < count; i++) {
    store.createArtifact({
      id: `n-${i}`,
      type: i % 3 === 0 ? 'decision' : 'learning',
      title: `Webhook retry queue note ${i} — 数据 🚀`,
      body: `The retry queue ${i} times out under load. ${'Take the lock, then retry. '.repeat(5 + (i % 15))}`,
    });
  }
}

/** One logged build, as "Build agent context", the CLI `build` and MCP `build_context` do; budgets vary so rows differ. */
async function logged(store: LedgerStore, n: number): Promise<{ logId: number; result: Awaited<ReturnType<typeof assembleContext>> }> {
  const result = await assembleContext(store, { budget: 1500 + (n % 7) * 500, task: TASK, paths: ['src/queue/worker.ts'], trigger: 'test' });
  assert.ok(result.logId !== undefined);
  return { logId: result.logId, result };
}

const logIds = (store: LedgerStore): number[] => store.recentAssemblies(100_000).map((row) => row.id);

/** A ledger written by a version that kept every build: `rows` log rows of ~24 kB each, as SQL put them there. */
async function olderLedger(rows: number): Promise<string> {
  const file = path.join(tempDir(), 'ledger.db');
  const ledger = await LedgerFile.open(file, { create: true });
  await ledger.write((store) => {
    fill(store, 60);
    const task = store.createTask({ title: 'Ship the retry queue', labels: ['queue'] });
    store.setActiveTask(task.id);
    store.recordFeedback('n-1', 'useful');
  });
  ledger.close();
  const db = new (await loadSqlJs()).Database(fs.readFileSync(file));
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
    INSERT INTO assembly_log (at, task_id, budget, tokens_used, tokenizer, candidates, included, degraded, excluded, layers, duration_ms, output_hash, trigger)
    SELECT '2025-06-01T00:00:00Z', NULL, 4000, 3000, 'o200k_base', 60,
           '[' || replace(hex(zeroblob(440)), '00', '{"id":"n-1","mode":"full","layer":"global","tokens":9},') || '{"id":"n-2","mode":"full","layer":"global","tokens":9}]',
           '[]', '{"items":[]}', '{}', 1, 'old', 'cli' FROM n`);
  fs.writeFileSync(file, db.export());
  db.close();
  return file;
}

describe('the build log keeps the newest builds only', () => {
  test(`after more than ${ASSEMBLY_LOG_KEPT} logged builds only the newest ${ASSEMBLY_LOG_KEPT} remain; the history reads them and feedback counts every build`, async () => {
    const store = await memoryStore();
    fill(store, 40);
    const ids: number[] = [];
    let last: Awaited<ReturnType<typeof logged>> | undefined;
    const builds = ASSEMBLY_LOG_KEPT + 23;
    for (let n = 0; n < builds; n++) {
      last = await logged(store, n);
      ids.push(last.logId);
    }
    assert.deepEqual(logIds(store), ids.slice(-ASSEMBLY_LOG_KEPT).reverse(), 'the newest rows, newest first');
    // The inspector's history reads every row kept, and the newest is the last build.
    const history = historyEntries(store.recentAssemblies());
    assert.equal(history.length, ASSEMBLY_LOG_KEPT);
    assert.equal(history[0]!.id, last!.logId);
    assert.deepEqual(history[0]!.snapshot.included.map((i) => i.id), snapshotOfResult(last!.result).included.map((i) => i.id));
    assert.equal(history[0]!.tokensUsed, last!.result.tokensUsed);
    // Injection counts and verdicts are kept per artifact, not per build: pruned builds still count.
    const always = last!.result.items[0]!.id;
    assert.equal(store.feedbackFor(always).timesInjected, builds);
    assert.deepEqual(store.recordFeedback(always, 'useful'), { artifactId: always, timesInjected: builds, useful: 1, notUseful: 0 });
    // Ids go on from the highest ever given: a build number once shown never names another build.
    const next = await logged(store, builds);
    assert.equal(next.logId, ids.at(-1)! + 1);
    const reopened = LedgerStore.open(await loadSqlJs(), store.export());
    assert.equal((await logged(reopened, builds + 1)).logId, next.logId + 1);
  });

  test('logged builds through the file keep the same newest rows for every reader, and the saved bytes stop growing', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((store) => fill(store, 120));
    /** Builds `count` times and measures the file. */
    const buildThenSave = async (count: number, from: number): Promise<number> => {
      for (let n = from; n < from + count; n++) await ledger.write((store) => logged(store, n));
      return fs.statSync(file).size;
    };
    const full = await buildThenSave(ASSEMBLY_LOG_KEPT, 0);
    const later = await buildThenSave(3 * ASSEMBLY_LOG_KEPT, ASSEMBLY_LOG_KEPT);
    // Each row is tens of kB: 150 more builds kept would add megabytes. A row's pages of slack are allowed.
    assert.ok(later <= full + 64 * 1024, `${full} bytes after ${ASSEMBLY_LOG_KEPT} builds, ${later} after ${4 * ASSEMBLY_LOG_KEPT}`);
    // A fresh reader sees the writer's rows.
    for (let n = 0; n < 5; n++) await ledger.write((store) => logged(store, n));
    const reader = await LedgerFile.open(file);
    try {
      assert.equal(logIds(reader.store).length, ASSEMBLY_LOG_KEPT);
      assert.deepEqual(logIds(reader.store), logIds(ledger.store));
      assert.equal(logIds(reader.store)[0], 4 * ASSEMBLY_LOG_KEPT + 5);
    } finally {
      reader.close();
      ledger.close();
    }
  });

  test('a ledger an older version left with thousands of log rows is trimmed by the next logged build and shrinks on disk; nothing else is lost', async () => {
    const rows = 2500;
    const file = await olderLedger(rows);
    const before = fs.statSync(file).size;
    assert.ok(before > 40 * 1024 * 1024, `the older ledger holds ${before} bytes`);
    const run = cli(['build', '--db', file, '--task-title', TASK.title, '--path', 'src/queue/worker.ts', '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const { logId } = JSON.parse(run.stdout) as { logId: number };
    assert.equal(logId, rows + 1);
    const after = fs.statSync(file).size;
    assert.ok(after < before / 20, `${before} bytes before, ${after} after`);
    const ledger = await LedgerFile.open(file);
    try {
      const store = ledger.store;
      const kept = logIds(store);
      assert.deepEqual(kept, Array.from({ length: ASSEMBLY_LOG_KEPT }, (_, i) => rows + 1 - i));
      // The older rows still read: the history takes them as they were written.
      const oldest = historyEntries(store.recentAssemblies()).at(-1)!;
      assert.equal(oldest.trigger, 'cli');
      assert.equal(oldest.snapshot.included.at(-1)?.id, 'n-2');
      assert.equal(store.countArtifacts().chains, 60);
      assert.equal(store.getActiveTask()?.title, 'Ship the retry queue');
      assert.equal(store.feedbackFor('n-1').useful, 1);
      assert.equal(store.schemaVersion, LedgerStore.open(await loadSqlJs()).schemaVersion);
    } finally {
      ledger.close();
    }
    // A second build is an ordinary one again: one row in, one out, and the file keeps its size (the freed pages are reused).
    const again = cli(['build', '--db', file, '--task-title', TASK.title, '--format', 'json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as { logId: number }).logId, rows + 2);
    assert.ok(fs.statSync(file).size <= after + 64 * 1024, `${after} bytes, then ${fs.statSync(file).size}`);
  });

  test('deleting most of a ledger gives the space back at the next full write; a small deletion leaves its pages for reuse', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    try {
      await ledger.write((store) => {
        fill(store, 20);
        for (let i = 0; i < 200; i++) store.createArtifact({ id: `big-${i}`, type: 'note', title: `Big ${i}`, body: `${i} ${'x'.repeat(20_000)}` });
      });
      const big = fs.statSync(file).size;
      await ledger.write((store) => store.deleteArtifact('big-0'));
      assert.equal(fs.statSync(file).size, big, 'one note freed too little to compact the file for');
      await ledger.write((store) => {
        for (let i = 1; i < 200; i++) store.deleteArtifact(`big-${i}`);
      });
      const small = fs.statSync(file).size;
      assert.ok(small < big / 10, `${big} bytes before, ${small} after`);
      assert.equal(ledger.store.countArtifacts().chains, 20);
      assert.equal(ledger.store.getArtifact('n-3')?.title, 'Webhook retry queue note 3 — 数据 🚀');
    } finally {
      ledger.close();
    }
  });
});
