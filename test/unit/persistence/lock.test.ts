import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { acquireLock } from '../../../src/node/persistence/lock';
import { tempDir } from '../helpers';

/** A pid no process has (above the kernel's default pid_max of 2^22). */
const DEAD_PID = 2 ** 22 + 12345;

describe('the write lock', () => {
  test('holds the owner pid while taken and is gone once released', async () => {
    const lock = path.join(tempDir(), 'ledger.db.lock');
    const release = await acquireLock(lock, 'ledger.db');
    assert.equal((JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number }).pid, process.pid);
    release();
    assert.equal(fs.existsSync(lock), false);
  });

  test('a second taker waits for the release, then gets it', async () => {
    const lock = path.join(tempDir(), 'ledger.db.lock');
    const release = await acquireLock(lock, 'ledger.db');
    let second = false;
    const waiting = acquireLock(lock, 'ledger.db', 5000).then((r) => {
      second = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(second, false, 'taken while held');
    release();
    (await waiting)();
    assert.equal(second, true);
  });

  test('a lock held by a live process is a clear error after the timeout, naming the lock file', async () => {
    const lock = path.join(tempDir(), 'ledger.db.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: process.ppid, at: new Date().toISOString() }));
    await assert.rejects(acquireLock(lock, 'ledger.db', 200), (error: Error) => error.message.includes('locked by another process') && error.message.includes(lock));
    assert.ok(fs.existsSync(lock), 'a live owner keeps its lock');
  });

  test('a lock left by a dead process is taken over', async () => {
    const lock = path.join(tempDir(), 'ledger.db.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: DEAD_PID, at: new Date().toISOString() }));
    const release = await acquireLock(lock, 'ledger.db', 2000);
    assert.equal((JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number }).pid, process.pid);
    release();
  });

  test('an empty lock (a kill between creating and writing it) is taken over once it is old, not waited on', async () => {
    const lock = path.join(tempDir(), 'ledger.db.lock');
    fs.writeFileSync(lock, '');
    // Just created: another process may be writing it this instant.
    await assert.rejects(acquireLock(lock, 'ledger.db', 300), /locked by another process/);
    const old = new Date(Date.now() - 5_000);
    fs.utimesSync(lock, old, old);
    const started = Date.now();
    const release = await acquireLock(lock, 'ledger.db', 15_000);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    release();
  });

  test('a link at the lock name is neither read through nor written through; its target is unchanged', async () => {
    const dir = tempDir();
    const outside = path.join(tempDir(), 'outside.txt');
    fs.writeFileSync(outside, 'keep me');
    const lock = path.join(dir, 'ledger.db.lock');
    fs.symlinkSync(outside, lock);
    const release = await acquireLock(lock, 'ledger.db', 2000);
    assert.equal(fs.lstatSync(lock).isSymbolicLink(), false);
    release();
    assert.equal(fs.readFileSync(outside, 'utf8'), 'keep me');
  });

  test('releasing a lock another process took over leaves theirs in place', async () => {
    const lock = path.join(tempDir(), 'ledger.db.lock');
    const release = await acquireLock(lock, 'ledger.db');
    const theirs = JSON.stringify({ pid: process.ppid, at: new Date().toISOString(), token: 'theirs' });
    fs.writeFileSync(lock, theirs);
    release();
    assert.equal(fs.readFileSync(lock, 'utf8'), theirs);
  });
});
