import assert from 'node:assert/strict';
import { SCHEMA_VERSION } from '../../../src/core/schema';
import { describe, test } from 'node:test';
import type { Database } from 'sql.js';
import { assembleContext, type AssembleRequest, type AssembleResult } from '../../../src/core/assemble';
import { LedgerStore } from '../../../src/core/store';
import { loadSqlJs } from '../../../src/node/ledgerFile';
import { fixedClock, memoryStore } from '../helpers';

const request: AssembleRequest = {
  budget: 2500,
  now: new Date('2026-03-01T00:00:00.000Z'),
  task: { title: 'Fix the webhook retry queue timeout in PaymentService', description: 'Payments 数据库 time out; see ADR-0042.' },
  log: false,
};

/** Everything a user sees of a build, without its timing. */
function seen(result: AssembleResult): string {
  return JSON.stringify({ ...result, durationMs: 0 });
}

async function ledger(): Promise<LedgerStore> {
  const store = await memoryStore();
  const bodies = [
    'The webhook retry queue times out under load; PaymentService retries with a lock.',
    'HTTPServer and fooBar_baz handlers: retrying, retried, retries — 数据库迁移 日本語 🚀 émigré.',
    `A huge body: ${'queue timeout webhook '.repeat(4000)} and the end past the indexed head mentions payments.`,
    'ADR-0042 says: keep webhook handlers idempotent.',
    '',
  ];
  for (let i = 0; i < 25; i++) {
    store.createArtifact({
      id: `v-${i}`,
      type: i % 4 === 0 ? 'adr' : 'learning',
      title: `Note ${i} on ${i % 2 ? 'webhook retries' : 'gardening'}`,
      body: `${bodies[i % bodies.length]} ${i % 3 ? 'lock' : ''}`,
      tags: i % 5 === 0 ? ['payments'] : [],
    });
  }
  return store;
}

async function reopen(bytes: Uint8Array, edit?: (db: Database) => void): Promise<LedgerStore> {
  const sql = await loadSqlJs();
  if (edit) {
    const db = new sql.Database(bytes);
    edit(db);
    bytes = db.export();
    db.close();
  }
  return LedgerStore.open(sql, bytes, fixedClock());
}

describe('term vectors kept in the ledger', () => {
  test('a build that reads the kept vectors sees exactly what one that scans the text sees, also after an edit', async () => {
    const store = await ledger();
    const scanned = await assembleContext(store, request);
    const bytes = store.export();
    const fromVectors = await reopen(bytes);
    assert.equal(seen(await assembleContext(fromVectors, request)), seen(scanned));
    const sql = await loadSqlJs();
    const db = new sql.Database(bytes);
    assert.equal(db.exec('SELECT count(*) FROM term_vector')[0]!.values[0]![0], new Set(store.listArtifacts().map((a) => a.contentHash)).size, 'one vector per distinct body');
    db.close();

    fromVectors.updateArtifact('v-3', { body: 'Rewritten: the payment webhook lock is gone.' }, { id: 'v-3-v2' });
    const afterEdit = await assembleContext(fromVectors, request);
    const scannedAgain = await ledger();
    scannedAgain.updateArtifact('v-3', { body: 'Rewritten: the payment webhook lock is gone.' }, { id: 'v-3-v2' });
    assert.equal(seen(afterEdit), seen(await assembleContext(scannedAgain, request)));
  });

  test('damaged vectors, and vectors from another way of making terms, are not used', async () => {
    const store = await ledger();
    const expected = seen(await assembleContext(store, request));
    const bytes = store.export();
    // Each body's last term counted 5 times more: used, that changes the scores (so the test can fail).
    const recount = (version?: string) => (db: Database) => {
      for (const [key, data] of db.exec('SELECT key, data FROM term_vector')[0]!.values) {
        const bytes = Uint8Array.from(data as Uint8Array);
        if (bytes.length > 1 && bytes[bytes.length - 1]! < 0x70) bytes[bytes.length - 1]! += 5;
        db.run('UPDATE term_vector SET data = ? WHERE key = ?', [bytes, key as string]);
      }
      if (version) db.run('UPDATE term_vector SET version = ?', [version]);
    };
    assert.notEqual(seen(await assembleContext(await reopen(bytes, recount()), request)), expected);
    assert.equal(seen(await assembleContext(await reopen(bytes, recount('an-older-extraction')), request)), expected);
    for (const damage of ["UPDATE term_vector SET data = x'ff'", "UPDATE term_vector SET data = x'7f01'", "UPDATE term_vector SET data = x''", 'DELETE FROM term_dict WHERE id = 3']) {
      assert.equal(seen(await assembleContext(await reopen(bytes, (db) => db.run(damage)), request)), expected, damage);
    }
  });

  test('the tables are made by the first write that keeps vectors, not by a schema change', async () => {
    const store = await ledger();
    const sql = await loadSqlJs();
    const tables = (bytes: Uint8Array): string[] => {
      const db = new sql.Database(bytes);
      const names = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'term_%' ORDER BY name")[0]?.values.map((v) => String(v[0])) ?? [];
      db.close();
      return names;
    };
    assert.deepEqual(tables(store.export()), []);
    await assembleContext(store, request);
    assert.deepEqual(tables(store.export()), ['term_dict', 'term_vector']);
    // The schema version is the migrations' (the artifact files' stamps, issue 42); vectors add none.
    assert.equal(store.schemaVersion, SCHEMA_VERSION);
  });
});

describe('the search index is built when a query asks for it', () => {
  test('a build with no task and no file in play (a hook at session start) gives the same context before and after the index is built', async () => {
    const nothingToSearch: AssembleRequest = { budget: 2500, now: request.now, log: false };
    const withRules = async (): Promise<LedgerStore> => {
      const store = await ledger();
      store.createArtifact({ id: 'house-rules', type: 'constitution', title: 'House rules', body: 'Keep webhook handlers idempotent.' });
      store.createArtifact({ id: 'pinned-note', type: 'learning', title: 'Pinned: the queue lock', body: 'The retry queue takes a lock per payment.', pinned: true });
      return store;
    };
    const fresh = await withRules();
    const first = await assembleContext(fresh, nothingToSearch);
    assert.ok(first.items.length > 0, 'an empty query still brings the ledger in');
    await assembleContext(fresh, request);
    assert.equal(seen(await assembleContext(fresh, nothingToSearch)), seen(first));
    const indexedFirst = await withRules();
    await assembleContext(indexedFirst, request);
    assert.equal(seen(await assembleContext(indexedFirst, nothingToSearch)), seen(first));
  });
});
