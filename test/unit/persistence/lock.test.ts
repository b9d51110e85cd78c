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
});
