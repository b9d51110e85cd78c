import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { UserError } from '../core/model';
import { type Clock, CorruptDatabaseError, LedgerStore, systemClock } from '../core/store';
import { removeDeadWritersFiles } from './persistence/deadWriters';
import { type FileIdentity, identityOf, readWithIdentity, sameIdentity, timestampForFileName } from './persistence/fileIdentity';
import { applyDelta, changesLine, deltaFileOf, fitsDelta, indexIdentity, type LoadedDelta, writeDelta } from './persistence/indexDelta';
import { replayLegacyJournal } from './persistence/journal';
import { acquireLock } from './persistence/lock';
import { faultPoint } from './persistence/faultInjection';
import { refuseLink } from './persistence/noLinks';
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
  /**
   * The database is the only copy of what it holds (a `--db` ledger outside a workspace):
   * each save reaches the disk (fsync) before it replaces the file. A workspace ledger's
   * database is an index of the artifact files plus this machine's own state: a power cut
   * may cost its last save, never a shared write (the files are written durably first).
   */
  durable?: boolean;
  /** Told when a damaged database was moved aside (the session rebuilds it from the files). */
  say?: (text: string) => void;
}

/**
 * The database file on disk: sql.js holds it in memory; every write takes an exclusive
 * lock file, re-reads the file if another process replaced it since it was loaded, applies
 * the change, and writes the whole database to a temporary file in the same folder that is
 * renamed over the old one (a kill leaves the old file or the new one, never half of one).
 *
 * In a workspace the database is the index of the artifact files (docs/storage.md): a
 * damaged one is moved aside and a new one is built from the files; nothing is "restored".
 * A database left by an earlier version with a journal beside it gets the journal merged
 * by its first write (the migration: src/node/legacyLedger.ts).
 */
export class LedgerFile {
  private loaded: FileIdentity | undefined;
  /** Set by `load()`, which the constructor's caller runs at once. */
  private current!: LedgerStore;
  /** The delta read with it (persistence/indexDelta.ts): saves of a few changes since the file was written whole. */
  private delta: LoadedDelta | undefined;
  /** A journal an earlier version left: replayed on every load until a write merges it. */
  private legacyJournal: FileIdentity | undefined;
  /** Something not counted as a generation (file stamps, a migration) must be saved by the next write. */
  private unsaved = false;

  private constructor(
    readonly file: string,
    private readonly sql: SqlJsStatic,
    private readonly options: OpenOptions,
  ) {}

  get lockFile(): string {
    return `${this.file}.lock`;
  }

  /** Where an earlier version kept its journal (read once for the migration, then removed). */
  get journalFile(): string {
    return `${this.file}.journal`;
  }

  /** The in-memory store as last loaded; call `refresh()` first to see other writers' changes. */
  get store(): LedgerStore {
    return this.current;
  }

  /**
   * Which saved database the store holds (inode, size, time), for what a session keeps beside
   * it about its content; undefined when the store is not what a file holds (none saved yet,
   * or an earlier version's journal replayed onto it).
   */
  get savedAs(): string | undefined {
    if (!this.loaded || this.legacyJournal) return undefined;
    return indexIdentity(this.loaded, this.delta?.identity);
  }

  get deltaFile(): string {
    return deltaFileOf(this.file);
  }

  /** Whether an earlier version's journal is still beside the database (not merged yet). */
  get hasLegacyJournal(): boolean {
    return this.legacyJournal !== undefined;
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
    const ledger = new LedgerFile(absolute, sql, options);
    ledger.load();
    return ledger;
  }

  /** Loads the file and its delta (a missing file is a new, empty store); a damaged one is moved aside and the store starts empty. */
  private load(): void {
    const clock = this.options.clock ?? systemClock;
    let read = readWithIdentity(this.file);
    let store: LedgerStore;
    try {
      store = LedgerStore.open(this.sql, read.bytes, clock);
    } catch (error) {
      if (!(error instanceof CorruptDatabaseError)) throw error;
      const aside = `${this.file}.corrupt-${timestampForFileName(clock.now())}`;
      fs.renameSync(this.file, aside);
      this.options.say?.(
        `${this.file} is not a valid ledger database (${error.message}); it was moved to ${aside} (nothing was deleted) and a new one is built` +
          (this.options.durable ? '. This ledger has no artifact files to build it from: import your last JSONL export into it.' : ' from the artifact files.'),
      );
      store = LedgerStore.open(this.sql, undefined, clock);
      this.current = store;
      this.loaded = undefined;
      this.delta = undefined;
      this.legacyJournal = undefined;
      return;
    }
    this.legacyJournal = read.identity ? replayLegacyJournal(this.journalFile, read.identity, store) : undefined;
    let applied = applyDelta(this.file, read.identity, store);
    // A writer that saved the database whole while this one read it left a delta for its new file: read both again.
    for (let tries = 0; tries < 3 && !sameIdentity(identityOf(this.file), read.identity); tries++) {
      store.close();
      read = readWithIdentity(this.file);
      store = LedgerStore.open(this.sql, read.bytes, clock);
      this.legacyJournal = read.identity ? replayLegacyJournal(this.journalFile, read.identity, store) : undefined;
      applied = applyDelta(this.file, read.identity, store);
    }
    // What the delta held is saved: only what changes after it is pending (unless a line did not apply: then the next save is whole).
    if (applied.whole) store.changesSaved();
    else store.mustSaveWhole();
    this.current = store;
    this.loaded = read.identity;
    this.delta = applied.delta;
  }

  /** Re-reads the file if another process replaced it since it was loaded. Returns whether it did. */
  refresh(): boolean {
    if (sameIdentity(identityOf(this.file), this.loaded) && (this.loaded !== undefined || !fs.existsSync(this.file)) && sameIdentity(identityOf(this.deltaFile), this.delta?.identity)) return false;
    const before = this.current;
    this.load();
    if (before !== this.current) before.close();
    this.unsaved = false;
    return true;
  }

  /** The next write saves the database even if `fn` changes no ledger data (file stamps, a migration). */
  markUnsaved(): void {
    this.unsaved = true;
  }

  /**
   * Applies `fn` under the write lock to the freshest data and saves the result when it
   * changed anything. If `fn` throws, nothing is written and the in-memory store is
   * reloaded from disk.
   */
  async write<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    assertWritable(this.file);
    refuseLinkedParts(this.file);
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
      if (this.current.generation !== before || this.unsaved || this.legacyJournal || !fs.existsSync(this.file)) this.persist();
      faultPoint('write-done');
      return result;
    } finally {
      release();
    }
  }

  private reloadAfterFailure(): void {
    this.loaded = undefined;
    this.delta = undefined;
    this.unsaved = false;
    this.refresh();
  }

  /**
   * Saves what changed: appended to the delta when it is a few changes to a saved database
   * (persistence/indexDelta.ts), else the whole database (folding the delta in).
   */
  private persist(): void {
    if (!this.appendDelta(this.current.pendingChanges())) this.persistWhole();
  }

  /** Appends `changes` to the delta when they fit there (a few changes to a saved database); false when they do not. */
  private appendDelta(changes: ReturnType<LedgerStore['pendingChanges']>): boolean {
    if (changes === undefined || this.loaded === undefined || this.legacyJournal || this.current.mostlyFree) return false;
    const line = changesLine(changes);
    if (!fitsDelta(this.delta, line, this.loaded.size)) return false;
    removeDeadWritersFiles(this.file);
    faultPoint('temp-written');
    this.delta = writeDelta(this.file, this.loaded, this.delta, line, this.options.durable);
    faultPoint('database-replaced');
    this.current.changesSaved();
    this.unsaved = false;
    return true;
  }

  /**
   * Saves what a read computed and the index keeps (token counts, term vectors: facts about
   * content, not ledger data) to the delta, when the lock is free at once and the database is
   * as loaded; else leaves it to the next write. Never waits on another writer, never writes
   * the whole database. True when it saved something.
   */
  async saveDerived(): Promise<boolean> {
    let release: () => void;
    try {
      assertWritable(this.file);
      refuseLinkedParts(this.file);
      release = await acquireLock(this.lockFile, this.file, 0);
    } catch {
      return false;
    }
    try {
      if (this.unsaved || this.refresh()) return false;
      const changes = this.current.pendingChanges();
      return changes !== undefined && changes.length > 0 && this.appendDelta(changes);
    } finally {
      release();
    }
  }

  /**
   * The whole database to a temporary file created exclusively (`O_EXCL`: a name that
   * exists, link or not, is never opened), renamed over the database (a rename replaces a
   * link at the name, never its target); then the delta it folded in goes.
   */
  private persistWhole(): void {
    // `export()` flushes pending caches into their tables first.
    const bytes = this.current.export();
    removeDeadWritersFiles(this.file);
    const temp = `${this.file}.tmp-${process.pid}`;
    fs.rmSync(temp, { force: true });
    try {
      const fd = fs.openSync(temp, 'wx');
      try {
        fs.writeSync(fd, bytes, 0, bytes.length, 0);
        faultPoint('temp-written');
        if (this.options.durable) fs.fdatasyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
    fs.renameSync(temp, this.file);
    faultPoint('database-replaced');
    // A kill here leaves the old delta beside the new file: it names the old one, so it is ignored.
    fs.rmSync(this.deltaFile, { force: true });
    this.delta = undefined;
    this.current.changesSaved();
    this.loaded = identityOf(this.file);
    this.unsaved = false;
    if (this.legacyJournal) {
      // Merged into the database just written: an earlier version's journal, backup and its journal go.
      for (const old of [this.journalFile, `${this.file}.bak`, `${this.file}.bak.journal`]) fs.rmSync(old, { force: true });
      this.legacyJournal = undefined;
    }
  }

  close(): void {
    this.current.close();
  }
}

/** A write to the ledger of `file` is refused when the database or its folder is read-only (UserError saying so). */
export function assertWritable(file: string): void {
  try {
    const stat = fs.statSync(file);
    // Root ignores permission bits, so check them rather than trusting access(W_OK).
    if ((stat.mode & 0o222) === 0) {
      throw new UserError(`The database ${file} is read-only.`, 'Make it writable (chmod u+w) or pass another --db path.');
    }
  } catch (error) {
    if (error instanceof UserError) throw error;
  }
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
  } catch {
    throw new UserError(`Cannot write in the folder ${path.dirname(file)}.`, 'Check its permissions or pass another --db path.');
  }
}

/** The ledger's own files (its folder, the database, the lock), refused when one of them is a link (see persistence/noLinks.ts). */
export function refuseLinkedParts(file: string): void {
  const folder = path.dirname(file);
  if (path.basename(folder) === LEDGER_FOLDER) refuseLink(folder, `the ledger folder ${LEDGER_FOLDER}`);
  refuseLink(file, 'the database');
  refuseLink(`${file}.lock`, 'its lock file');
}
