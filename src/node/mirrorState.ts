/**
 * What the Markdown mirror sync remembers between runs (`<db>.sync.json`), and the quick
 * checks every CLI command makes with it. Kept apart from the sync itself so that a
 * command that finds nothing changed loads no Markdown or YAML parser.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileInside } from './files';
import { mirrorFolderOf } from './ledgerFolder';
import { listFolder } from './sourceFolder';

export interface ChainState {
  /** The file it was written to or read from (null once its file was deleted). */
  path: string | null;
  /** Hash of the file's text at the last sync. */
  hash: string;
  /** Hash of the ledger's latest version rendered, at the last sync (state version 1 had only `hash`). */
  db?: string;
}

export interface Stamp {
  size: number;
  mtimeMs: number;
  hash: string;
}

export interface MirrorConflict {
  chainId: string;
  /** The mirror file, relative to the mirror folder. */
  path: string;
  /**
   * `markers`: git left conflict markers in the file; nothing was imported and the ledger
   * keeps its version. `versions`: the ledger and the file both changed; both are versions
   * of the chain, the file's on top.
   */
  kind: 'markers' | 'versions';
  title: string;
  /** The ledger's version when the conflict was found (this clone's side). */
  mine?: string;
  /** The version imported from the file (the other side); markers: none yet. */
  theirs?: string;
  at: string;
}

export interface SyncState {
  version: 2;
  /** The mirror folder this state belongs to (real path). */
  folder: string;
  chains: Record<string, ChainState>;
  stamps: Record<string, Stamp>;
  conflicts: Record<string, MirrorConflict>;
  /**
   * New files (no id yet) a sync is importing, recorded before its database write: a kill
   * after that write but before the files get their ids would otherwise make the next sync
   * import them again. Per path: the hash of the file as read, and the artifact it became
   * (present in the database only if that write happened).
   */
  pending?: Record<string, { hash: string; chainId: string; artifactId: string }>;
}

/** Line endings do not count as a change (git may convert them). */
export function hashOf(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

export function stateFileOf(dbFile: string): string {
  return `${dbFile}.sync.json`;
}

export function emptyState(folder: string): SyncState {
  return { version: 2, folder, chains: {}, stamps: {}, conflicts: {} };
}

export function readState(file: string, folder: string): SyncState {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<Partial<SyncState>, 'version'> & { version: number };
    if ((state.version === 1 || state.version === 2) && state.folder === folder && typeof state.chains === 'object' && state.chains !== null) {
      return { version: 2, folder, chains: state.chains, stamps: state.stamps ?? {}, conflicts: state.conflicts ?? {}, ...(state.pending ? { pending: state.pending } : {}) };
    }
  } catch {
    // None yet (or unreadable): everything is compared without a base.
  }
  return emptyState(folder);
}

/**
 * The state `mirrorHasChanges` read, kept for the write that follows in the same command
 * (`takeState`): at 10,000 chains the file is megabytes of JSON, and parsing it twice cost
 * an `add` more than its own write. Used once, and only while the file is as it was read.
 */
let lastRead: { file: string; folder: string; key: string; state: SyncState } | undefined;

/** A file's identity and state (inode, size, mtime): a changed key means the file changed; undefined when it is missing. */
export function fileKey(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/** The state as `mirrorHasChanges` just read it when the file has not changed since (then only once), else read now. */
export function takeState(file: string, folder: string): SyncState {
  const kept = lastRead;
  lastRead = undefined;
  if (kept && kept.file === file && kept.folder === folder && kept.key === fileKey(file)) return kept.state;
  return readState(file, folder);
}

export function writeState(file: string, state: SyncState): void {
  lastRead = undefined;
  writeFileInside(path.dirname(file), file, `${JSON.stringify(state)}\n`, 'the sync state');
}

export function realFolder(folder: string): string | undefined {
  try {
    return fs.statSync(folder).isDirectory() ? fs.realpathSync(folder) : undefined;
  } catch {
    return undefined;
  }
}

/** Conflict copies of earlier versions (`x.conflict-<time>.md`) are not mirror files. */
export function mirrorPaths(root: string): { paths: string[]; skipped: { where: string; reason: string }[] } {
  const listing = listFolder(root);
  return { paths: listing.paths.filter((p) => p.endsWith('.md') && !/\.conflict-[0-9TZ]+\.md$/.test(p)), skipped: listing.skipped };
}

export function statOf(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stat = fs.statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

export function hasPaths(state: SyncState): boolean {
  return Object.values(state.chains).some((c) => c.path !== null);
}

/**
 * Whether the mirror holds anything the ledger has not seen: a file added, removed, or
 * whose size or time differs from the last sync. Lists and stats the folder, reads nothing.
 * A missing mirror folder is no change (see syncMirror).
 */
export function mirrorHasChanges(dbFile: string, dir = mirrorFolderOf(dbFile)): boolean {
  const root = realFolder(dir);
  if (!root) return false;
  const stateFile = stateFileOf(dbFile);
  const key = fileKey(stateFile);
  const state = readState(stateFile, root);
  if (key !== undefined) lastRead = { file: stateFile, folder: root, key, state };
  const { paths } = mirrorPaths(root);
  if (paths.length !== Object.keys(state.stamps).length) return true;
  for (const at of paths) {
    const stamp = state.stamps[at];
    const now = statOf(path.join(root, at));
    if (!stamp || !now || now.size !== stamp.size || now.mtimeMs !== stamp.mtimeMs) return true;
  }
  return false;
}

/**
 * Every mirror file's path, size and time, as one string: equal keys mean nothing in the
 * folder changed. A session keeps the key of its last sync, so a file the sync cannot take
 * (git's conflict markers, bad front matter), which `mirrorHasChanges` reports every time,
 * is not synced again until something changes.
 */
export function mirrorListingKey(dbFile: string, dir = mirrorFolderOf(dbFile)): string | undefined {
  const root = realFolder(dir);
  if (!root) return undefined;
  return mirrorPaths(root)
    .paths.map((at) => {
      const stat = statOf(path.join(root, at));
      return `${at}:${stat?.size}:${stat?.mtimeMs}`;
    })
    .join('\n');
}

/** Whether the mirror folder holds at least one file (a clone to build the ledger from). */
export function mirrorHasFiles(dbFile: string, dir = mirrorFolderOf(dbFile)): boolean {
  const root = realFolder(dir);
  return root !== undefined && mirrorPaths(root).paths.length > 0;
}

/** The chains in conflict, as the last sync left them. */
export function mirrorConflicts(dbFile: string, dir = mirrorFolderOf(dbFile)): MirrorConflict[] {
  const root = realFolder(dir);
  if (!root) return [];
  return Object.values(readState(stateFileOf(dbFile), root).conflicts);
}
