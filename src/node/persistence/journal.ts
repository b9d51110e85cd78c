/**
 * The journal an earlier version kept beside its database (`<db>.journal`): small writes (a
 * build's log row, an add) appended as JSON lines, its first line naming the database file it
 * was written for. This version writes none; a ledger an earlier version left with one has it
 * replayed on loading and merged by the first write (docs/storage.md, "Migration").
 */
import type { LedgerStore } from '../../core/store';
import { type FileIdentity, readWithIdentity, sameIdentity } from './fileIdentity';

/**
 * Replays the journal `file` onto `store` if it was written for the database file `base`
 * (a journal for a database since replaced is ignored: a full write already put its records
 * in). A line cut short by a crash is skipped; the lines before it count. Returns the
 * journal's identity when it applied (the next write must merge it), else undefined.
 */
export function replayLegacyJournal(file: string, base: FileIdentity, store: LedgerStore): FileIdentity | undefined {
  const { bytes, identity } = readWithIdentity(file);
  if (!bytes || !identity) return undefined;
  const lines = bytes.toString('utf8').split('\n');
  const header = parseJournalLine(lines[0]) as { base?: FileIdentity } | undefined;
  if (!header?.base || !sameIdentity(header.base, base)) return undefined;
  for (const line of lines.slice(1)) {
    const records = (parseJournalLine(line) as { records?: unknown } | undefined)?.records;
    if (!Array.isArray(records)) continue;
    try {
      store.applyLegacyJournal(records);
    } catch {
      // Records SQLite refuses (a damaged line) are rolled back and skipped; the rest still count.
    }
  }
  return identity;
}

function parseJournalLine(line: string | undefined): unknown {
  if (!line) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
