/**
 * The write lock beside a database: an exclusive lock file holding the owner's pid, the
 * time it was taken and a token of its own. One process at a time reads, changes and
 * replaces the database.
 *
 * A lock file is never empty: its content is written to a private file first, which is
 * then hard-linked to the lock's name (a link fails if the name exists, atomically).
 * A lock whose owner is gone is taken over by one process only: the one that holds the
 * takeover guard (`<lock>.takeover`, created the same way) and finds the very same stale
 * file (same inode) still there.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { faultPoint } from './faultInjection';
import { LedgerUnavailableError } from './noLinks';

/** A live owner that held the lock this long is taken to be hung (a write takes seconds at most). */
const STALE_AFTER_MS = 60_000;
/**
 * An empty or unreadable lock older than this was left by a kill between creating and
 * writing it (older versions created it empty first) or is damaged: nobody will finish it.
 */
const UNREADABLE_STALE_AFTER_MS = 2_000;
/** A takeover takes milliseconds; a guard this old was left by a writer killed during one. */
const GUARD_STALE_AFTER_MS = 10_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface LockContent {
  pid?: number;
  at?: string;
  token?: string;
}

/**
 * Creates `target` holding `content`, or returns false if it exists. Never leaves it
 * empty, never follows a link at `target`.
 */
function createWith(target: string, content: string, token: string): boolean {
  const staging = `${target}.tmp-${process.pid}-${token}`;
  fs.writeFileSync(staging, content, { flag: 'wx' });
  try {
    fs.linkSync(staging, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    // A file system without hard links: exclusive create, then write (the only window
    // in which the lock is empty, covered by UNREADABLE_STALE_AFTER_MS).
    try {
      fs.writeFileSync(target, content, { flag: 'wx' });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw inner;
    }
  } finally {
    fs.rmSync(staging, { force: true });
  }
}

/**
 * Waits for and takes the lock `lockFile` (for the database `file`, named in the error
 * when it stays locked past `timeoutMs`). Returns the function that releases it.
 */
export async function acquireLock(lockFile: string, file: string, timeoutMs = 15_000): Promise<() => void> {
  const token = randomBytes(8).toString('hex');
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const content = JSON.stringify({ pid: process.pid, at: new Date().toISOString(), token });
    if (createWith(lockFile, content, token)) return () => releaseLock(lockFile, token);
    refuseImpossibleLock(lockFile);
    if (takeOverIfStale(lockFile, token)) continue;
    if (Date.now() > deadline) {
      throw new LedgerUnavailableError(
        `The database ${file} is locked by another process (${lockFile}).`,
        'Wait for it to finish; if no Context Ledger process is running, delete the lock file.',
      );
    }
    await sleep(Math.min(5 + attempt * 2, 50) + Math.random() * 10);
  }
}

/**
 * A lock no Context Ledger process could have left is reported at once, not waited on for
 * the whole timeout: a folder or other non-file at the lock's name (removing it is the user's
 * call), or a lock of a live process whose time is in the future or not a time (the clock of
 * this machine wrote every lock we made). A lock of a dead process, or a minute old, is stale
 * and taken over as before.
 */
function refuseImpossibleLock(lockFile: string): void {
  const stat = lstatOrUndefined(lockFile);
  if (!stat || stat.isFile() || stat.isSymbolicLink()) return;
  const kind = stat.isDirectory() ? 'a folder' : 'not a regular file';
  throw new LedgerUnavailableError(
    `The lock ${lockFile} is ${kind}, not a lock file Context Ledger wrote; no change can be saved while it is there.`,
    `Remove it (${stat.isDirectory() ? 'rmdir' : 'rm'} "${lockFile}") and try again.`,
  );
}

function refuseLockFromNowhere(lockFile: string, owner: LockContent): void {
  if (typeof owner.pid !== 'number' || owner.pid === process.pid) return;
  const at = owner.at === undefined ? NaN : Date.parse(owner.at);
  if (!Number.isNaN(at) && at <= Date.now() + STALE_AFTER_MS) return;
  throw new LedgerUnavailableError(
    `The lock ${lockFile} names process ${owner.pid}, which is running, and the time ${JSON.stringify(owner.at ?? null)}, ${Number.isNaN(at) ? 'which is not a time' : 'which is in the future'}: no Context Ledger process on this machine wrote it.`,
    `If process ${owner.pid} is not Context Ledger (check with \`ps -p ${owner.pid}\`), delete ${lockFile} and try again.`,
  );
}

/** Removes the lock if it is still ours (a lock taken over from us is not ours to remove). */
function releaseLock(lockFile: string, token: string): void {
  if (readLock(lockFile)?.token === token) fs.rmSync(lockFile, { force: true });
}

function readLock(lockFile: string): LockContent | undefined {
  try {
    // O_NOFOLLOW: a link planted at the lock's name is not read through.
    const fd = fs.openSync(lockFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      return JSON.parse(fs.readFileSync(fd, 'utf8')) as LockContent;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock if its owner is gone, under the takeover guard. Returns true when
 * the caller should try to take the lock again at once (it was removed, or is gone).
 */
function takeOverIfStale(lockFile: string, token: string): boolean {
  const seen = lstatOrUndefined(lockFile);
  if (!seen) return true;
  if (!isStale(lockFile, seen)) return false;
  faultPoint('lock-stale-seen');
  const guard = `${lockFile}.takeover`;
  if (!createWith(guard, JSON.stringify({ pid: process.pid, at: new Date().toISOString(), token }), token)) {
    const guardStat = lstatOrUndefined(guard);
    if (guardStat && Date.now() - guardStat.mtimeMs > GUARD_STALE_AFTER_MS) fs.rmSync(guard, { force: true });
    return false;
  }
  try {
    // Under the guard nobody else removes a stale lock: if the same file is still there
    // and still stale, it is the one we judged, and removing it frees the lock.
    const now = lstatOrUndefined(lockFile);
    if (now && now.ino === seen.ino && isStale(lockFile, now)) fs.rmSync(lockFile, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
  return true;
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Stale: its owner process is gone, or it is older than STALE_AFTER_MS, or it is
 * empty or unreadable past UNREADABLE_STALE_AFTER_MS, or it is not a file at all (a
 * link or a folder at the lock's name is nothing we wrote; removing it leaves its target).
 */
function isStale(lockFile: string, stat: fs.Stats): boolean {
  if (!stat.isFile()) return true;
  const owner = readLock(lockFile);
  if (!owner || typeof owner.pid !== 'number') return Date.now() - stat.mtimeMs > UNREADABLE_STALE_AFTER_MS;
  if (owner.at && Date.now() - Date.parse(owner.at) > STALE_AFTER_MS) return true;
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  refuseLockFromNowhere(lockFile, owner);
  return false;
}
