import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UserError } from '../../src/core/model';
import { LedgerStore } from '../../src/core/store';
import { loadSqlJs } from '../../src/node/ledgerFile';
import { memoryStore } from './helpers';

describe('artifacts', () => {
  test('create fills defaults and can be read back by id and by URN', async () => {
    const store = await memoryStore();
    const created = store.createArtifact({ type: 'decision', title: '  Use sql.js  ', body: 'No native build.' });
    assert.equal(created.title, 'Use sql.js');
    assert.equal(created.scope, 'global');
    assert.equal(created.status, 'active');
    assert.equal(created.version, 1);
    assert.equal(created.chainId, created.id);
    assert.deepEqual(store.getArtifact(created.id), created);
    assert.deepEqual(store.getArtifact(`ledger://artifact/${created.id}`), created);
  });

  test('update adds a version and keeps the old one; history lists both', async () => {
    const store = await memoryStore();
    const v1 = store.createArtifact({ id: 'adr-1', type: 'adr', title: 'Store', body: 'sqlite' });
    const v2 = store.updateArtifact('adr-1', { body: 'sql.js in memory' });
    assert.equal(v2.version, 2);
    assert.equal(v2.chainId, 'adr-1');
    assert.notEqual(v2.id, v1.id);
    assert.equal(store.getArtifact('adr-1')?.body, 'sqlite', 'old version kept');
    assert.deepEqual(store.history('adr-1').map((a) => a.version), [1, 2]);
    assert.deepEqual(store.listArtifacts().map((a) => a.id), [v2.id], 'list shows the latest only');
    assert.equal(store.listArtifacts({ allVersions: true }).length, 2);
  });

  test('an update that changes nothing adds no version', async () => {
    const store = await memoryStore();
    store.createArtifact({ id: 'n', type: 'note', title: 'T', body: 'B' });
    assert.equal(store.updateArtifact('n', { body: 'B' }).version, 1);
    assert.equal(store.history('n').length, 1);
  });

  test('supersede marks the old chain and links the new one', async () => {
    const store = await memoryStore();
    store.createArtifact({ id: 'old', type: 'adr', title: 'Old', body: 'x' });
    const { superseded, by } = store.supersedeWith('old', { type: 'adr', title: 'New', body: 'y', id: 'new' });
    assert.equal(superseded.status, 'superseded');
    assert.equal(by.supersedes, 'old');
    assert.equal(store.listArtifacts({ status: 'active' }).length, 1);
    assert.throws(() => store.supersede('new', 'new'), UserError);
  });

  test('archive, pin and hard delete', async () => {
    const store = await memoryStore();
    store.createArtifact({ id: 'a', type: 'note', title: 'A', body: 'a' });
    store.updateArtifact('a', { body: 'a2' });
    assert.equal(store.setPinned('a', true).pinned, true);
    assert.equal(store.archive('a').status, 'archived');
    assert.equal(store.deleteArtifact('a'), 2, 'the whole chain goes');
    assert.equal(store.getArtifact('a'), undefined);
  });

  test('list filters by type, scope, status and tag (case-insensitive)', async () => {
    const store = await memoryStore();
    store.createArtifact({ type: 'learning', title: 'Hooks must not block', body: 'Use a queue', tags: ['Hooks'] });
    store.createArtifact({ type: 'convention', scope: 'path', paths: ['src/**'], title: '日本語のタイトル', body: 'emoji 🚀 inside' });
    store.createArtifact({ type: 'note', title: 'Other', body: 'nothing' });
    assert.equal(store.listArtifacts({ type: 'learning' }).length, 1);
    assert.equal(store.listArtifacts({ scope: 'path' }).length, 1);
    assert.equal(store.listArtifacts({ tag: 'hooks' }).length, 1);
    assert.equal(store.countArtifacts().chains, 3);
  });

  test('bad input is refused with a UserError and nothing is written', async () => {
    const store = await memoryStore();
    const bad = [
      { type: 'nope', title: 't', body: 'b' },
      { type: 'note', title: '', body: 'b' },
      { type: 'note', title: 't' },
      { type: 'note', title: 't', body: 'b', scope: 'galaxy' },
      { type: 'note', title: 't', body: 'b', scope: 'path' },
      { type: 'note', title: 't', body: 'b', scope: 'task' },
      { type: 'note', title: 't', body: 'bin\u0000ary' },
      { type: 'note', title: 't', body: 'lone \uD800 surrogate' },
      { type: 'note', title: 't', body: 'x'.repeat(5 * 1024 * 1024) },
      { type: 'note', title: 't', body: 'b', createdAt: 'yesterday' },
      { type: 'note', title: 't', body: 'b', tags: 'not-a-list' },
    ];
    for (const input of bad) {
      assert.throws(() => store.createArtifact(input as never), UserError, JSON.stringify(input).slice(0, 80));
    }
    assert.equal(store.countArtifacts().versions, 0);
    store.createArtifact({ id: 'dup', type: 'note', title: 't', body: 'b' });
    assert.throws(() => store.createArtifact({ id: 'dup', type: 'note', title: 't', body: 'b' }), /already exists/);
  });

  test('an empty body and a large (1 MB) body are both fine', async () => {
    const store = await memoryStore();
    assert.equal(store.createArtifact({ type: 'note', title: 'empty', body: '' }).body, '');
    assert.equal(store.createArtifact({ type: 'note', title: 'big', body: 'word '.repeat(200_000) }).body.length, 1_000_000);
  });
});

describe('import', () => {
  test('is idempotent; a changed body for a known id becomes a new version', async () => {
    const store = await memoryStore();
    const line = { id: 'x', type: 'learning' as const, title: 'T', body: 'one' };
    assert.deepEqual(store.importArtifacts([line]), { added: ['x'], updated: [], unchanged: [] });
    assert.deepEqual(store.importArtifacts([line]), { added: [], updated: [], unchanged: ['x'] });
    const report = store.importArtifacts([{ ...line, body: 'two' }]);
    assert.equal(report.updated.length, 1);
    assert.equal(store.history('x').length, 2);
    assert.equal(store.importArtifacts([{ ...line, body: 'two' }]).unchanged.length, 1, 'the second time it is unchanged');
  });
});

describe('tasks, activity, feedback, log', () => {
  test('one active task; stage changes are recorded as events', async () => {
    const store = await memoryStore();
    const a = store.createTask({ title: 'A', labels: ['bug'] });
    const b = store.createTask({ title: 'B' });
    store.setActiveTask(a.id);
    store.setActiveTask(b.id);
    assert.equal(store.getActiveTask()?.id, b.id);
    assert.equal(store.listTasks().filter((t) => t.active).length, 1);
    store.setTaskStage(b.id, 'develop');
    assert.deepEqual(store.taskEvents(b.id).map((e) => [e.kind, e.payload.stage]), [['stage_entered', 'develop']]);
    store.setActiveTask(undefined);
    assert.equal(store.getActiveTask(), undefined);
  });

  test('file activity counts opens, edits and saves', async () => {
    const store = await memoryStore();
    store.recordFileActivity('src/a.ts', 'open');
    store.recordFileActivity('src/a.ts', 'edit');
    store.recordFileActivity('src/a.ts', 'edit');
    const [row] = store.fileActivity();
    assert.equal(row?.opens, 1);
    assert.equal(row?.edits, 2);
    assert.ok(row?.lastEditedAt);
  });

  test('feedback and the assembly log', async () => {
    const store = await memoryStore();
    store.createArtifact({ id: 'f', type: 'note', title: 'F', body: 'f' });
    store.recordFeedback('f', 'useful');
    store.recordFeedback('f', 'not_useful');
    store.recordInjected(['f', 'f']);
    assert.deepEqual(store.feedbackFor('f'), { artifactId: 'f', timesInjected: 2, useful: 1, notUseful: 1 });
    const id = store.logAssembly({
      at: '2026-01-01T00:00:00Z', taskId: null, budget: 100, tokensUsed: 50, tokenizer: 'o200k_base', candidates: 1,
      included: ['f'], degraded: [], excluded: [], layers: { global: 50 }, durationMs: 1.5, outputHash: 'abc', trigger: 'test',
    });
    assert.equal(store.recentAssemblies()[0]?.id, id);
  });

  test('token counts are cached by (content hash, tokenizer) and written with the database', async () => {
    const store = await memoryStore();
    store.putTokenCount('h', 'o200k_base', 42);
    assert.equal(store.getTokenCount('h', 'o200k_base'), 42);
    assert.equal(store.getTokenCount('h', 'cl100k_base'), undefined);
    const generation = store.generation;
    store.putTokenCount('h2', 'cl100k_base', 7);
    assert.equal(store.generation, generation, 'a count is not a change of the ledger');
    const reopened = LedgerStore.open(await loadSqlJs(), store.export());
    assert.equal(reopened.getTokenCount('h', 'o200k_base'), 42);
    assert.equal(reopened.getTokenCount('h2', 'cl100k_base'), 7);
    assert.equal(reopened.getTokenCount('h2', 'o200k_base'), undefined);
  });

  test('every artifact lists newest first, ties by id, the same with and without a limit', async () => {
    // Several artifacts share a time: the clock steps only every third call.
    let calls = 0;
    const store = await memoryStore({ now: () => new Date(Date.UTC(2026, 0, 1) + Math.floor(calls++ / 3) * 1000) });
    for (const id of ['m', 'b', 'z', 'a', 'ü', 'k', 'c', 'y']) store.createArtifact({ id, type: 'note', title: id, body: `body of ${id}` });
    store.updateArtifact('b', { body: 'changed' });
    const all = store.listArtifacts().map((a) => `${a.updatedAt} ${a.id}`);
    assert.equal(all.length, 8);
    assert.deepEqual(all, [...all].sort((x, y) => (x.slice(0, 24) === y.slice(0, 24) ? (x < y ? -1 : 1) : x < y ? 1 : -1)));
    assert.deepEqual(all, store.listArtifacts({ limit: 100 }).map((a) => `${a.updatedAt} ${a.id}`));
    assert.deepEqual(store.listArtifacts({ type: 'note' }).map((a) => a.id), store.listArtifacts({ type: 'note', limit: 100 }).map((a) => a.id));
  });
});

describe('schema', () => {
  test('a new database is migrated; reopening its bytes keeps the data', async () => {
    const sql = await loadSqlJs();
    const store = LedgerStore.open(sql);
    assert.equal(store.schemaVersion, 2);
    store.createArtifact({ id: 'keep', type: 'note', title: 'K', body: 'k' });
    const reopened = LedgerStore.open(sql, store.export());
    assert.equal(reopened.getArtifact('keep')?.title, 'K');
  });

  test('a database from a newer version is refused, not damaged', async () => {
    const sql = await loadSqlJs();
    const store = LedgerStore.open(sql);
    (store as unknown as { db: { exec(sql: string): void } }).db.exec('PRAGMA user_version = 99');
    assert.throws(() => LedgerStore.open(sql, store.export()), /newer Context Ledger/);
  });
});
