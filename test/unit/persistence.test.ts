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
  // An import is written whole; a single add goes to the journal (journal.test.ts).
  const importOne = (id: string, title: string) => (s: LedgerStore) => s.importArtifacts([{ id, type: 'note', title, body: id }]);

  test('writes replace the file atomically and keep the previous one as .bak', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'one', type: 'note', title: 'One', body: '1' }));
    await ledger.write(importOne('two', 'Two'));
    ledger.close();
    const reopened = await LedgerFile.open(file);
    assert.equal(reopened.store.countArtifacts().chains, 2);
    const backup = await LedgerFile.open(`${file}.bak`);
    assert.equal(backup.store.countArtifacts().chains, 1, 'the backup is the state before the last write');
    assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['ledger.db', 'ledger.db.bak'], 'no temporary or lock files left');
  });

  test('the backup follows every write, also when its file is reused and is longer than the new data', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'one', type: 'note', title: 'One', body: '1' }));
    // The backup's file is recycled for the next write: a longer one (as after a restore
    // of an older, bigger ledger) must be cut to the new length, not keep its old tail.
    fs.appendFileSync(`${file}.bak`, Buffer.alloc(1 << 20, 0x5a));
    await ledger.write(importOne('two', 'Two'));
    assert.ok(fs.statSync(file).size < 1 << 20, `the database is ${fs.statSync(file).size} bytes: the old tail was kept`);
    await ledger.write(importOne('three', 'Three'));
    ledger.close();
    const reopened = await LedgerFile.open(file);
    assert.deepEqual(reopened.store.listArtifacts({}).map((a) => a.id).sort(), ['one', 'three', 'two']);
    const backup = await LedgerFile.open(`${file}.bak`);
    assert.deepEqual(backup.store.listArtifacts({}).map((a) => a.id).sort(), ['one', 'two'], 'the backup is the state before the last write');
    assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['ledger.db', 'ledger.db.bak']);
  });

  test('a backup left hard-linked to the database by a crash is never overwritten in place', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'one', type: 'note', title: 'One', body: '1' }));
    await ledger.write(importOne('two', 'Two'));
    // What a crash between linking the backup and renaming the new file leaves behind.
    fs.rmSync(`${file}.bak`);
    fs.linkSync(file, `${file}.bak`);
    await ledger.write(importOne('three', 'Three'));
    ledger.close();
    const reopened = await LedgerFile.open(file);
    assert.equal(reopened.store.countArtifacts().chains, 3);
    const backup = await LedgerFile.open(`${file}.bak`);
    assert.equal(backup.store.countArtifacts().chains, 2);
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
    assert.equal(ledger.store.listArtifacts({ text: 'a ' }).length, 200);
  });

  test('a writer sees what another process wrote since it loaded', async () => {
    const file = path.join(tempDir(), 'ledger.db');
    const first = await LedgerFile.open(file, { create: true });
    const second = await LedgerFile.open(file, { create: true });
    await first.write((s) => s.createArtifact({ id: 'from-first', type: 'note', title: '1', body: '1' }));
    await second.write((s) => s.createArtifact({ id: 'from-second', type: 'note', title: '2', body: '2' }));
    assert.equal(second.store.countArtifacts().chains, 2);
    assert.equal(first.read((s) => s.countArtifacts().chains), 2);
  });

  test('a file that is not a database is moved aside, never deleted, with a clear message', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    fs.writeFileSync(file, 'this is not a database, it is a shopping list\n'.repeat(10));
    await assert.rejects(LedgerFile.open(file), (error: Error) => {
      assert.ok(error instanceof UserError);
      assert.match(error.message, /not a valid ledger database.*moved to/s);
      return true;
    });
    const aside = fs.readdirSync(dir).find((name) => name.startsWith('ledger.db.corrupt-'));
    assert.ok(aside, 'moved aside');
    assert.match(fs.readFileSync(path.join(dir, aside), 'utf8'), /shopping list/);
  });

  test('a corrupt file with a good backup offers the backup, and restore brings it back', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.createArtifact({ id: 'precious', type: 'note', title: 'P', body: 'p' }));
    await ledger.write(importOne('second', 'S'));
    ledger.close();
    const bytes = fs.readFileSync(file);
    bytes.fill(0x42, 100, 4000);
    fs.writeFileSync(file, bytes);
    await assert.rejects(LedgerFile.open(file), (error: UserError) => /restore/.test(error.hint ?? ''));
    await LedgerFile.restoreBackup(file);
    const restored = await LedgerFile.open(file);
    assert.equal(restored.store.getArtifact('precious')?.title, 'P');
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
