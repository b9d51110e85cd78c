import type { Database, SqlValue, Statement } from 'sql.js';

/** One write statement and its parameters, as run: what a small save appends to the index's delta (src/node/indexDelta.ts). */
export type Change = [sql: string, params: SqlValue[]];

/**
 * Past this many bytes of parameters the changes since the last save are not kept: a save that
 * large (an import of thousands, a first index) writes the whole database anyway.
 */
const CHANGES_KEPT_BYTES = 8 * 1024 * 1024;

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The one sql.js database every part of the store reads and writes through: statements
 * prepared once, transactions that nest, and `generation`, bumped on every write so
 * callers can cache what they derive from the ledger.
 */
export class Connection {
  /** Bumped on every write so callers can cache derived data (e.g. a search index). */
  generation = 0;
  /**
   * Bumped when rows may have changed other than through the statement a caller just ran: a
   * ROLLBACK (what the transaction wrote is undone) or a replayed delta. A table kept in
   * memory beside the database (the file stamps) is read again after either.
   */
  untracked = 0;
  private transactionDepth = 0;
  /** Prepared once, reused: preparing a statement per call dominated bulk imports. */
  private readonly statements = new Map<string, Statement>();
  /**
   * Every write statement since the database was loaded or last saved, in order (undefined:
   * too many to keep, or a change no statement replays, such as a schema migration on open).
   * A save of a few changes appends these to the index's delta instead of writing it whole.
   */
  private changes: Change[] | undefined = [];
  private changeBytes = 0;

  constructor(
    readonly db: Database,
    readonly clock: Clock,
  ) {}

  nowIso(): string {
    return this.clock.now().toISOString();
  }

  close(): void {
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
    this.db.close();
  }

  prepared(sqlText: string): Statement {
    let statement = this.statements.get(sqlText);
    if (!statement) {
      statement = this.db.prepare(sqlText);
      this.statements.set(sqlText, statement);
    }
    return statement;
  }

  /** Runs `fn` in one SQLite transaction: all of it applies or none. */
  transaction<T>(fn: () => T): T {
    // Nested calls join the outermost transaction; SQLite has no nested BEGIN.
    if (this.transactionDepth > 0) {
      this.transactionDepth++;
      try {
        return fn();
      } finally {
        this.transactionDepth--;
      }
    }
    this.db.exec('BEGIN');
    this.transactionDepth = 1;
    const mark = this.changes?.length;
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      this.untracked++;
      this.dropChangesFrom(mark);
      throw error;
    } finally {
      this.transactionDepth = 0;
      this.generation++;
    }
  }

  /**
   * Writes derived data (token counts, term vectors) in one transaction of its own, or in
   * the one already open. Derived data are facts about content, not ledger data: writing
   * them is not a generation.
   */
  writeDerived(write: () => void): void {
    if (this.transactionDepth > 0) {
      write();
      return;
    }
    this.db.exec('BEGIN');
    const mark = this.changes?.length;
    try {
      write();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      this.untracked++;
      this.dropChangesFrom(mark);
      throw error;
    }
  }

  private dropChangesFrom(mark: number | undefined): void {
    if (mark === undefined || this.changes === undefined) return;
    for (const [, params] of this.changes.splice(mark)) this.changeBytes -= paramBytes(params);
  }

  private record(sqlText: string, params: SqlValue[]): void {
    if (this.changes === undefined) return;
    this.changeBytes += paramBytes(params) + sqlText.length;
    if (this.changeBytes > CHANGES_KEPT_BYTES) this.changes = undefined;
    else this.changes.push([sqlText, params]);
  }

  /** The write statements since the last `changesSaved` (undefined: too many, or not replayable: save the whole database). */
  get pendingChanges(): readonly Change[] | undefined {
    return this.changes;
  }

  /** What `pendingChanges` held is in the saved index now (the whole database, or its delta). */
  changesSaved(): void {
    this.changes = [];
    this.changeBytes = 0;
  }

  /** A change no list of statements says (a migration, a restored copy): the next save writes the whole database. */
  changesNotReplayable(): void {
    this.changes = undefined;
  }

  /** Runs statements a delta recorded (already saved, so not recorded again), in one transaction. */
  replay(changes: readonly Change[]): void {
    const kept = this.changes;
    this.changes = undefined;
    this.untracked++;
    try {
      this.transaction(() => {
        for (const [sqlText, params] of changes) {
          if (params.length === 0) this.db.exec(sqlText);
          else this.prepared(sqlText).run(params);
        }
      });
    } finally {
      this.changes = kept;
    }
  }

  /** A statement with no parameters that changes the database (a table made on first use): recorded like `exec`. */
  execRaw(sqlText: string): void {
    this.db.exec(sqlText);
    this.record(sqlText, []);
  }

  scalar(sqlText: string, params: SqlValue[] = []): SqlValue {
    const stmt = this.prepared(sqlText);
    try {
      stmt.bind(params);
      return stmt.step() ? (stmt.get()[0] ?? null) : null;
    } finally {
      stmt.reset();
    }
  }

  rows(sqlText: string, params: SqlValue[] = []): Record<string, SqlValue>[] {
    const rows = this.rowValues(sqlText, params);
    if (rows.length === 0) return [];
    // Column names once per query: sql.js's getAsObject() asks SQLite for them on every row.
    const names = this.prepared(sqlText).getColumnNames();
    return rows.map((values) => {
      const row: Record<string, SqlValue> = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]!;
      return row;
    });
  }

  /** Rows as arrays of column values, in the query's column order. */
  rowValues(sqlText: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.prepared(sqlText);
    const out: SqlValue[][] = [];
    try {
      stmt.bind(params);
      while (stmt.step()) out.push(stmt.get());
    } finally {
      stmt.reset();
    }
    return out;
  }

  /** Executes a write statement (prepared once and cached). */
  exec(sqlText: string, params: SqlValue[] = []): void {
    this.prepared(sqlText).run(params);
    this.record(sqlText, params);
  }

  /** Executes a write statement and counts it as a generation (for a write made outside `transaction`). */
  run(sqlText: string, params: SqlValue[] = []): void {
    this.exec(sqlText, params);
    this.generation++;
  }

  hasTable(name: string): boolean {
    return this.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) !== null;
  }
}

function paramBytes(params: readonly SqlValue[]): number {
  let n = 16;
  for (const p of params) n += typeof p === 'string' ? p.length : p instanceof Uint8Array ? p.length * 2 : 8;
  return n;
}

/** A JSON column's value, or `fallback` when it is empty or not JSON. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback;
  // Most rows hold empty lists and objects: skip the parser for them.
  if (text === '[]') return [] as T;
  if (text === '{}') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
