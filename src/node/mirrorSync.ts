/**
 * The Markdown mirror sync: brings the mirror (one file per chain, see
 * src/core/formats/mirror.ts) and the database together, both ways. It is how a team shares
 * a ledger through git, so it runs on its own: the CLI before every command that reads the
 * ledger and after every command that writes it, the extension on a change of either side
 * (`context-ledger sync` and **Sync Markdown Mirror** run it by hand).
 *
 * What each side looked like at the last sync is kept beside the database
 * (`<db>.sync.json`): per chain, its file, the hash of the file's text and the hash of the
 * ledger's version rendered; per file, its size and modification time. So a change is told
 * from a non-change, and a file whose size and time are as recorded is not even read: a
 * command after a `git pull` reads the files the pull changed, not the whole mirror.
 *
 * A new file becomes an artifact, an edited file a new version (by its git author when the
 * file is as committed), a deleted file archives its chain, a changed artifact rewrites its
 * file. A file is not rewritten only because the ledger would word it differently, so a
 * pull leaves `git status` clean. When both sides changed, both are kept as versions (the
 * file's on top) and the chain is marked in conflict until a person resolves it. A file with
 * git's conflict markers is reported and left alone: its chain keeps the ledger's version.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { mirrorSlug, parseMirrorFile, renderMirrorFile, splitConflictMarkers } from '../core/formats/mirror';
import { type Artifact, type ArtifactInput, UserError } from '../core/model';
import type { LedgerStore } from '../core/store';
import { lastCommitAuthors } from './git';
import { ensureLedgerGitignore, isWorkspaceLedger, mirrorFolderOf } from './ledgerFolder';
import { OutputFolder } from './outputFolder';
import {
  type ChainState,
  emptyState,
  hashOf,
  hasPaths,
  mirrorPaths,
  readState,
  realFolder,
  type Stamp,
  stateFileOf,
  statOf,
  takeState,
  type SyncState,
  writeState,
} from './mirrorState';
import { faultPoint } from './persistence/faultInjection';
import { readFolderFiles } from './sourceFolder';

export { type MirrorConflict, mirrorConflicts, mirrorHasChanges, mirrorHasFiles } from './mirrorState';

export interface SyncReport {
  folder: string;
  added: string[];
  updated: string[];
  archived: string[];
  written: string[];
  removed: string[];
  conflicts: { chainId: string; path: string; note: string }[];
  problems: { path: string; message: string }[];
}

const render = (artifact: Artifact): string => renderMirrorFile(artifact).content;

/** A new chain's file: its type's folder and its title, with a hash of its chain when another file has that name. */
function pathFor(artifact: Artifact, isTaken: (at: string) => boolean): string {
  const at = `${artifact.type}/${mirrorSlug(artifact.title, artifact.chainId)}.md`;
  return isTaken(at) ? at.replace(/\.md$/, `-${createHash('sha256').update(artifact.chainId).digest('hex').slice(0, 8)}.md`) : at;
}

interface MirrorEntry {
  path: string;
  /** The chain it belongs to: from the state for a file not read this time, else from its front matter. */
  chainId: string | undefined;
  hash: string;
  /** Absent for a file skipped because its size and time are as at the last sync. */
  content?: string;
  input?: ArtifactInput;
}

interface Scan {
  entries: MirrorEntry[];
  /** Files holding git conflict markers, by chain. */
  marked: Map<string, { path: string; sides: { ours: string; theirs: string } }>;
  /** Files that could not be used this time: their chains are left untouched. */
  unreadable: Set<string>;
}

function scanMirror(root: string, state: SyncState, report: SyncReport, isArtifact: (id: string) => boolean = () => false): Scan {
  const listing = mirrorPaths(root);
  for (const s of listing.skipped) report.problems.push({ path: s.where, message: s.reason });
  const chainByPath = new Map<string, [string, ChainState]>();
  for (const [chainId, entry] of Object.entries(state.chains)) if (entry.path) chainByPath.set(entry.path, [chainId, entry]);
  const entries: MirrorEntry[] = [];
  const toRead: string[] = [];
  for (const at of listing.paths) {
    const stamp = state.stamps[at];
    const now = statOf(path.join(root, at));
    const known = chainByPath.get(at);
    if (stamp && now && known && now.size === stamp.size && now.mtimeMs === stamp.mtimeMs && known[1].hash === stamp.hash) {
      entries.push({ path: at, chainId: known[0], hash: stamp.hash });
    } else {
      toRead.push(at);
    }
  }
  const read = readFolderFiles(root, toRead);
  const unreadable = new Set<string>();
  for (const s of read.skipped) {
    report.problems.push({ path: s.where, message: s.reason });
    unreadable.add(s.where);
  }
  const marked: Scan['marked'] = new Map();
  for (const f of read.files) {
    const sides = splitConflictMarkers(f.content);
    if (sides) {
      unreadable.add(f.path);
      let chainId = chainByPath.get(f.path)?.[0];
      for (const side of [sides.ours, sides.theirs]) {
        if (chainId) break;
        try {
          const input = parseMirrorFile(f.path, side);
          chainId = input.chainId ?? input.id;
        } catch {
          // Neither side names its chain: reported below like any conflict.
        }
      }
      if (chainId) marked.set(chainId, { path: f.path, sides });
      else report.problems.push({ path: f.path, message: 'has git conflict markers; resolve them in git (nothing was imported from it)' });
      continue;
    }
    try {
      const input = parseMirrorFile(f.path, f.content);
      const hash = hashOf(f.content);
      // A new file a killed sync imported (its artifact is in the database) but could not give its id: it is that artifact's file.
      const imported = state.pending?.[f.path];
      if (imported && !input.chainId && !input.id && hash === imported.hash && isArtifact(imported.artifactId)) input.chainId = imported.chainId;
      entries.push({ path: f.path, chainId: input.chainId ?? input.id, hash, content: f.content, input });
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      report.problems.push({ path: f.path, message: error.message.replace(`${f.path}: `, '') });
      unreadable.add(f.path);
    }
  }
  return { entries, marked, unreadable };
}

interface Work {
  writes: Map<string, string>;
  removes: string[];
  /** New files imported by this sync, recorded before the database is saved (see SyncState.pending). */
  pending: NonNullable<SyncState['pending']>;
}

/** Does the whole sync on an open store (under the write lock); returns the file work to do after it is saved. */
function plan(store: LedgerStore, state: SyncState, scan: Scan, authorOf: (file: string) => string | undefined, report: SyncReport): Work {
  const writes = new Map<string, string>();
  const removes: string[] = [];
  const taken = new Set<string>(scan.entries.map((f) => f.path));
  for (const entry of Object.values(state.chains)) if (entry.path) taken.add(entry.path);
  const now = store.clock.now().toISOString();

  const newPath = (artifact: Artifact): string => {
    const at = pathFor(artifact, (p) => taken.has(p));
    taken.add(at);
    return at;
  };
  const writeFile = (chainId: string, artifact: Artifact, at: string): void => {
    const content = render(artifact);
    writes.set(at, content);
    state.chains[chainId] = { path: at, hash: hashOf(content), db: hashOf(content) };
  };
  /** The file stays as it is (a pull must leave git clean); the ledger's rendering is what later changes are told from. */
  const linkFile = (chainId: string, file: MirrorEntry, artifact: Artifact): void => {
    state.chains[chainId] = { path: file.path, hash: file.hash, db: hashOf(render(artifact)) };
  };
  /** A version from the file, with its git author when the file is as a commit left it. */
  const importFile = (file: MirrorEntry): ReturnType<LedgerStore['importArtifact']> => {
    const input = file.input!;
    const author = authorOf(file.path);
    const extra = author && input.extra?.author === undefined ? { ...input.extra, author } : input.extra;
    return store.importArtifact({ ...input, ...(extra ? { extra } : {}) });
  };
  const pending: Work['pending'] = {};
  const addFromFile = (chainId: string | undefined, file: MirrorEntry): void => {
    const { artifact } = importFile(file);
    report.added.push(artifact.id);
    if (!chainId) pending[file.path] = { hash: file.hash, chainId: artifact.chainId, artifactId: artifact.id };
    // A file without an id gets the one it was given, so the next sync knows its chain.
    if (chainId) linkFile(artifact.chainId, file, artifact);
    else writeFile(artifact.chainId, artifact, file.path);
  };
  /** Both sides changed: the file's version goes on top of the ledger's, and the chain is marked until a person decides. */
  const bothKept = (chainId: string, file: MirrorEntry, mine: Artifact, note: string): void => {
    const { outcome } = importFile(file);
    const after = store.latestOfChain(chainId)!;
    linkFile(chainId, file, after);
    if (outcome === 'unchanged' || after.id === mine.id) return;
    report.updated.push(after.id);
    state.conflicts[chainId] = { chainId, path: file.path, kind: 'versions', title: after.title, mine: mine.id, theirs: after.id, at: now };
    report.conflicts.push({ chainId, path: file.path, note });
  };

  const fileByChain = new Map<string, MirrorEntry>();
  const fresh: MirrorEntry[] = [];
  for (const file of scan.entries) {
    if (!file.chainId) {
      fresh.push(file);
    } else if (fileByChain.has(file.chainId)) {
      report.problems.push({ path: file.path, message: `claims chain "${file.chainId}", like ${fileByChain.get(file.chainId)!.path}; left out (remove its id, chainId and version lines to make it a new artifact)` });
    } else {
      fileByChain.set(file.chainId, file);
    }
  }
  const held = new Set<string>();
  for (const [chainId, entry] of Object.entries(state.chains)) if (entry.path !== null && scan.unreadable.has(entry.path)) held.add(chainId);
  for (const [chainId, { path: at }] of scan.marked) {
    held.add(chainId);
    const db = store.latestOfChain(chainId);
    state.conflicts[chainId] = { chainId, path: at, kind: 'markers', title: db?.title ?? at, ...(db ? { mine: db.id } : {}), at: state.conflicts[chainId]?.at ?? now };
    report.conflicts.push({ chainId, path: at, note: 'git left conflict markers in the file: nothing was imported from it and the ledger keeps its version; resolve it (context-ledger resolve, or Resolve… in the Artifacts view)' });
  }
  // A marked file that is clean again was resolved in git: what it holds now is imported below.
  for (const [chainId, conflict] of Object.entries(state.conflicts)) if (conflict.kind === 'markers' && !scan.marked.has(chainId)) delete state.conflicts[chainId];

  const latest = new Map(store.latestArtifacts().map((a) => [a.chainId, a]));
  const chains = new Set([...latest.keys(), ...fileByChain.keys(), ...Object.keys(state.chains)]);

  for (const chainId of [...chains].sort()) {
    if (held.has(chainId)) continue;
    const base = state.chains[chainId];
    const file = fileByChain.get(chainId);
    const db = latest.get(chainId);
    const at = file?.path ?? base?.path ?? undefined;
    const fileChanged = file ? !base || file.hash !== base.hash : base?.path != null;
    const dbChanged = db ? !base || hashOf(render(db)) !== (base.db ?? base.hash) : base !== undefined;

    if (!fileChanged && !dbChanged) {
      if (base && file && base.path !== file.path) base.path = file.path;
      continue;
    }
    if (!base) {
      // No record of an earlier sync: the side with the higher version wins; a tie with different text keeps both.
      if (file && !db) {
        addFromFile(chainId, file);
      } else if (db && !file) {
        writeFile(chainId, db, newPath(db));
      } else if (db && file) {
        const fileVersion = file.input!.version ?? 0;
        if (hashOf(render(db)) === file.hash) {
          linkFile(chainId, file, db);
        } else if (fileVersion > db.version) {
          const { artifact } = importFile(file);
          report.updated.push(artifact.id);
          linkFile(chainId, file, store.latestOfChain(chainId) ?? artifact);
        } else if (fileVersion === db.version) {
          bothKept(chainId, file, db, 'the file and the ledger differ at the same version: both are kept as versions, the file\'s on top');
        } else {
          writeFile(chainId, db, file.path);
        }
      }
      continue;
    }
    if (fileChanged && !dbChanged) {
      if (file && db) {
        const before = db.id;
        const { outcome } = importFile(file);
        const after = store.latestOfChain(chainId)!;
        if (outcome !== 'unchanged') report.updated.push(after.id === before ? `${after.id} (status or pin)` : after.id);
        linkFile(chainId, file, after);
      } else if (file && !db) {
        addFromFile(chainId, file);
      } else if (db) {
        // The file was deleted: archive (never delete) the chain, and leave the file deleted.
        const archived = db.status === 'active' ? store.archive(db.id) : db;
        if (db.status === 'active') report.archived.push(archived.id);
        state.chains[chainId] = { path: null, hash: '', db: hashOf(render(archived)) };
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
      bothKept(chainId, file, db, 'changed in the file and in the ledger: both are kept as versions, the file\'s on top');
    } else if (db) {
      writeFile(chainId, db, base.path ?? newPath(db));
      report.conflicts.push({ chainId, path: state.chains[chainId]!.path!, note: 'the file was deleted but the ledger changed it; written again (delete it again to archive)' });
    } else if (file) {
      addFromFile(chainId, file);
      report.conflicts.push({ chainId, path: file.path, note: 'deleted in the ledger but edited in the file; imported again from the file' });
    } else {
      delete state.chains[chainId];
    }
  }

  for (const file of fresh) addFromFile(undefined, file);
  for (const chainId of Object.keys(state.conflicts)) if (!store.latestOfChain(chainId)) delete state.conflicts[chainId];
  return { writes, removes, pending };
}

export interface SyncOptions {
  /** The database file: the state is kept beside it. */
  dbFile: string;
  /** The mirror folder (default: `artifacts` beside the database). */
  dir?: string;
  /**
   * Runs `fn` under the ledger's write lock on the freshest data, persists, then runs
   * `afterSave` still under the lock (LedgerFile.write): the files are written there, so
   * no other writer decides a file's name or record between the database and its files.
   */
  write<T>(fn: (store: LedgerStore) => T, afterSave?: (value: T) => void): Promise<T>;
}

/**
 * Syncs both ways. A missing mirror folder, when an earlier sync wrote one, is not taken
 * for the deletion of every artifact (a checkout of a branch from before the mirror, a
 * folder moved away): `auto` runs leave everything alone then, and a run by hand writes
 * the mirror again from the ledger.
 */
export async function syncMirror(options: SyncOptions & { auto?: boolean }): Promise<SyncReport> {
  const { dbFile } = options;
  const dir = options.dir ?? mirrorFolderOf(dbFile);
  const stateFile = stateFileOf(dbFile);
  const existing = realFolder(dir);
  const report: SyncReport = { folder: existing ?? path.resolve(dir), added: [], updated: [], archived: [], written: [], removed: [], conflicts: [], problems: [] };
  if (!existing && options.auto && hasPaths(readState(stateFile, path.resolve(dir)))) return report;
  const folder = new OutputFolder(dir);
  report.folder = folder.root;
  if (options.dir === undefined && isWorkspaceLedger(dbFile)) ensureLedgerGitignore(path.dirname(path.resolve(dbFile)));

  await options.write(
    (store) => {
      const state = existing ? readState(stateFile, folder.root) : emptyState(folder.root);
      const scan = scanMirror(folder.root, state, report, (id) => store.getArtifact(id) !== undefined);
      let authors: Map<string, string> | undefined;
      const authorOf = (file: string): string | undefined => {
        authors ??= lastCommitAuthors(folder.root, scan.entries.filter((e) => e.content !== undefined).map((e) => e.path));
        return authors.get(file);
      };
      const recorded: SyncState = { ...state, chains: { ...state.chains }, conflicts: { ...state.conflicts } };
      const planned = store.transaction(() => plan(store, state, scan, authorOf, report));
      // Recorded before the database is written (this callback runs before it is saved).
      if (Object.keys(planned.pending).length > 0) writeState(stateFile, { ...recorded, pending: planned.pending });
      faultPoint('sync-pending-recorded');
      return { ...planned, state, scan };
    },
    (work) => {
      // Files follow the saved database, under its lock: a crash in between is repaired by the next sync.
      faultPoint('sync-database-written');
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
      writeState(stateFile, { ...work.state, stamps: stampsAfter(folder.root, work.state, work.scan, work.writes) });
    },
  );
  return report;
}

export interface MirrorChainsReport {
  written: string[];
  removed: string[];
  /** Chains whose file changed on disk since the last sync: left for the next sync, which sees both sides. */
  deferred: string[];
  /** No sync has recorded this mirror yet: only a whole sync (`syncMirror`) can write it. */
  needsSync: boolean;
}

/**
 * Writes the mirror files of `chainIds` after a write that changed them, and nothing else:
 * the cheap half of a sync for the hot path (an `add` in a ledger of thousands renders one
 * file, not every chain). Runs its `write` without changing the store (so it persists
 * nothing) to read the saved ledger and keep the state file under the lock. A file
 * changed on disk since the last sync is not overwritten: that is the sync's both-sides
 * case. A mirror no sync has recorded yet asks for a whole sync (`needsSync`); a mirror
 * folder gone after a sync wrote one is left alone, as `syncMirror` does on its own runs.
 */
export async function mirrorChains(options: SyncOptions & { chainIds: readonly string[] }): Promise<MirrorChainsReport> {
  if (options.chainIds.length === 0) return { written: [], removed: [], deferred: [], needsSync: false };
  return options.write((store) => mirrorChainsLocked(store, options));
}

/** `mirrorChains` for a caller that holds the write lock and has saved `store` (LedgerSession's write, in LedgerFile.write's `afterSave`). */
export function mirrorChainsLocked(store: LedgerStore, options: { dbFile: string; dir?: string; chainIds: readonly string[] }): MirrorChainsReport {
  const report: MirrorChainsReport = { written: [], removed: [], deferred: [], needsSync: false };
  if (options.chainIds.length === 0) return report;
  const dir = options.dir ?? mirrorFolderOf(options.dbFile);
  const stateFile = stateFileOf(options.dbFile);
  const root = realFolder(dir);
  const state = root ? takeState(stateFile, root) : undefined;
  if (!root || !state || (!hasPaths(state) && Object.keys(state.conflicts).length === 0)) {
    report.needsSync = !root ? !hasPaths(readState(stateFile, path.resolve(dir))) : true;
    return report;
  }
  const folder = new OutputFolder(root);
  const taken = new Set<string>();
  for (const entry of Object.values(state.chains)) if (entry.path) taken.add(entry.path);
  /** Whether the file is as the last sync left it (a stat when its stamp still holds, else a read). */
  const asSynced = (at: string, hash: string): boolean => {
    const stamp = state.stamps[at];
    const now = statOf(path.join(root, at));
    if (stamp && now && stamp.size === now.size && stamp.mtimeMs === now.mtimeMs) return stamp.hash === hash;
    const text = folder.read(at);
    return text !== undefined && hashOf(text) === hash;
  };
  let dirty = false;
  for (const chainId of options.chainIds) {
    const base = state.chains[chainId];
    if (state.conflicts[chainId] || (base?.path && !asSynced(base.path, base.hash))) {
      report.deferred.push(chainId);
      continue;
    }
    const db = store.latestOfChain(chainId);
    if (!db) {
      if (base?.path) {
        folder.remove(base.path);
        delete state.stamps[base.path];
        report.removed.push(base.path);
      }
      delete state.chains[chainId];
      dirty = true;
      continue;
    }
    const at = base?.path ?? pathFor(db, (p) => taken.has(p) || folder.read(p) !== undefined);
    taken.add(at);
    const content = render(db);
    const hash = hashOf(content);
    // The ledger's rendering is what the last sync recorded (a sync's own import, a touch that changed nothing):
    // the file stays as git has it, worded as its author left it.
    if (base?.path === at && base.db === hash) continue;
    if (folder.read(at) !== content) {
      folder.write(at, content);
      report.written.push(at);
    }
    state.chains[chainId] = { path: at, hash, db: hash };
    dirty = true;
    const stat = statOf(path.join(root, at));
    if (stat) state.stamps[at] = { ...stat, hash };
  }
  if (dirty) writeState(stateFile, state);
  return report;
}

/** The size and time of every file the ledger now agrees with; a file reported as a problem gets none, so it is read again. */
function stampsAfter(root: string, state: SyncState, scan: Scan, writes: ReadonlyMap<string, string>): Record<string, Stamp> {
  const stamps: Record<string, Stamp> = {};
  const agreed = new Map<string, string>();
  for (const entry of Object.values(state.chains)) if (entry.path && !scan.unreadable.has(entry.path)) agreed.set(entry.path, entry.hash);
  for (const [at, text] of writes) agreed.set(at, hashOf(text));
  for (const [at, hash] of agreed) {
    const stat = statOf(path.join(root, at));
    if (stat) stamps[at] = { ...stat, hash };
  }
  return stamps;
}

/**
 * A person's decision on a chain in conflict. `theirs` keeps what came in (for a file with
 * git's markers: the other side, imported as a version); `mine` keeps this clone's version,
 * as a new version on top, so the other side stays in the history too. Either way the
 * mirror file is written clean (for git, the conflict is then resolved once it is added).
 */
export async function resolveMirrorConflict(options: SyncOptions & { chainId: string; keep: 'mine' | 'theirs' }): Promise<Artifact> {
  const { dbFile, chainId, keep } = options;
  const folder = new OutputFolder(options.dir ?? mirrorFolderOf(dbFile));
  const stateFile = stateFileOf(dbFile);
  const { artifact } = await options.write((store) => {
    const state = readState(stateFile, folder.root);
    const conflict = state.conflicts[chainId] ?? Object.values(state.conflicts).find((c) => c.mine === chainId || c.theirs === chainId || c.path === chainId);
    if (!conflict) throw new UserError(`No conflict on "${chainId}".`, 'Conflicts are listed by `context-ledger sync`.');
    const chain = conflict.chainId;
    const mine = conflict.mine ? store.getArtifact(conflict.mine) : undefined;
    let theirs = conflict.theirs ? store.getArtifact(conflict.theirs) : undefined;
    const files: { at: string; content: string }[] = [];
    if (conflict.kind === 'markers') {
      const text = folder.read(conflict.path);
      const sides = text === undefined ? undefined : splitConflictMarkers(text);
      if (sides) {
        const input = parseMirrorFile(conflict.path, sides.theirs);
        const other = input.chainId ?? input.id;
        if (other !== undefined && other !== chain && !store.latestOfChain(other)) {
          // Two clones added artifacts whose titles made one file name: two artifacts, not two sides; both stay.
          const added = store.importArtifact(input).artifact;
          const at = pathFor(added, () => true);
          const content = render(added);
          files.push({ at, content });
          state.chains[added.chainId] = { path: at, hash: hashOf(content), db: hashOf(content) };
        } else {
          theirs = store.importArtifact({ ...input, chainId: chain }).artifact;
        }
      }
    }
    const latest = store.latestOfChain(chain);
    if (!latest) throw new UserError(`The artifact "${chain}" is no longer in the ledger.`);
    const chosen = keep === 'mine' ? mine : theirs;
    // The chosen side's text becomes the latest version, unless it is already.
    const kept = chosen && (chosen.contentHash !== latest.contentHash || chosen.title !== latest.title) ? store.restoreVersion(chosen.id) : latest;
    delete state.conflicts[chain];
    const at = conflict.path;
    const content = render(kept);
    state.chains[chain] = { path: at, hash: hashOf(content), db: hashOf(content) };
    delete state.stamps[at];
    writeState(stateFile, state);
    files.push({ at, content });
    return { artifact: kept, files };
  }, ({ files }) => {
    for (const file of files) folder.write(file.at, file.content);
  });
  return artifact;
}
