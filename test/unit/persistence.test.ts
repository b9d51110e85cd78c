import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { UserError } from '../../src/core/model';
import type { LedgerStore } from '../../src/core/store';
import { LedgerFile } from '../../src/node/ledgerFile';
import { tempDir } from './helpers';

function runWriter(file: string, prefix: string, count: number): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'concurrentWriter.js'), file, prefix, String(count)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('close', (code) => resolve(code ?? -1));
  });
}

describe('persistence', () => {
  const importOne = (id: string, title: string) => (s: LedgerStore) => s.importArtifacts([{ id, type: 'note', title, body: id }]);

  test('writes replace the file atomically: no backup, temporary or lock file is left', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'one', type: 'note', title: 'One', body: '1' }));
    const first = fs.statSync(file).ino;
    await ledger.write(importOne('two', 'Two'));
    // A small change goes to the index's delta, itself replaced whole by a rename.
    assert.equal(fs.statSync(file).ino, first, 'a small change leaves the database file alone');
    const delta = fs.statSync(`${file}.delta`).ino;
    await ledger.write(importOne('three', 'Three'));
    assert.notEqual(fs.statSync(`${file}.delta`).ino, delta, 'a new delta renamed over the old one, not written in place');
    ledger.close();
    const reopened = await LedgerFile.open(file);
    assert.equal(reopened.store.countArtifacts().chains, 3);
    assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['ledger.db', 'ledger.db.delta'], 'no backup, temporary or lock files left');
  });

  test('a failed write changes nothing on disk or in memory', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'keep', type: 'note', title: 'K', body: 'k' }));
    const before = fs.readFileSync(file);
    await assert.rejects(
      ledger.write((s) => {
        s.createArtifact({ id: 'half', type: 'note', title: 'H', body: 'h' });
        throw new UserError('boom');
      }),
      /boom/,
    );
    assert.deepEqual(fs.readFileSync(file), before);
    assert.equal(ledger.store.getArtifact('half'), undefined);
  });

  test('two processes writing at once lose nothing: 200 + 200 = 400', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const codes = await Promise.all([runWriter(file, 'a', 200), runWriter(file, 'b', 200)]);
    assert.deepEqual(codes, [0, 0]);
    const ledger = await LedgerFile.open(file);
    assert.equal(ledger.store.countArtifacts().chains, 400);
    assert.equal(ledger.store.listArtifacts().filter((a) => a.title.startsWith('a ')).length, 200);
  });

  test('a writer sees what another process wrote since it loaded', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const first = await LedgerFile.open(file, { create: true });
    const second = await LedgerFile.open(file, { create: true });
    await first.write((s) => s.createArtifact({ id: 'from-first', type: 'note', title: '1', body: '1' }));
    await second.write((s) => s.createArtifact({ id: 'from-second', type: 'note', title: '2', body: '2' }));
    assert.equal(second.store.countArtifacts().chains, 2);
    assert.equal((first.refresh(), first.store.countArtifacts().chains), 2);
  });

  test('a file that is not a database is moved aside, never deleted, and a new one is started, saying so', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    fs.writeFileSync(file, 'this is not a database, it is a shopping list\n'.repeat(10));
    const said: string[] = [];
    const ledger = await LedgerFile.open(file, { durable: true, say: (text) => said.push(text) });
    assert.equal(ledger.store.countArtifacts().chains, 0);
    assert.match(said.join('\n'), /not a valid ledger database.*moved to .*ledger\.db\.corrupt-.*JSONL export/s);
    const aside = fs.readdirSync(dir).find((name) => name.startsWith('ledger.db.corrupt-'));
    assert.ok(aside, 'moved aside');
    assert.match(fs.readFileSync(path.join(dir, aside), 'utf8'), /shopping list/);
    await ledger.write((s) => s.createArtifact({ id: 'fresh', type: 'note', title: 'F', body: 'f' }));
    assert.equal((await LedgerFile.open(file)).store.getArtifact('fresh')?.title, 'F');
  });

  test('a read-only database is refused before anything is written', async (t) => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'ro', type: 'note', title: 'R', body: 'r' }));
    fs.chmodSync(file, 0o444);
    t.after(() => fs.chmodSync(file, 0o644));
    await assert.rejects(
      ledger.write((s) => s.createArtifact({ id: 'no', type: 'note', title: 'N', body: 'n' })),
      /read-only/,
    );
    fs.chmodSync(file, 0o644);
    assert.equal((await LedgerFile.open(file)).store.getArtifact('no'), undefined);
  });

  test('a database in a folder that does not exist is a clear error', async () => {
    await assert.rejects(LedgerFile.open(path.join(tempDir(), 'missing', 'ledger.db'), { create: true }), /folder for the database does not exist/);
  });

  test('a stale lock left by a dead process is taken over', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, at: new Date().toISOString() }));
    const ledger = await LedgerFile.open(file, { create: true, lockTimeoutMs: 2000 });
    await ledger.write((s) => s.createArtifact({ id: 'after-stale', type: 'note', title: 'S', body: 's' }));
    assert.equal(ledger.store.countArtifacts().chains, 1);
  });
});
