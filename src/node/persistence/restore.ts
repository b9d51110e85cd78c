/**
 * `restore`: the database replaced by its last good copy (`<db>.bak`) plus the
 * artifacts the journals added since.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { UserError } from '../../core/model';
import { type Clock, LedgerStore } from '../../core/store';
import { readWithIdentity, timestampForFileName } from './fileIdentity';
import { applyJournalLines } from './journal';
import { refuseLink } from './noLinks';

/**
 * Replaces the database with its last good copy, plus the artifacts its journal added
 * since (an `add` is journaled, so the backup predates it; a journaled artifact carries
 * its whole row and body hash, so it is safe to replay onto an older copy). The
 * current file and journal are kept aside. Says where the replaced file went and how
 * many artifacts came back from the journals.
 */
export function restoreBackup(file: string, sql: SqlJsStatic, clock: Clock): { aside: string | undefined; fromJournal: number } {
  const absolute = path.resolve(file);
  const backup = `${absolute}.bak`;
  const journal = `${absolute}.journal`;
  refuseLink(backup, 'the backup');
  refuseLink(absolute, 'the database');
  if (!fs.existsSync(backup)) throw new UserError(`There is no backup at ${backup}.`);
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
  fs.writeFileSync(absolute, bytes, { flag: 'wx' });
  return { aside, fromJournal };
}
