/**
 * Migration from the database-first layout (Context Ledger up to issue 42): the database was
 * where a write was first saved, with a journal of recent adds and builds beside it
 * (`ledger.db.journal`), a backup (`ledger.db.bak`) and the Markdown mirror written after it,
 * its state in `ledger.db.sync.json`. A kill between the database and its files, or a mirror
 * turned off, left chains whose latest version was in the database only.
 *
 * Before the files become the ledger, every such chain gets its file written, so nothing is
 * lost: the journal was already replayed into the store on loading (LedgerFile), and
 * `sync.json` tells a file behind the database (as the last sync left it, while the database
 * changed since) from a teammate's edit (the file changed: imported as a new version by the
 * import that follows). The stamps it recorded seed the index's, so the first open after the
 * update reads only the files that changed. Then `sync.json` goes; the database write that
 * follows merges the journal and removes it with the backup.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderMirrorFile } from '../core/formats/mirror';
import type { LedgerStore } from '../core/store';
import { hashOf, legacyStateFile, statOf } from './artifactFolder';
import { OutputFolder } from './outputFolder';


interface LegacyState {
  chains?: Record<string, { path: string | null; hash: string; db?: string }>;
  stamps?: Record<string, { size: number; mtimeMs: number; hash: string }>;
}

/**
 * Writes the file of every chain whose latest version the database had and its file did
 * not (the caller holds the lock), seeds the index's stamps, and removes `sync.json`.
 * Returns the files written.
 */
export function migrateLegacyState(store: LedgerStore, dbFile: string, dir: string): string[] {
  const file = legacyStateFile(dbFile);
  let state: LegacyState = {};
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8')) as LegacyState;
  } catch {
    // Unreadable: every file is read and compared by the import that follows.
  }
  const written: string[] = [];
  if (fs.existsSync(dir) || Object.keys(state.chains ?? {}).length > 0) {
    const folder = new OutputFolder(dir);
    const seeded = new Set<string>();
    for (const [chainId, entry] of Object.entries(state.chains ?? {})) {
      if (!entry.path) continue;
      const latest = store.latestOfChain(chainId);
      if (!latest) continue;
      const text = folder.read(entry.path);
      const rendered = renderMirrorFile(latest).content;
      const fileAsSynced = text !== undefined && hashOf(text) === entry.hash;
      const databaseChanged = hashOf(rendered) !== (entry.db ?? entry.hash);
      if (fileAsSynced && databaseChanged) {
        // An unsynced write: the database is ahead of the file.
        folder.write(entry.path, rendered, { durable: true });
        written.push(entry.path);
      } else if (text === undefined || !fileAsSynced) {
        // Deleted or edited since the last sync: the import that follows decides, as the files are the ledger.
        continue;
      }
      const stat = statOf(path.join(folder.root, entry.path));
      const hash = fileAsSynced && databaseChanged ? hashOf(rendered) : entry.hash;
      if (stat) store.putFileStamp({ path: entry.path, chainId, size: stat.size, mtimeMs: stat.mtimeMs, hash });
      seeded.add(entry.path);
    }
  }
  fs.rmSync(file, { force: true });
  return written;
}
