import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Connection, systemClock } from '../../../src/core/ledgerStore/connection';
import { TermVectors, TokenCounts } from '../../../src/core/ledgerStore/derivedCaches';
import { migrate, openDatabase } from '../../../src/core/ledgerStore/schema';
import { loadSqlJs } from '../../../src/node/ledgerFile';

async function connection(bytes?: Uint8Array): Promise<Connection> {
  const conn = new Connection(openDatabase(await loadSqlJs(), bytes), systemClock);
  migrate(conn);
  return conn;
}

describe('derived caches', () => {
  test('token counts stay pending until a flush writes them, and are read back after reopening', async () => {
    const conn = await connection();
    const counts = new TokenCounts(conn);
    counts.putTokenCount('h1', 'o200k_base', 7);
    assert.equal(counts.getTokenCount('h1', 'o200k_base'), 7);
    const generation = conn.generation;
    counts.flush();
    assert.equal(conn.generation, generation, 'a count is not a change of the ledger');
    const reopened = new TokenCounts(await connection(conn.db.export()));
    assert.equal(reopened.getTokenCount('h1', 'o200k_base'), 7);
    assert.equal(reopened.getTokenCount('h1', 'cl100k_base'), undefined);
  });

  test('a replayed vectors record whose dictionary disagrees with ours is dropped whole', async () => {
    const vectors = new TermVectors(await connection());
    vectors.termDictionary().push('retry', 'payment');
    vectors.replay({ op: 'vectors', firstTerm: 1, terms: ['webhook', 'booking'], vectors: [['k', 'v1', [1, 2]]] });
    assert.deepEqual(vectors.termDictionary(), ['retry', 'payment'], 'entry 1 is "payment" here, not "webhook"');
    assert.equal(vectors.termVectors('v1').size, 0);
    vectors.replay({ op: 'vectors', firstTerm: 5, terms: ['gap'], vectors: [] });
    assert.equal(vectors.termDictionary().length, 2, 'a record that would leave a gap is dropped');
    vectors.replay({ op: 'vectors', firstTerm: 1, terms: ['payment', 'booking'], vectors: [['k', 'v1', [1, 2]]] });
    assert.deepEqual(vectors.termDictionary(), ['retry', 'payment', 'booking']);
    assert.deepEqual([...vectors.termVectors('v1').get('k')!], [1, 2]);
  });

  test('term vectors are written with their dictionary, and vectors of an older extraction version are dropped', async () => {
    const conn = await connection();
    const vectors = new TermVectors(conn);
    vectors.termDictionary().push('über', '日本');
    vectors.putTermVector('old', 'v1', Uint8Array.from([1]));
    vectors.flush();
    vectors.putTermVector('new', 'v2', Uint8Array.from([2]));
    vectors.flush();
    const reopened = new TermVectors(await connection(conn.db.export()));
    assert.deepEqual(reopened.termDictionary(), ['über', '日本']);
    assert.equal(reopened.termVectors('v1').size, 0);
    assert.deepEqual([...reopened.termVectors('v2').keys()], ['new']);
  });
});
