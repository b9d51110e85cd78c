import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Connection, systemClock } from '../../../src/core/ledgerStore/connection';
import { CorruptDatabaseError, looksLikeSqlite, migrate, openDatabase, schemaVersion } from '../../../src/core/ledgerStore/schema';
import { SCHEMA_VERSION } from '../../../src/core/schema';
import { loadSqlJs } from '../../../src/node/ledgerFile';

describe('store schema and migrations', () => {
  test('only bytes that start like SQLite are taken for a database; empty bytes are a new one', async () => {
    const sql = await loadSqlJs();
    assert.ok(looksLikeSqlite(new Uint8Array()));
    assert.ok(looksLikeSqlite(new sql.Database().export()));
    assert.ok(!looksLikeSqlite(new TextEncoder().encode('SQLite format 3')), 'a header alone is too short');
    assert.ok(!looksLikeSqlite(new TextEncoder().encode('{"not":"a database"}'.repeat(10))));
    assert.throws(() => openDatabase(sql, new TextEncoder().encode('# notes\n'.repeat(20))), CorruptDatabaseError);
  });

  test('a new database is migrated to the current schema; migrating again changes nothing', async () => {
    const sql = await loadSqlJs();
    const conn = new Connection(openDatabase(sql), systemClock);
    migrate(conn);
    assert.equal(schemaVersion(conn), SCHEMA_VERSION);
    assert.ok(conn.hasTable('artifact'));
    const generation = conn.generation;
    migrate(conn);
    assert.equal(conn.generation, generation);
  });

  test("another program's SQLite database is not taken for a ledger, and is not changed", async () => {
    const sql = await loadSqlJs();
    const other = new sql.Database();
    other.exec('CREATE TABLE photos (id INTEGER)');
    const conn = new Connection(openDatabase(sql, other.export()), systemClock);
    assert.throws(() => migrate(conn), (e: unknown) => e instanceof CorruptDatabaseError && /not a Context Ledger one/.test(e.message));
    assert.ok(!conn.hasTable('artifact'));
  });
});
