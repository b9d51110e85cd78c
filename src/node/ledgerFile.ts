import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { UserError } from '../core/model';
import { type Clock, CorruptDatabaseError, type JournalRecord, LedgerStore, systemClock } from '../core/store';
import { replaceFile } from './persistence/atomicReplace';
import { type FileIdentity, identityOf, readWithIdentity, sameIdentity, timestampForFileName } from './persistence/fileIdentity';
import { appendJournal, type JournalState, NO_JOURNAL, replayJournal } from './persistence/journal';
import { acquireLock } from './persistence/lock';
import { faultPoint } from './persistence/faultInjection';
import { refuseLink } from './persistence/noLinks';
import { restoreBackup } from './persistence/restore';
import { LEDGER_FOLDER } from './files';

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
  private journal: JournalState = NO_JOURNAL;

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
   * Applies `fn` under the write lock to the freshest data and persists the result, then
   * runs `afterSave` before releasing the lock. If `fn` throws, nothing is written and the
   * in-memory store is reloaded from disk.
   */
  async write<T>(fn: (store: LedgerStore) => T | Promise<T>, afterSave?: (value: T) => void | Promise<void>): Promise<T> {
    this.assertWritable();
    this.refuseLinkedParts();
    const release = await acquireLock(this.lockFile, this.file, this.options.lockTimeoutMs);
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
      faultPoint('write-done');
      // Still under the lock: the files that follow the saved database (the artifact files and
      // their record) are written before another writer can decide anything from either.
      await afterSave?.(result);
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
    const { backedUp } = replaceFile(this.file, this.backupFile, this.current.export(), () => {
      // The backup is now the database as loaded: its journal goes with it (a restore
      // replays its artifacts onto the backup); the old backup's journal is no longer one.
      fs.rmSync(this.backupJournalFile, { force: true });
      if (this.journal.applies && fs.existsSync(this.journalFile)) fs.linkSync(this.journalFile, this.backupJournalFile);
    });
    this.loaded = identityOf(this.file);
    // The database now holds what the journal held. Should this not happen (a crash), the
    // journal names the database it was for, and is ignored beside this one.
    fs.rmSync(this.journalFile, { force: true });
    if (!backedUp) fs.rmSync(this.backupJournalFile, { force: true });
    faultPoint('journal-merged');
    this.journal = NO_JOURNAL;
  }

  /** The ledger's own files, refused when one of them is a link (see persistence/noLinks.ts). */
  private refuseLinkedParts(): void {
    const folder = path.dirname(this.file);
    if (path.basename(folder) === LEDGER_FOLDER) refuseLink(folder, `the ledger folder ${LEDGER_FOLDER}`);
    refuseLink(this.file, 'the database');
    refuseLink(this.journalFile, 'its journal');
    refuseLink(this.backupFile, 'its backup');
    refuseLink(this.backupJournalFile, 'its backup\'s journal');
    refuseLink(this.lockFile, 'its lock file');
  }

  /**
   * Appends `records` to the journal (under the write lock, after `refresh()`): the
   * database file stays as it is. Returns false when the database must be written whole
   * instead: there is none yet, or the journal is due to be merged.
   */
  private appendJournal(records: JournalRecord[]): boolean {
    if (!this.loaded || !fs.existsSync(this.file)) return false;
    const next = appendJournal(this.journalFile, this.loaded, this.journal, records);
    if (!next) return false;
    this.journal = next;
    return true;
  }

  /** See persistence/restore.ts. */
  static async restoreBackup(file: string, clock: Clock = systemClock): Promise<{ aside: string | undefined; fromJournal: number }> {
    return restoreBackup(file, await loadSqlJs(), clock);
  }

  close(): void {
    this.current.close();
  }
}
