import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { UserError } from '../core/model';
import { type Clock, CorruptDatabaseError, type JournalRecord, LedgerStore, systemClock } from '../core/store';

let sqlJs: Promise<SqlJsStatic> | undefined;

/**
 * Loads sql.js once, lazily. The bundles ship `sql-wasm.wasm` beside themselves; the
 * unit tests (compiled by tsc, not bundled) find it in node_modules.
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const initSqlJs = require('sql.js') as (config: { locateFile: (file: string) => string }) => Promise<SqlJsStatic>;
    const beside = path.join(__dirname, 'sql-wasm.wasm');
    const wasm = fs.existsSync(beside) ? beside : require.resolve(['sql.js', 'dist', 'sql-wasm.wasm'].join('/'));
    return initSqlJs({ locateFile: () => wasm });
  })();
  return sqlJs;
}

export interface OpenOptions {
  /** Create the file when it does not exist (its folder must exist unless `createFolder`). */
  create?: boolean;
  createFolder?: boolean;
  clock?: Clock;
  /** How long to wait for another writer's lock before giving up. */
  lockTimeoutMs?: number;
}

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

function identityOf(file: string): FileIdentity | undefined {
  try {
    const stat = fs.statSync(file);
    return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/**
 * Reads the file and its identity from one open descriptor, so the identity always
 * belongs to the bytes read even if another process renames a new file in meanwhile.
 */
function readWithIdentity(file: string): { bytes: Buffer | undefined; identity: FileIdentity | undefined } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: undefined, identity: undefined };
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    // The Buffer itself, not a Uint8Array over it: sql.js takes the bytes into its in-memory
    // file system with `slice()`, which copies a Uint8Array (80-150 ms for a 24 MB ledger on
    // a slow machine, on every open) but only views a Buffer. Nothing else keeps these bytes.
    const bytes = fs.readFileSync(fd);
    return { bytes, identity: { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs } };
  } finally {
    fs.closeSync(fd);
  }
}

function sameIdentity(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a?.ino === b?.ino && a?.size === b?.size && a?.mtimeMs === b?.mtimeMs;
}

/**
 * A journal past this size is merged into the database by the next write instead of
 * growing: every reader replays it on opening (a few ms per build record on a large
 * ledger, so about seven records of a 10,000-artifact ledger's builds).
 */
const JOURNAL_LIMIT = 256 * 1024;

interface JournalState {
  /** The journal file as loaded (undefined: there was none). */
  identity: FileIdentity | undefined;
  /** It belongs to the database as loaded (its header names that file), so it was replayed. */
  applies: boolean;
  /** Its last line is complete; else the next record starts on a new line. */
  endsWithNewline: boolean;
}

/**
 * Replays the journal beside `file` onto `store` if it was written for the database
 * file `base` (a journal for a database since replaced is ignored: a full write already
 * put its records in). A line cut short by a crash is skipped; the lines before it count.
 */
function replayJournal(file: string, base: FileIdentity | undefined, store: LedgerStore): JournalState {
  const { bytes, identity } = readWithIdentity(file);
  if (!bytes || !identity || !base) return { identity, applies: false, endsWithNewline: true };
  const lines = bytes.toString('utf8').split('\n');
  const header = parseJournalLine(lines[0]) as { base?: FileIdentity } | undefined;
  const endsWithNewline = bytes.length === 0 || bytes[bytes.length - 1] === 0x0a;
  if (!header?.base || !sameIdentity(header.base, base)) return { identity, applies: false, endsWithNewline };
  applyJournalLines(lines, store);
  return { identity, applies: true, endsWithNewline };
}

/** Replays a journal's record lines (`lines[0]` is its header) onto `store`. */
function applyJournalLines(lines: readonly string[], store: LedgerStore, only?: ReadonlySet<JournalRecord['op']>): void {
  for (const line of lines.slice(1)) {
    const records = (parseJournalLine(line) as { records?: unknown } | undefined)?.records;
    if (!Array.isArray(records)) continue;
    try {
      store.applyJournal(records, only);
    } catch {
      // Records SQLite refuses (a damaged line) are rolled back and skipped; the rest still count.
    }
  }
}

function parseJournalLine(line: string | undefined): unknown {
  if (!line) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

function timestampForFileName(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A ledger database file on disk, per DESIGN.md section 5: sql.js holds it in memory;
 * every write takes an exclusive lock file, re-reads the file if another process
 * replaced it since we loaded it, applies the change, writes a temporary file in the
 * same folder and renames it over the old one, keeping the previous file as `.bak`.
 *
 * A write that only records a build (its assembly_log row, injection counts and token
 * counts) is appended to `<file>.journal` instead of rewriting the whole database: every
 * reader replays the journal on loading, and the next full write merges it and removes it.
 */
export class LedgerFile {
  private loaded: FileIdentity | undefined;
  private journal: JournalState = { identity: undefined, applies: false, endsWithNewline: true };

  private constructor(
    readonly file: string,
    private readonly sql: SqlJsStatic,
    private current: LedgerStore,
    loaded: FileIdentity | undefined,
    private readonly options: OpenOptions,
  ) {
    this.loaded = loaded;
  }

  get lockFile(): string {
    return `${this.file}.lock`;
  }

  get backupFile(): string {
    return `${this.file}.bak`;
  }

  get journalFile(): string {
    return `${this.file}.journal`;
  }

  /** The journal of the database the backup was, kept with it. */
  get backupJournalFile(): string {
    return `${this.backupFile}.journal`;
  }

  /** The in-memory store as last loaded; call `refresh()` first to see other writers' changes. */
  get store(): LedgerStore {
    return this.current;
  }

  static async open(file: string, options: OpenOptions = {}): Promise<LedgerFile> {
    const absolute = path.resolve(file);
    const folder = path.dirname(absolute);
    if (!fs.existsSync(folder)) {
      if (!options.createFolder) {
        throw new UserError(`The folder for the database does not exist: ${folder}`, 'Create it first, or pass another --db path.');
      }
      fs.mkdirSync(folder, { recursive: true });
    }
    const stat = identityOf(absolute);
    if (!stat && !options.create) {
      throw new UserError(`No ledger database at ${absolute}.`, 'Create one with `context-ledger init`, or pass --db with the right path.');
    }
    if (stat && fs.statSync(absolute).isDirectory()) {
      throw new UserError(`${absolute} is a folder, not a database file.`, 'Pass the path of the .db file with --db.');
    }
    const sql = await loadSqlJs();
    const { store, identity, journal } = LedgerFile.load(absolute, sql, options.clock ?? systemClock);
    const ledger = new LedgerFile(absolute, sql, store, identity, options);
    ledger.journal = journal;
    return ledger;
  }

  private static load(file: string, sql: SqlJsStatic, clock: Clock): { store: LedgerStore; identity: FileIdentity | undefined; journal: JournalState } {
    const { bytes, identity } = readWithIdentity(file);
    try {
      const store = LedgerStore.open(sql, bytes, clock);
      return { store, identity, journal: replayJournal(`${file}.journal`, identity, store) };
    } catch (error) {
      if (!(error instanceof CorruptDatabaseError)) throw error;
      const aside = `${file}.corrupt-${timestampForFileName(clock.now())}`;
      fs.renameSync(file, aside);
      const backup = `${file}.bak`;
      const hint = fs.existsSync(backup)
        ? `The last good copy is ${backup}: restore it with \`context-ledger restore --db ${file}\`.`
        : 'There is no backup; the next command will start a new, empty ledger.';
      throw new UserError(`The file ${file} is not a valid ledger database (${error.message}). It was moved to ${aside}; nothing was deleted.`, hint);
    }
  }

  /** Re-reads the file if another process replaced it since it was loaded. Returns whether it did. */
  refresh(): boolean {
    if (sameIdentity(identityOf(this.file), this.loaded) && sameIdentity(identityOf(this.journalFile), this.journal.identity)) return false;
    const fresh = LedgerFile.load(this.file, this.sql, this.options.clock ?? systemClock);
    this.current.close();
    this.current = fresh.store;
    this.loaded = fresh.identity;
    this.journal = fresh.journal;
    return true;
  }

  /** Read-only access to the freshest data on disk. */
  read<T>(fn: (store: LedgerStore) => T): T {
    this.refresh();
    return fn(this.current);
  }

  /**
   * Applies `fn` under the write lock to the freshest data and persists the result. If
   * `fn` throws, nothing is written and the in-memory store is reloaded from disk.
   */
  async write<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    this.assertWritable();
    const release = await this.acquireLock();
    try {
      this.refresh();
      let result: T;
      const before = this.current.generation;
      try {
        result = await fn(this.current);
      } catch (error) {
        this.reloadAfterFailure();
        throw error;
      }
      const journaled = this.current.takeJournal();
      if (this.current.generation !== before || !fs.existsSync(this.file)) {
        if (!journaled || journaled.length === 0 || !this.appendJournal(journaled)) {
          this.refuseToDropNewerJournal();
          this.persist();
        }
      }
      return result;
    } finally {
      release();
    }
  }

  /**
   * A full write replaces the journal with the database this version exported, which
   * lacks what it could not replay: records a newer version wrote. Appending is safe.
   */
  private refuseToDropNewerJournal(): void {
    const foreign = this.current.journalFromNewerVersion;
    if (foreign.length === 0) return;
    this.reloadAfterFailure();
    throw new UserError(
      `The journal beside ${this.file} holds changes a newer version of Context Ledger wrote (${foreign.join(', ')}); this version would lose them by writing the database whole.`,
      'Update Context Ledger (the extension and the context-ledger CLI) and try again; reading, building and adding still work.',
    );
  }

  private reloadAfterFailure(): void {
    this.loaded = undefined;
    if (fs.existsSync(this.file)) this.refresh();
  }

  private assertWritable(): void {
    try {
      const stat = fs.statSync(this.file);
      // Root ignores permission bits, so check them rather than trusting access(W_OK).
      if ((stat.mode & 0o222) === 0) {
        throw new UserError(`The database ${this.file} is read-only.`, 'Make it writable (chmod u+w) or pass another --db path.');
      }
    } catch (error) {
      if (error instanceof UserError) throw error;
    }
    try {
      fs.accessSync(path.dirname(this.file), fs.constants.W_OK);
    } catch {
      throw new UserError(`Cannot write in the folder ${path.dirname(this.file)}.`, 'Check its permissions or pass another --db path.');
    }
  }

  private persist(): void {
    const bytes = this.current.export();
    const temp = `${this.file}.tmp-${process.pid}`;
    const recycled = this.recycleBackupAs(temp);
    try {
      const fd = fs.openSync(temp, recycled ? 'r+' : 'w');
      try {
        fs.writeSync(fd, bytes, 0, bytes.length, 0);
        if (recycled) fs.ftruncateSync(fd, bytes.length);
        // The data and its size must be on disk before the rename makes them the database.
        fs.fdatasyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      // The database is untouched; the backup it took the place of is rebuilt from it.
      fs.rmSync(temp, { force: true });
      if (recycled && fs.existsSync(this.file) && this.keepBackup()) fs.rmSync(this.backupJournalFile, { force: true });
      throw error;
    }
    const backedUp = fs.existsSync(this.file) && this.keepBackup();
    fs.renameSync(temp, this.file);
    this.loaded = identityOf(this.file);
    // The database now holds what the journal held. Should this not happen (a crash), the
    // journal names the database it was for, and is ignored beside this one. It goes with
    // the backup it was written for: a restore replays its artifacts onto the backup.
    if (backedUp && this.journal.applies && fs.existsSync(this.journalFile)) fs.renameSync(this.journalFile, this.backupJournalFile);
    else {
      fs.rmSync(this.journalFile, { force: true });
      if (backedUp) fs.rmSync(this.backupJournalFile, { force: true });
    }
    this.journal = { identity: undefined, applies: false, endsWithNewline: true };
  }

  /**
   * Appends `records` to the journal (under the write lock, after `refresh()`): the
   * database file stays as it is. Returns false when the database must be written whole
   * instead: there is none yet, or the journal is due to be merged.
   */
  private appendJournal(records: JournalRecord[]): boolean {
    if (!this.loaded || !fs.existsSync(this.file)) return false;
    const line = `${JSON.stringify({ records })}\n`;
    const fresh = !this.journal.applies;
    const size = fresh ? 0 : (this.journal.identity?.size ?? 0);
    if (size + Buffer.byteLength(line) > JOURNAL_LIMIT) return false;
    const text = fresh ? `${JSON.stringify({ journal: 1, base: this.loaded })}\n${line}` : `${this.journal.endsWithNewline ? '' : '\n'}${line}`;
    // A journal left for a database since replaced is started over, not appended to.
    const fd = fs.openSync(this.journalFile, fresh ? 'w' : 'a');
    try {
      fs.writeSync(fd, text);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.journal = { identity: identityOf(this.journalFile), applies: true, endsWithNewline: true };
    return true;
  }

  /**
   * Turns the previous backup into the temporary file, to be overwritten in place. On a
   * large ledger, allocating a new file and freeing the old backup cost more than
   * writing the bytes; reusing the backup's blocks makes neither happen. Only a backup
   * that is its own file qualifies: if it shares the database's inode (a crash between
   * linking and renaming) overwriting it would overwrite the database.
   */
  private recycleBackupAs(temp: string): boolean {
    try {
      const backup = fs.statSync(this.backupFile);
      const database = fs.statSync(this.file);
      if (!backup.isFile() || backup.nlink !== 1 || backup.ino === database.ino) return false;
      fs.renameSync(this.backupFile, temp);
      return true;
    } catch {
      return false;
    }
  }

  /** The file being replaced was valid (we loaded it), so it becomes the last good copy. */
  private keepBackup(): boolean {
    const staging = `${this.backupFile}.tmp-${process.pid}`;
    try {
      fs.rmSync(staging, { force: true });
      try {
        fs.linkSync(this.file, staging);
      } catch {
        fs.copyFileSync(this.file, staging);
      }
      fs.renameSync(staging, this.backupFile);
      return true;
    } catch {
      fs.rmSync(staging, { force: true });
      return false;
    }
  }

  private async acquireLock(): Promise<() => void> {
    const deadline = Date.now() + (this.options.lockTimeoutMs ?? 15_000);
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = fs.openSync(this.lockFile, 'wx');
        fs.writeSync(fd, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
        fs.closeSync(fd);
        return () => fs.rmSync(this.lockFile, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (this.lockIsStale()) {
        fs.rmSync(this.lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new UserError(
          `The database ${this.file} is locked by another process (${this.lockFile}).`,
          'Wait for it to finish; if no Context Ledger process is running, delete the lock file.',
        );
      }
      await sleep(Math.min(5 + attempt * 2, 50) + Math.random() * 10);
    }
  }

  /** A lock whose owner process is gone, or that is older than a minute, is stale. */
  private lockIsStale(): boolean {
    try {
      const text = fs.readFileSync(this.lockFile, 'utf8');
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

  /**
   * Replaces the database with its last good copy, plus the artifacts its journal added
   * since (an `add` is journaled, so the backup predates it; a journaled artifact carries
   * its whole row and body hash, so it is safe to replay onto an older copy). The
   * current file and journal are kept aside. Says where the replaced file went and how
   * many artifacts came back from the journals.
   */
  static async restoreBackup(file: string, clock: Clock = systemClock): Promise<{ aside: string | undefined; fromJournal: number }> {
    const absolute = path.resolve(file);
    const backup = `${absolute}.bak`;
    const journal = `${absolute}.journal`;
    if (!fs.existsSync(backup)) throw new UserError(`There is no backup at ${backup}.`);
    const sql = await loadSqlJs();
    // Check and copy the same bytes: a writer may recycle the backup's file meanwhile.
    let bytes: Uint8Array = fs.readFileSync(backup);
    const store = LedgerStore.open(sql, bytes, clock);
    let fromJournal = 0;
    try {
      const versions = store.countArtifacts().versions;
      // The backup's own journal, then the one written since the last full write.
      for (const journalFile of [`${backup}.journal`, journal]) {
        const journalBytes = readWithIdentity(journalFile).bytes;
        if (journalBytes) applyJournalLines(journalBytes.toString('utf8').split('\n'), store, new Set(['artifact']));
      }
      // Only artifacts are replayed here, and each adds a version: none added, nothing to export.
      fromJournal = store.countArtifacts().versions - versions;
      if (fromJournal > 0) bytes = store.export();
    } finally {
      store.close();
    }
    const stamp = timestampForFileName(clock.now());
    let aside: string | undefined;
    if (fs.existsSync(absolute)) {
      aside = `${absolute}.replaced-${stamp}`;
      fs.renameSync(absolute, aside);
    }
    if (fs.existsSync(journal)) fs.renameSync(journal, `${journal}.replaced-${stamp}`);
    fs.writeFileSync(absolute, bytes);
    return { aside, fromJournal };
  }

  close(): void {
    this.current.close();
  }
}
