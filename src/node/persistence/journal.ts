/**
 * The journal beside a database (`<db>.journal`): small writes (a build's log row, an
 * add) are appended here as JSON lines instead of rewriting the whole database. Its
 * first line names the database file it was written for; every reader replays it on
 * loading, and the next full write merges it.
 */
import * as fs from 'node:fs';
import type { JournalRecord, LedgerStore } from '../../core/store';
import { faultPoint } from './faultInjection';
import { LedgerUnavailableError } from './noLinks';
import { type FileIdentity, identityOf, readWithIdentity, sameIdentity } from './fileIdentity';

/**
 * A journal past this size is merged into the database by the next write instead of
 * growing: every reader replays it on opening (a few ms per build record on a large
 * ledger, so about seven records of a 10,000-artifact ledger's builds).
 */
export const JOURNAL_LIMIT = 256 * 1024;

export interface JournalState {
  /** The journal file as loaded (undefined: there was none). */
  identity: FileIdentity | undefined;
  /** It belongs to the database as loaded (its header names that file), so it was replayed. */
  applies: boolean;
  /** Its last line is complete; else the next record starts on a new line. */
  endsWithNewline: boolean;
}

export const NO_JOURNAL: JournalState = { identity: undefined, applies: false, endsWithNewline: true };

/**
 * Replays the journal `file` onto `store` if it was written for the database file
 * `base` (a journal for a database since replaced is ignored: a full write already
 * put its records in). A line cut short by a crash is skipped; the lines before it count.
 */
export function replayJournal(file: string, base: FileIdentity | undefined, store: LedgerStore): JournalState {
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
export function applyJournalLines(lines: readonly string[], store: LedgerStore, only?: ReadonlySet<JournalRecord['op']>): void {
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

/**
 * Appends `records` to the journal `file` of the database loaded as `base` (under the
 * write lock), given the journal's state as loaded. Returns the journal's new state, or
 * undefined when the database must be written whole instead: the journal is due to be merged.
 */
export function appendJournal(file: string, base: FileIdentity, state: JournalState, records: JournalRecord[]): JournalState | undefined {
  const line = `${JSON.stringify({ records })}\n`;
  const fresh = !state.applies;
  const size = fresh ? 0 : (state.identity?.size ?? 0);
  if (size + Buffer.byteLength(line) > JOURNAL_LIMIT) return undefined;
  const text = fresh ? `${JSON.stringify({ journal: 1, base })}\n${line}` : `${state.endsWithNewline ? '' : '\n'}${line}`;
  const fd = openJournal(file, fresh);
  if (fd === undefined) return undefined;
  try {
    faultPoint('journal-opened');
    fs.writeSync(fd, text);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { identity: identityOf(file), applies: true, endsWithNewline: true };
}

/**
 * Opens the journal to write, never through a link. A journal started over gets a new file:
 * the old name is removed first (a hard link there loses one name; the file it shares with,
 * maybe outside the ledger, is not truncated), then created exclusively. One appended to is
 * opened without following a symbolic link; if it has another name (a hard link: a crash
 * between linking the backup's journal and removing this one, or a planted link) undefined is
 * returned, and the write goes to the database whole, which removes the journal's name.
 */
function openJournal(file: string, fresh: boolean): number | undefined {
  const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW } = fs.constants;
  try {
    if (fresh) {
      fs.rmSync(file, { force: true });
      return fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW ?? 0));
    }
    const fd = fs.openSync(file, O_WRONLY | O_APPEND | (O_NOFOLLOW ?? 0));
    if (fs.fstatSync(fd).nlink > 1) {
      fs.closeSync(fd);
      return undefined;
    }
    return fd;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: a symbolic link at the name (O_NOFOLLOW); EEXIST: one planted since it was removed.
    if (code === 'ELOOP' || code === 'EEXIST') {
      throw new LedgerUnavailableError(
        `Refusing to write ${file}: the journal became a link while writing, and writing through it would change a file outside the ledger.`,
        'Remove the link (the ledger recreates its journal) and try again.',
      );
    }
    throw error;
  }
}
