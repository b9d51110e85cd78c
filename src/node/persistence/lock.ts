/**
 * The write lock beside a database: an exclusive lock file holding the owner's pid and
 * the time it was taken. One process at a time reads, changes and replaces the database.
 */
import * as fs from 'node:fs';
import { UserError } from '../../core/model';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits for and takes the lock `lockFile` (for the database `file`, named in the error
 * when it stays locked past `timeoutMs`). Returns the function that releases it.
 */
export async function acquireLock(lockFile: string, file: string, timeoutMs = 15_000): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
      fs.closeSync(fd);
      return () => fs.rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (lockIsStale(lockFile)) {
      fs.rmSync(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new UserError(
        `The database ${file} is locked by another process (${lockFile}).`,
        'Wait for it to finish; if no Context Ledger process is running, delete the lock file.',
      );
    }
    await sleep(Math.min(5 + attempt * 2, 50) + Math.random() * 10);
  }
}

/** A lock whose owner process is gone, or that is older than a minute, is stale. */
function lockIsStale(lockFile: string): boolean {
  try {
    const text = fs.readFileSync(lockFile, 'utf8');
    const { pid, at } = JSON.parse(text) as { pid?: number; at?: string };
    if (at && Date.now() - Date.parse(at) > 60_000) return true;
    if (typeof pid === 'number' && pid !== process.pid) {
      try {
        process.kill(pid, 0);
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    }
    return false;
  } catch {
    // Being written right now (empty) or already gone: not stale, retry.
    return false;
  }
}
