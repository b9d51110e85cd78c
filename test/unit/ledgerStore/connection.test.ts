import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Connection, parseJson, systemClock } from '../../../src/core/ledgerStore/connection';
import { loadSqlJs } from '../../../src/node/ledgerFile';

async function connection(): Promise<Connection> {
  const sql = await loadSqlJs();
  const conn = new Connection(new sql.Database(), systemClock);
  conn.db.exec('CREATE TABLE t (v TEXT)');
  return conn;
}

const count = (conn: Connection): number => Number(conn.scalar('SELECT count(*) FROM t'));

describe('store connection', () => {
  test('a nested transaction joins the outer one: a failure inside undoes everything, and the generation moves once', async () => {
    const conn = await connection();
    const before = conn.generation;
    assert.throws(() =>
      conn.transaction(() => {
        conn.exec('INSERT INTO t VALUES (?)', ['outer']);
        conn.transaction(() => conn.exec('INSERT INTO t VALUES (?)', ['inner']));
        throw new Error('late failure');
      }),
    /late failure/);
    assert.equal(count(conn), 0, 'neither row survives the rollback');
    assert.equal(conn.generation, before + 1);
    conn.transaction(() => {
      conn.exec('INSERT INTO t VALUES (?)', ['a']);
      conn.transaction(() => conn.exec('INSERT INTO t VALUES (?)', ['b']));
    });
    assert.equal(count(conn), 2);
    assert.equal(conn.generation, before + 2, 'one generation per outermost transaction');
  });

  test('the changes a delta save would write: every write statement in order, none of a rolled-back transaction', async () => {
    const conn = await connection();
    conn.changesSaved();
    conn.exec('INSERT INTO t VALUES (?)', ['kept — ünïcode']);
    assert.throws(() =>
      conn.transaction(() => {
        conn.exec('INSERT INTO t VALUES (?)', ['rolled back']);
        throw new Error('late failure');
      }),
    );
    conn.writeDerived(() => conn.exec('INSERT INTO t VALUES (?)', ['derived']));
    assert.deepEqual(conn.pendingChanges, [['INSERT INTO t VALUES (?)', ['kept — ünïcode']], ['INSERT INTO t VALUES (?)', ['derived']]]);
    // Replayed on a copy of the state before them, they give the same rows.
    const copy = new Connection(new (await loadSqlJs()).Database(), systemClock);
    copy.db.exec('CREATE TABLE t (v TEXT)');
    copy.replay(conn.pendingChanges ?? []);
    assert.deepEqual(copy.rowValues('SELECT v FROM t'), conn.rowValues('SELECT v FROM t'));
    assert.deepEqual(copy.pendingChanges, [], 'what a replay ran is saved already');
    conn.changesNotReplayable();
    assert.equal(conn.pendingChanges, undefined, 'the next save is whole');
  });

  test('derived writes commit without moving the generation, and roll back whole on failure', async () => {
    const conn = await connection();
    const before = conn.generation;
    conn.writeDerived(() => conn.exec('INSERT INTO t VALUES (?)', ['count']));
    assert.equal(count(conn), 1);
    assert.equal(conn.generation, before);
    assert.throws(() =>
      conn.writeDerived(() => {
        conn.exec('INSERT INTO t VALUES (?)', ['x']);
        conn.exec('INSERT INTO missing VALUES (1)');
      }),
    );
    assert.equal(count(conn), 1, 'the half-written batch is gone');
  });

  test('rows map column names; non-ASCII values come back intact', async () => {
    const conn = await connection();
    conn.run('INSERT INTO t VALUES (?)', ['Straße — 日本語 🚀']);
    assert.deepEqual(conn.rows('SELECT v FROM t'), [{ v: 'Straße — 日本語 🚀' }]);
    assert.deepEqual(conn.rows('SELECT v FROM t WHERE v = ?', ['none']), []);
    assert.ok(conn.hasTable('t'));
    assert.ok(!conn.hasTable('u'));
  });

  test('a JSON column that is empty, damaged or not text reads as the fallback', () => {
    assert.deepEqual(parseJson('["a"]', []), ['a']);
    assert.deepEqual(parseJson('', ['fallback']), ['fallback']);
    assert.deepEqual(parseJson('{"unterminated', {}), {});
    assert.deepEqual(parseJson(42, []), []);
    assert.deepEqual(parseJson(null, {}), {});
  });
});
