/**
 * The artifact files — `.context-ledger/artifacts/`, one Markdown file with front matter per
 * chain (src/core/formats/mirror.ts) — are the ledger a team shares; the database is their
 * index (docs/storage.md). This module is the one place that reads them into the index and
 * writes them, always under the ledger's lock (LedgerFile.write):
 *
 * - `importFiles`: brings the index up to date with the files. Each file is stat-ed against
 *   what the index last read of it (`artifact_file`: size, time, hash); only a changed one is
 *   read. A new file becomes an artifact (and gets its ids written into it), an edited one a
 *   new version (by its git author when the file is as committed), a deleted one archives
 *   its chain. A file git left with conflict markers is reported and left alone.
 * - `writeChainFiles`: after a write changed chains in the index, their files, each written
 *   atomically and durably (temporary file, fsync, rename; never through a link), unless the
 *   file changed on disk since the index read it: then nothing is written and the caller is told.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { restoreVersion } from '../core/artifactService';
import { mirrorSlug, parseMirrorFile, renderMirrorFile, splitConflictMarkers } from '../core/formats/mirror';
import { type Artifact, type ArtifactInput, UserError } from '../core/model';
import type { FileStamp, LedgerStore } from '../core/store';
import { lastCommitAuthors } from './git';
import { OutputFolder } from './outputFolder';
import { faultPoint } from './persistence/faultInjection';
import { FileChangedError, type FolderListing, folderListing, hashOf, type MirrorConflict, mirrorPaths, statOf, TEMP_FILE } from './artifactFolder';
import { processIsAlive } from './persistence/deadWriters';
import { readFolderFiles } from './sourceFolder';

export interface SyncReport {
  folder: string;
  added: string[];
  updated: string[];
  archived: string[];
  written: string[];
  removed: string[];
  /** Files git left with conflict markers: nothing imported from them until a person resolves them. */
  conflicts: { chainId: string; path: string; note: string }[];
  problems: { path: string; message: string }[];
}

/** A deleted file's stamp: its chain was archived; the file stays deleted until the chain changes again. */
const DELETED = -1;

export function emptyReport(folder: string): SyncReport {
  return { folder, added: [], updated: [], archived: [], written: [], removed: [], conflicts: [], problems: [] };
}

const render = (artifact: Artifact): string => renderMirrorFile(artifact).content;

/** A new chain's file: its type's folder and its title, with a hash of its chain when another file has that name. */
function pathFor(artifact: Artifact, isTaken: (at: string) => boolean): string {
  const at = `${artifact.type}/${mirrorSlug(artifact.title, artifact.chainId)}.md`;
  return isTaken(at) ? at.replace(/\.md$/, `-${createHash('sha256').update(artifact.chainId).digest('hex').slice(0, 8)}.md`) : at;
}

/** The stamp of `at` as it is on disk now, for the chain it holds. */
function stampNow(root: string, at: string, chainId: string, hash: string): FileStamp | undefined {
  const stat = statOf(path.join(root, at));
  return stat ? { path: at, chainId, size: stat.size, mtimeMs: stat.mtimeMs, hash } : undefined;
}

interface Read {
  path: string;
  content: string;
  hash: string;
  input: ArtifactInput;
}

/**
 * A write of up to this many files fsyncs each before its rename (an add, an update, a supersede:
 * what reported success is on disk). A bulk write (an import of thousands, a migration, a first
 * index) leaves the flushing to the system: 10,000 fsyncs took minutes on a busy disk, and what it
 * writes can be written again from where it came from.
 */
const DURABLE_WRITES = 64;

/** Writes `content` at `at` and records its stamp: the one way an artifact file is written. */
function writeFile(store: LedgerStore, folder: OutputFolder, at: string, chainId: string, content: string, durable = true): FileStamp | undefined {
  folder.write(at, content, { durable });
  const stamp = stampNow(folder.root, at, chainId, hashOf(content));
  if (stamp) store.putFileStamp(stamp);
  return stamp;
}

/**
 * Brings the index up to date with the files (the caller holds the lock). Returns what it
 * did; `changedChains` gets every chain the index had whose file brought a change. A missing
 * folder, when files were recorded, is left alone (a checkout of a branch from before the
 * ledger, a folder moved away): deleting every artifact takes deleting the files.
 */
export function importFiles(store: LedgerStore, dir: string, changedChains: Set<string> = new Set(), seen?: FolderListing, memoryOnly = false): SyncReport {
  const report = emptyReport(path.resolve(dir));
  const stamps = store.fileStamps();
  if (!fs.existsSync(dir) && stamps.size > 0) return report;
  const folder = new OutputFolder(dir);
  const root = folder.root;
  report.folder = root;
  // The listing the caller just made (the session's refresh) is reused: at 10,000 files a listing is a stat of each.
  const listing = seen?.root === root ? seen : folderListing(root)!;
  for (const s of listing.skipped) report.problems.push({ path: s.where, message: s.reason });
  // Under the lock: a temporary file whose writer is gone was left by a kill (a live writer's stays).
  if (!memoryOnly) for (const temp of listing.temps) if (!processIsAlive(Number(TEMP_FILE.exec(temp)![1]))) fs.rmSync(path.join(root, temp), { force: true });
  const present = new Set(listing.stats.keys());
  const holder = new Map<string, string>();
  for (const stamp of stamps.values()) if (stamp.size !== DELETED && present.has(stamp.path)) holder.set(stamp.chainId, stamp.path);

  const toRead: string[] = [];
  for (const [at, now] of listing.stats) {
    const stamp = stamps.get(at);
    if (!stamp || !now || stamp.size !== now.size || stamp.mtimeMs !== now.mtimeMs) toRead.push(at);
  }
  const read = readFolderFiles(root, toRead);
  for (const s of read.skipped) report.problems.push({ path: s.where, message: s.reason });
  const changed: Read[] = [];
  const fresh: Read[] = [];
  const reassigned = new Set<string>();
  for (const f of read.files) {
    const stamp = stamps.get(f.path);
    const hash = hashOf(f.content);
    if (stamp && stamp.size !== DELETED && stamp.hash === hash) {
      // Touched, not changed (a checkout, a save without edits): only the stamp moves.
      const now = stampNow(root, f.path, stamp.chainId, hash);
      if (now) store.putFileStamp(now);
      continue;
    }
    const sides = splitConflictMarkers(f.content);
    if (sides) {
      const chainId = stamp?.chainId ?? chainOfSides(f.path, sides);
      report.conflicts.push({ chainId: chainId ?? '', path: f.path, note: 'git left conflict markers in the file: nothing was imported from it and the ledger keeps its version; resolve it (context-ledger resolve, or Resolve… in the Artifacts view)' });
      if (chainId) holder.set(chainId, f.path);
      continue;
    }
    let input: ArtifactInput;
    try {
      input = parseMirrorFile(f.path, f.content);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      report.problems.push({ path: f.path, message: error.message.replace(`${f.path}: `, '') });
      if (stamp) holder.set(stamp.chainId, f.path);
      continue;
    }
    const chainId = input.chainId ?? input.id;
    if (!chainId) {
      fresh.push({ path: f.path, content: f.content, hash, input });
      continue;
    }
    if (stamp && stamp.size !== DELETED && stamp.chainId !== chainId) {
      // The file of another chain was deleted and a new one took its name (a quick add, a pull):
      // that chain lost its file, as if it had been deleted.
      reassigned.add(f.path);
      if (holder.get(stamp.chainId) === f.path) holder.delete(stamp.chainId);
    }
    const other = holder.get(chainId);
    if (other !== undefined && other !== f.path) {
      report.problems.push({ path: f.path, message: `claims chain "${chainId}", like ${other}; left out (remove its id, chainId and version lines to make it a new artifact)` });
      continue;
    }
    holder.set(chainId, f.path);
    changed.push({ path: f.path, content: f.content, hash, input });
  }

  let authors: Map<string, string> | undefined;
  const authorOf = (at: string): string | undefined => {
    authors ??= lastCommitAuthors(root, [...changed, ...fresh].map((r) => r.path));
    return authors.get(at);
  };
  const importRead = (r: Read): { outcome: string; artifact: Artifact } => {
    const author = authorOf(r.path);
    return store.importArtifact(author && r.input.author === undefined ? { ...r.input, author } : r.input);
  };

  store.transaction(() => {
    for (const r of changed) {
      const chainId = (r.input.chainId ?? r.input.id)!;
      const known = store.hasChain(chainId);
      const { outcome, artifact } = importRead(r);
      if (outcome !== 'unchanged') {
        (known ? report.updated : report.added).push(artifact.id);
        // A chain new to the index (a teammate's, or this machine's quick add) is no one's stale read.
        if (known) changedChains.add(artifact.chainId);
      }
      const stamp = stampNow(root, r.path, artifact.chainId, r.hash);
      if (stamp) store.putFileStamp(stamp);
    }
    // Deleted files: their chains are archived (never deleted), unless the chain lives on in another file.
    for (const stamp of stamps.values()) {
      const lostName = reassigned.has(stamp.path);
      if ((present.has(stamp.path) && !lostName) || stamp.size === DELETED) continue;
      if (holder.has(stamp.chainId)) {
        if (!lostName) store.removeFileStamp(stamp.path);
        continue;
      }
      const latest = store.latestOfChain(stamp.chainId);
      if (latest?.status === 'active') {
        report.archived.push(store.archive(latest.id).id);
        changedChains.add(stamp.chainId);
      }
      // A name another chain took keeps that chain's stamp.
      if (!lostName) store.putFileStamp({ ...stamp, size: DELETED, mtimeMs: 0, hash: '' });
    }
  });
  // A new file (no id) becomes an artifact, and gets its ids, so every clone knows its chain.
  // Without the lock (memoryOnly: a reader that could not take it) no file is written: a new file waits for a writer.
  for (const r of memoryOnly ? [] : fresh) {
    const { artifact } = importRead(r);
    report.added.push(artifact.id);
    faultPoint('import-before-ids');
    writeFile(store, folder, r.path, artifact.chainId, render(artifact), fresh.length <= DURABLE_WRITES);
  }
  return report;
}

function chainOfSides(at: string, sides: { ours: string; theirs: string }): string | undefined {
  for (const side of [sides.ours, sides.theirs]) {
    try {
      const input = parseMirrorFile(at, side);
      const chainId = input.chainId ?? input.id;
      if (chainId) return chainId;
    } catch {
      // Neither side names its chain: reported like any conflict.
    }
  }
  return undefined;
}

/**
 * Writes the files of `chainIds` as the index now has them (the caller holds the lock and
 * changed them). A file changed on disk since the index read it is never overwritten:
 * `FileChangedError` names it, and nothing of this write is kept. A chain no longer in the
 * index loses its file. Returns the paths written and removed.
 */
export function writeChainFiles(store: LedgerStore, dir: string, chainIds: readonly string[]): { written: string[]; removed: string[] } {
  const out = { written: [] as string[], removed: [] as string[] };
  if (chainIds.length === 0) return out;
  const folder = new OutputFolder(dir);
  const stamps = store.fileStamps();
  const byChain = new Map<string, FileStamp>();
  for (const stamp of stamps.values()) if (!byChain.has(stamp.chainId) || stamp.size !== DELETED) byChain.set(stamp.chainId, stamp);
  // Checked first, for every chain: a refusal writes none of them.
  for (const chainId of chainIds) {
    const stamp = byChain.get(chainId);
    if (stamp && stamp.size !== DELETED && !asRead(folder.root, stamp)) throw new FileChangedError(path.join(folder.root, stamp.path), chainId);
  }
  for (const chainId of chainIds) {
    const stamp = byChain.get(chainId);
    const latest = store.latestOfChain(chainId);
    if (!latest) {
      if (stamp) {
        if (stamp.size !== DELETED) {
          folder.remove(stamp.path);
          out.removed.push(stamp.path);
        }
        store.removeFileStamp(stamp.path);
      }
      continue;
    }
    const at = stamp?.path ?? pathFor(latest, (p) => stamps.has(p) || fs.existsSync(path.join(folder.root, p)));
    const content = render(latest);
    if (stamp?.size !== DELETED && stamp?.hash === hashOf(content)) continue;
    const written = writeFile(store, folder, at, chainId, content, chainIds.length <= DURABLE_WRITES);
    if (written) stamps.set(at, written);
    out.written.push(at);
  }
  return out;
}

/** Whether the file is as the index last read it: a stat when size and time hold, else a read. */
function asRead(root: string, stamp: FileStamp): boolean {
  const now = statOf(path.join(root, stamp.path));
  if (!now) return false;
  if (now.size === stamp.size && now.mtimeMs === stamp.mtimeMs) return true;
  try {
    return hashOf(fs.readFileSync(path.join(root, stamp.path), 'utf8')) === stamp.hash;
  } catch {
    return false;
  }
}

/**
 * The file of a new chain the index has not seen (the quick add: LedgerSession.addAsFile),
 * under a name no file has, written durably; the caller holds the lock. Returns its stamp and
 * what a refresh would import from it, for the index's delta (persistence/indexDelta.ts): the
 * index takes the artifact from there without reading the file again.
 */
export function writeNewChainFile(dir: string, artifact: Artifact): { stamp: FileStamp | undefined; input: ArtifactInput } {
  const folder = new OutputFolder(dir);
  const at = pathFor(artifact, (p) => fs.existsSync(path.join(folder.root, p)));
  const content = render(artifact);
  faultPoint('files-before');
  folder.write(at, content, { durable: true });
  faultPoint('files-written');
  return { stamp: stampNow(folder.root, at, artifact.chainId, hashOf(content)), input: parseMirrorFile(at, content) };
}

/**
 * The chains in the index with no file at all (never written: a ledger an earlier version
 * left with unsynced writes, a database that had no files): their files are written now.
 */
export function writeMissingFiles(store: LedgerStore, dir: string): string[] {
  const filed = new Set([...store.fileStamps().values()].map((s) => s.chainId));
  const missing = store.latestArtifacts().filter((a) => !filed.has(a.chainId)).map((a) => a.chainId);
  return writeChainFiles(store, dir, missing).written;
}

/**
 * A person's decision on a file git left with conflict markers (`ref`: its path or its
 * chain). `theirs` imports the other side as a version; `mine` keeps the ledger's version.
 * Either way the file is written clean (then `git add` it to tell git the merge is resolved).
 */
export function resolveMarkers(store: LedgerStore, dir: string, ref: string, keep: 'mine' | 'theirs'): Artifact {
  const folder = new OutputFolder(dir);
  const conflict = markerConflicts(store, dir).find((c) => c.path === ref || c.chainId === ref);
  if (!conflict) throw new UserError(`No conflict on "${ref}".`, 'Conflicts are listed by `context-ledger resolve`.');
  const sides = splitConflictMarkers(folder.read(conflict.path) ?? '')!;
  const theirs = parseMirrorFile(conflict.path, sides.theirs);
  const theirChain = theirs.chainId ?? theirs.id;
  if (conflict.chainId && theirChain !== undefined && theirChain !== conflict.chainId && !store.latestOfChain(theirChain)) {
    // Two clones added artifacts whose titles made one file name: two artifacts, not two sides; both stay, each in its file.
    const added = store.importArtifact(theirs).artifact;
    const stamps = store.fileStamps();
    writeFile(store, folder, pathFor(added, (p) => stamps.has(p) || fs.existsSync(path.join(folder.root, p))), added.chainId, render(added));
    const mine = store.latestOfChain(conflict.chainId)!;
    writeFile(store, folder, conflict.path, mine.chainId, render(mine));
    return keep === 'mine' ? mine : added;
  }
  // Both sides end up in the history: theirs is imported as a version; keeping mine puts its text on top again.
  const mine = conflict.chainId ? store.latestOfChain(conflict.chainId) : undefined;
  const imported = store.importArtifact(conflict.chainId && !theirs.chainId && !theirs.id ? { ...theirs, chainId: conflict.chainId } : theirs).artifact;
  const latest = store.latestOfChain(imported.chainId)!;
  const kept = keep === 'mine' && mine && (mine.contentHash !== latest.contentHash || mine.title !== latest.title) ? restoreVersion(store, mine.id) : keep === 'mine' && mine ? latest : imported;
  writeFile(store, folder, conflict.path, kept.chainId, render(kept));
  return kept;
}

/** The files git left with conflict markers (read: the index never stamps them). */
export function markerConflicts(store: LedgerStore, dir: string): MirrorConflict[] {
  const stamps = store.fileStamps();
  let root: string;
  try {
    root = fs.realpathSync(dir);
  } catch {
    return [];
  }
  const unstamped = mirrorPaths(root).paths.filter((at) => {
    const stamp = stamps.get(at);
    const now = statOf(path.join(root, at));
    return !stamp || !now || stamp.size !== now.size || stamp.mtimeMs !== now.mtimeMs;
  });
  const out: MirrorConflict[] = [];
  for (const f of readFolderFiles(root, unstamped).files) {
    const sides = splitConflictMarkers(f.content);
    if (!sides) continue;
    const chainId = stamps.get(f.path)?.chainId ?? chainOfSides(f.path, sides) ?? '';
    const mine = chainId ? store.latestOfChain(chainId) : undefined;
    out.push({ chainId, path: f.path, title: mine?.title ?? f.path, kind: 'markers', ...(mine ? { mine: mine.id } : {}) });
  }
  return out;
}
