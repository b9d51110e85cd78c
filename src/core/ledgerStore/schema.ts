import type { Database, SqlJsStatic } from 'sql.js';
import { UserError } from '../model';
import { MIGRATIONS, SCHEMA_VERSION } from '../schema';
import type { Connection } from './connection';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** Whether `bytes` start like an SQLite database; an empty file counts as a new database. */
export function looksLikeSqlite(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return true;
  if (bytes.length < 100) return false;
  for (let i = 0; i < SQLITE_MAGIC.length; i++) if (bytes[i] !== SQLITE_MAGIC.charCodeAt(i)) return false;
  return true;
}

/** Thrown when bytes are not a ledger database; the adapter moves the file aside. */
export class CorruptDatabaseError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CorruptDatabaseError';
  }
}

/** Opens `bytes` (or a new, empty database) as sql.js; bytes that are not SQLite are a CorruptDatabaseError. */
export function openDatabase(sql: SqlJsStatic, bytes?: Uint8Array): Database {
  if (bytes && !looksLikeSqlite(bytes)) throw new CorruptDatabaseError('the file is not an SQLite database');
  try {
    const db = bytes && bytes.length > 0 ? new sql.Database(bytes) : new sql.Database();
    // Bodies average a few kB: 16 kB pages pack them with far less slack than 4 kB (1.3x vs 1.6x the text).
    if (!bytes || bytes.length === 0) db.exec('PRAGMA page_size = 16384');
    // The database lives in sql.js's in-memory file system and reaches the disk only when the
    // adapter saves its bytes: a rollback journal there is a second in-memory file grown by
    // copying at every page (a commit of a pull of 100 files spent ~0.1 s in it). SQLite's own
    // memory journal rolls back the same; a crash loses the process's memory either way.
    db.exec('PRAGMA journal_mode = MEMORY');
    return db;
  } catch (error) {
    throw new CorruptDatabaseError(`SQLite cannot read it (${(error as Error).message})`);
  }
}

/**
 * Free pages past this share of the file, and this many bytes, are given back before a full
 * write: a deleted row's pages stay in the file (sql.js exports every page) until VACUUM.
 * Day to day the log drops one row as it adds one, and the next build reuses the pages;
 * trimming an older database's long log, or deleting many artifacts, frees megabytes at
 * once. The bytes floor spares a small ledger a rewrite for a few pages.
 */
const FREE_SHARE_LIMIT = 0.25;
const FREE_BYTES_LIMIT = 1024 * 1024;

/**
 * Rebuilds the database without its free pages (VACUUM) when they are over a quarter of it
 * and over 1 MB. Only storage changes: rows, their ids and the schema version stay.
 */
export function compactIfMostlyFree(conn: Connection): void {
  if (mostlyFree(conn)) conn.db.exec('VACUUM');
}

/** Whether free pages are over a quarter of the database and over 1 MB (the next save should be whole, to give them back). */
export function mostlyFree(conn: Connection): boolean {
  const free = Number(conn.scalar('PRAGMA freelist_count'));
  const pages = Number(conn.scalar('PRAGMA page_count'));
  const pageSize = Number(conn.scalar('PRAGMA page_size'));
  return free * pageSize >= FREE_BYTES_LIMIT && free >= pages * FREE_SHARE_LIMIT;
}

export function schemaVersion(conn: Connection): number {
  return Number(conn.scalar('PRAGMA user_version'));
}

/**
 * Brings the schema up to date in one transaction. A database from a newer version is
 * refused (a user error), and one that is not a ledger's is a CorruptDatabaseError.
 */
export function migrate(conn: Connection): void {
  let current: number;
  try {
    current = schemaVersion(conn);
    // Reading a table proves the file is not garbage behind a valid header.
    conn.db.exec('SELECT name FROM sqlite_master LIMIT 1');
  } catch (error) {
    throw new CorruptDatabaseError(`SQLite cannot read it (${(error as Error).message})`);
  }
  if (current > SCHEMA_VERSION) {
    throw new UserError(
      `This ledger was written by a newer Context Ledger (schema ${current}; this version knows ${SCHEMA_VERSION}).`,
      'Update Context Ledger to open it.',
    );
  }
  if (current === 0 && conn.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'") !== 0) {
    throw new CorruptDatabaseError('it is an SQLite database, but not a Context Ledger one');
  }
  if (current === SCHEMA_VERSION) return;
  // The loaded bytes are not what is in memory now, and no recorded statement says so.
  conn.changesNotReplayable();
  conn.transaction(() => {
    for (let i = current; i < SCHEMA_VERSION; i++) conn.db.exec(MIGRATIONS[i]!);
    conn.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
}
