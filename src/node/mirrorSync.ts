/**
 * The Markdown mirror sync (`context-ledger sync` and the editor command): brings the mirror (one file per chain, see
 * src/core/formats/mirror.ts) and the database together, both ways.
 *
 * What each side looked like at the last sync is kept beside the database
 * (`<db>.sync.json`: per chain, its file and the hash of the text written), so a change
 * is told from a non-change: a new file becomes an artifact, an edited file a new
 * version (or a status / pin change), a deleted file archives its chain, a changed
 * artifact rewrites its file. When both sides changed, the database keeps its version,
 * the file gets it too, and the edited file is copied aside for the user to merge:
 * nothing is lost.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mirrorSlug, parseMirrorFile, renderMirrorFile } from '../core/formats/mirror';
import { type Artifact, type ArtifactInput, UserError } from '../core/model';
import type { LedgerStore } from '../core/store';
import { OutputFolder } from './outputFolder';
import { faultPoint } from './persistence/faultInjection';
import { listFolder, readFolderFiles } from './sourceFolder';

interface SyncState {
  version: 1;
  /** The mirror folder this state belongs to (real path). */
  folder: string;
  /** Per chain: the file it was written to (null once its file was deleted) and the hash of that text. */
  chains: Record<string, { path: string | null; hash: string }>;
  /**
   * New files (no id yet) a sync is importing, recorded before its database write: a
   * kill after that write but before the files get their ids would otherwise make the
   * next sync import them again. Per path: the hash of the file as read, and the
   * artifact it became (present in the database only if that write happened).
   */
  pending?: Record<string, { hash: string; chainId: string; artifactId: string }>;
}

export interface SyncReport {
  folder: string;
  added: string[];
  updated: string[];
  archived: string[];
  written: string[];
  removed: string[];
  conflicts: { chainId: string; path: string; copy?: string; note: string }[];
  problems: { path: string; message: string }[];
}

/** Line endings do not count as a change (git may convert them). */
function hashOf(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

function readState(file: string, folder: string): SyncState {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as SyncState;
    if (state.version === 1 && state.folder === folder && typeof state.chains === 'object') return state;
  } catch {
    // None yet (or unreadable): everything is compared without a base.
  }
  return { version: 1, folder, chains: {} };
}

function writeState(file: string, state: SyncState): void {
  const temp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temp, `${JSON.stringify(state, null, 1)}\n`);
  fs.renameSync(temp, file);
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

interface MirrorEntry {
  path: string;
  content: string;
  input: ArtifactInput;
}

/** Does the whole sync on an open store (under the write lock); returns the file work to do after it is saved. */
function plan(
  store: LedgerStore,
  state: SyncState,
  files: MirrorEntry[],
  held: ReadonlySet<string>,
  report: SyncReport,
): { writes: Map<string, string>; removes: string[]; copies: Map<string, string>; pending: NonNullable<SyncState['pending']> } {
  const pending: NonNullable<SyncState['pending']> = {};
  const writes = new Map<string, string>();
  const removes: string[] = [];
  const copies = new Map<string, string>();
  const taken = new Set<string>(files.map((f) => f.path));
  for (const entry of Object.values(state.chains)) if (entry.path) taken.add(entry.path);

  // The text of a file does not depend on its name.
  const render = (artifact: Artifact): string => renderMirrorFile(artifact).content;
  const newPath = (artifact: Artifact): string => {
    let slug = mirrorSlug(artifact.title, artifact.chainId);
    if (taken.has(`${artifact.type}/${slug}.md`)) slug = `${slug}-${createHash('sha256').update(artifact.chainId).digest('hex').slice(0, 8)}`;
    const at = `${artifact.type}/${slug}.md`;
    taken.add(at);
    return at;
  };
  const writeFile = (chainId: string, artifact: Artifact, at: string): void => {
    const content = render(artifact);
    writes.set(at, content);
    state.chains[chainId] = { path: at, hash: hashOf(content) };
  };
  const conflictCopy = (file: MirrorEntry): string => {
    const copy = `${file.path.replace(/\.md$/, '')}.conflict-${timestamp(store.clock.now())}.md`;
    copies.set(copy, file.content);
    return copy;
  };

  const fileByChain = new Map<string, MirrorEntry>();
  const fresh: MirrorEntry[] = [];
  for (const file of files) {
    const chainId = file.input.chainId ?? file.input.id;
    if (!chainId) {
      fresh.push(file);
    } else if (fileByChain.has(chainId)) {
      report.problems.push({ path: file.path, message: `claims chain "${chainId}", like ${fileByChain.get(chainId)!.path}; left out (remove its id, chainId and version lines to make it a new artifact)` });
    } else {
      fileByChain.set(chainId, file);
    }
  }
  const latest = new Map(store.latestArtifacts().map((a) => [a.chainId, a]));
  const chains = new Set([...latest.keys(), ...fileByChain.keys(), ...Object.keys(state.chains)]);

  for (const chainId of [...chains].sort()) {
    if (held.has(chainId)) continue;
    const base = state.chains[chainId];
    const file = fileByChain.get(chainId);
    const db = latest.get(chainId);
    const at = file?.path ?? base?.path ?? undefined;
    const fileChanged = file ? !base || hashOf(file.content) !== base.hash : base?.path != null;
    const dbChanged = db ? !base || hashOf(render(db)) !== base.hash : base !== undefined;

    if (!fileChanged && !dbChanged) {
      if (base && file && base.path !== file.path) base.path = file.path;
      continue;
    }
    if (!base) {
      // No record of an earlier sync: the side with the higher version wins; a tie with different text is a conflict.
      if (file && !db) {
        const { artifact } = store.importArtifact(file.input);
        report.added.push(artifact.id);
        writeFile(chainId, artifact, file.path);
      } else if (db && !file) {
        writeFile(chainId, db, newPath(db));
      } else if (db && file) {
        const fileVersion = file.input.version ?? 0;
        if (hashOf(render(db)) === hashOf(file.content)) {
          state.chains[chainId] = { path: file.path, hash: hashOf(file.content) };
        } else if (fileVersion > db.version) {
          const { artifact } = store.importArtifact(file.input);
          report.updated.push(artifact.id);
          writeFile(chainId, store.latestOfChain(chainId) ?? artifact, file.path);
        } else {
          const copy = fileVersion === db.version ? conflictCopy(file) : undefined;
          writeFile(chainId, db, file.path);
          if (copy) report.conflicts.push({ chainId, path: file.path, copy, note: 'file and ledger differ at the same version' });
        }
      }
      continue;
    }
    if (fileChanged && !dbChanged) {
      if (file && db) {
        const before = db.id;
        const { outcome } = store.importArtifact(file.input);
        const after = store.latestOfChain(chainId)!;
        if (outcome !== 'unchanged') report.updated.push(after.id === before ? `${after.id} (status or pin)` : after.id);
        writeFile(chainId, after, file.path);
      } else if (file && !db) {
        const { artifact } = store.importArtifact(file.input);
        report.added.push(artifact.id);
        writeFile(chainId, artifact, file.path);
      } else if (db) {
        // The file was deleted: archive (never delete) the chain, and leave the file deleted.
        const archived = db.status === 'active' ? store.archive(db.id) : db;
        if (db.status === 'active') report.archived.push(archived.id);
        state.chains[chainId] = { path: null, hash: hashOf(render(archived)) };
      } else {
        delete state.chains[chainId];
      }
      continue;
    }
    if (dbChanged && !fileChanged) {
      if (db) {
        writeFile(chainId, db, at ?? newPath(db));
      } else {
        // Deleted for good in the ledger: its unchanged file goes too.
        if (base.path) removes.push(base.path);
        delete state.chains[chainId];
      }
      continue;
    }
    // Both changed since the last sync.
    if (db && file) {
      const copy = conflictCopy(file);
      writeFile(chainId, db, file.path);
      report.conflicts.push({ chainId, path: file.path, copy, note: 'changed in the file and in the ledger; the file now has the ledger version, your edit is in the copy' });
    } else if (db) {
      writeFile(chainId, db, base.path ?? newPath(db));
      report.conflicts.push({ chainId, path: state.chains[chainId]!.path!, note: 'the file was deleted but the ledger changed it; written again (delete it again to archive)' });
    } else if (file) {
      const { artifact } = store.importArtifact(file.input);
      report.added.push(artifact.id);
      writeFile(chainId, artifact, file.path);
      report.conflicts.push({ chainId, path: file.path, note: 'deleted in the ledger but edited in the file; imported again from the file' });
    } else {
      delete state.chains[chainId];
    }
  }

  for (const file of fresh) {
    const { artifact } = store.importArtifact(file.input);
    report.added.push(artifact.id);
    writeFile(artifact.chainId, artifact, file.path);
    pending[file.path] = { hash: hashOf(file.content), chainId: artifact.chainId, artifactId: artifact.id };
  }
  return { writes, removes, copies, pending };
}

export interface SyncOptions {
  /** The database file: the state and the conflict copies are kept beside it. */
  dbFile: string;
  /** The mirror folder (default: `artifacts` beside the database). */
  dir?: string;
  /** Runs `fn` under the ledger's write lock on the freshest data, and persists. */
  write<T>(fn: (store: LedgerStore) => T): Promise<T>;
}

export async function syncMirror(options: SyncOptions): Promise<SyncReport> {
  const { dbFile } = options;
  const folder = new OutputFolder(options.dir ?? path.join(path.dirname(dbFile), 'artifacts'));
  const stateFile = `${dbFile}.sync.json`;
  const conflicts = new OutputFolder(path.join(path.dirname(dbFile), 'sync-conflicts'));
  const report: SyncReport = { folder: folder.root, added: [], updated: [], archived: [], written: [], removed: [], conflicts: [], problems: [] };

  const work = await options.write((store) => {
    const listing = listFolder(folder.root);
    const mdPaths = listing.paths.filter((p) => p.endsWith('.md') && !/\.conflict-[0-9TZ]+\.md$/.test(p));
    const read = readFolderFiles(folder.root, mdPaths);
    for (const s of [...listing.skipped, ...read.skipped]) report.problems.push({ path: s.where, message: s.reason });
    const state = readState(stateFile, folder.root);
    const entries: MirrorEntry[] = [];
    for (const f of read.files) {
      try {
        const input = parseMirrorFile(f.path, f.content);
        // A new file a killed sync imported (its artifact is in the database) but could not give its id: it is that artifact's file.
        const imported = state.pending?.[f.path];
        if (imported && !input.chainId && !input.id && hashOf(f.content) === imported.hash && store.getArtifact(imported.artifactId)) input.chainId = imported.chainId;
        entries.push({ path: f.path, content: f.content, input });
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        report.problems.push({ path: f.path, message: error.message.replace(`${f.path}: `, '') });
      }
    }
    // A file that cannot be read this time keeps its chain untouched: nothing is overwritten or archived.
    const unreadable = new Set(report.problems.map((p) => p.path));
    const held = new Set(Object.entries(state.chains).filter(([, entry]) => entry.path !== null && unreadable.has(entry.path)).map(([chainId]) => chainId));
    const recorded = { ...state, chains: { ...state.chains } };
    const work = store.transaction(() => plan(store, state, entries, held, report));
    // Recorded before the database is written (this function runs before it is saved).
    if (Object.keys(work.pending).length > 0) writeState(stateFile, { ...recorded, pending: work.pending });
    faultPoint('sync-pending-recorded');
    return { ...work, state };
  });
  faultPoint('sync-database-written');
  // Files follow the saved database: a crash in between is repaired by the next sync.
  for (const [at, text] of work.copies) conflicts.write(at, text);
  for (const conflict of report.conflicts) if (conflict.copy) conflict.copy = path.join(conflicts.root, conflict.copy);
  for (const [at, text] of work.writes) {
    if (folder.read(at) !== text) {
      folder.write(at, text);
      report.written.push(at);
    }
  }
  for (const at of work.removes) {
    folder.remove(at);
    report.removed.push(at);
  }
  faultPoint('sync-files-written');
  delete work.state.pending;
  writeState(stateFile, work.state);
  return report;
}
