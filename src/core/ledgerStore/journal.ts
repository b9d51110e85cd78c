import type { Connection } from './connection';
import type { Artifacts } from './artifacts';
import type { FeedbackLog } from './feedback';
import type { TermVectors, TokenCounts } from './derivedCaches';
import { isJournalRecord } from './journalRecords';

/**
 * Replays the records of the journal an earlier version kept beside its database (its adds
 * and logged builds; src/node/persistence/journal.ts reads the file) onto the store, for the
 * migration: the first write after it saves them into the database. This version writes no
 * journal. A record that is not one an earlier version wrote (a damaged line) is skipped.
 */
export function replayJournal(
  parts: { conn: Connection; artifacts: Artifacts; feedback: FeedbackLog; tokenCounts: TokenCounts; termVectors: TermVectors },
  records: readonly unknown[],
): void {
  const { conn, artifacts, feedback, tokenCounts, termVectors } = parts;
  conn.transaction(() => {
    for (const record of records) {
      if (!isJournalRecord(record)) continue;
      if (record.op === 'log') feedback.insertLogRow(record.entry);
      else if (record.op === 'artifact') {
        // Replayed once per database it was written for; a row already there (or a
        // version number taken meanwhile) means the record is not this database's.
        const a = record.artifact;
        if (!artifacts.exists(a.id) && !artifacts.versionTaken(a.chainId, a.version)) artifacts.insert(a);
      }
      else if (record.op === 'injected') feedback.incrementInjected(record.ids);
      else if (record.op === 'vectors') termVectors.replay(record);
      else for (const [hash, tokenizer, count] of record.counts) tokenCounts.putTokenCount(hash, tokenizer, count);
    }
  });
}
