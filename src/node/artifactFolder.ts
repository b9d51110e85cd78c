/**
 * The artifact files' folder, looked at without reading a file: the quick checks a session
 * makes before every read (has anything changed since the index read the files?). Kept apart
 * from the import itself (artifactFiles.ts) so that a command that finds nothing changed
 * loads no Markdown or YAML parser.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/model';
import type { FileStamp } from '../core/store';
import { mirrorFolderOf } from './ledgerFolder';
import { listFolder, SKIPPED_FOLDERS } from './sourceFolder';

/** An artifact file git left with conflict markers: nothing is imported from it until a person resolves it. */
export interface MirrorConflict {
  chainId: string;
  /** The file, relative to the artifacts folder. */
  path: string;
  title: string;
  kind: 'markers';
  /** The ledger's latest version of the chain (this clone's side). */
  mine?: string;
}

/** Line endings do not count as a change (git may convert them). */
export function hashOf(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

export function realFolder(folder: string): string | undefined {
  try {
    return fs.statSync(folder).isDirectory() ? fs.realpathSync(folder) : undefined;
  } catch {
    return undefined;
  }
}

/** The artifact files (`.md`), relative and `/`-separated; conflict copies an earlier version made (`x.conflict-<time>.md`) are not. */
export function mirrorPaths(root: string): { paths: string[]; skipped: { where: string; reason: string }[]; temps: string[] } {
  const listing = listFolder(root);
  return {
    paths: listing.paths.filter((p) => p.endsWith('.md') && !CONFLICT_COPY.test(p)),
    skipped: listing.skipped,
    // A writer's temporary file (writeFileInside): one a killed writer left is removed by the next import.
    temps: listing.paths.filter((p) => TEMP_FILE.test(p)),
  };
}

/** A conflict copy an earlier version made (`x.conflict-<time>.md`): never read. */
const CONFLICT_COPY = /\.conflict-[0-9TZ]+\.md$/;

/** `<name>.md.tmp-<pid>-<hex>`, as replaceFileAtomically (atomicWrite.ts) names a temporary file. */
export const TEMP_FILE = /\.md\.tmp-(\d+)-[0-9a-f]+$/;

/** The file's size and time; undefined when it is gone or cannot be stat-ed. */
export function statOf(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat && { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/** The artifact files as they are on disk now (listed and stat-ed, not read); undefined when there is no folder. */
export interface FolderListing {
  /** The folder's real path. */
  root: string;
  stats: Map<string, { size: number; mtimeMs: number } | undefined>;
  /** What could not be listed (a link, an unreadable folder), with why. */
  skipped: { where: string; reason: string }[];
  /** Writers' temporary files (a killed writer's until the next import removes it). */
  temps: string[];
  /** Every file's path, size and time as one string: equal keys mean nothing in the folder changed. */
  key: string;
}

export function folderListing(dir: string): FolderListing | undefined {
  const root = realFolder(dir);
  if (!root) return undefined;
  const stats = new Map<string, { size: number; mtimeMs: number } | undefined>();
  const { paths, skipped, temps } = mirrorPaths(root);
  // Joined as strings: `at` is a clean relative path already, and path.join's normalising of
  // each of 10,000 names was a quarter of the listing's time (every command lists the folder).
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  for (const at of paths) stats.set(at, statOf(prefix + at));
  return { root, stats, skipped, temps, key: keyOf(stats) };
}

/** A listing's key: every file's path, size and time, in the listing's order (but the files `without`). */
function keyOf(stats: FolderListing['stats'], without?: ReadonlySet<string>): string {
  const parts: string[] = [];
  for (const [at, stat] of stats) if (!without?.has(at)) parts.push(`${at}:${stat?.size}:${stat?.mtimeMs}`);
  return parts.join('\n');
}

/**
 * Whether `listing` is the one recorded (`hash`: hashOf of its key) plus the files an `add`
 * wrote since (`added`), each listed as it was written and in the index as stamped (`stampOf`,
 * the index's stamp of a path): then the index matches the listing without its stamps being read.
 */
export function matchesRecorded(listing: FolderListing, hash: string, added: readonly { path: string; size: number; mtimeMs: number }[] | undefined, stampOf: (at: string) => FileStamp | undefined): boolean {
  if (listing.temps.length > 0) return false;
  if (!added?.length) return hashOf(listing.key) === hash;
  for (const file of added) {
    const now = listing.stats.get(file.path);
    const stamp = stampOf(file.path);
    if (now?.size !== file.size || now.mtimeMs !== file.mtimeMs || stamp?.size !== file.size || stamp.mtimeMs !== file.mtimeMs) return false;
  }
  return hashOf(keyOf(listing.stats, new Set(added.map((f) => f.path)))) === hash;
}

/**
 * `before` with only the files named in `changed` (relative to the artifacts folder,
 * `/`-separated) looked at again, for a caller the file system told which names changed since
 * `before` was made (the hook server's watch): a stat of each instead of a walk and a stat of
 * every file. Undefined — list the folder again — when a name may be a folder (one came or went,
 * or a name that is not an artifact file is gone), a link, or outside the folder.
 */
export function relisted(before: FolderListing, changed: Iterable<string>): FolderListing | undefined {
  const stats = new Map(before.stats);
  const temps = new Set(before.temps);
  let added = false;
  for (const at of changed) {
    // Outside the folder, or under a folder a listing does not walk into: list again, as a walk would.
    if (at === '' || path.isAbsolute(at) || at.split('/').some((part) => part === '..' || SKIPPED_FOLDERS.has(part))) return undefined;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(path.join(before.root, at));
    } catch {
      stat = undefined;
    }
    const temp = TEMP_FILE.test(at);
    const artifact = at.endsWith('.md') && !CONFLICT_COPY.test(at);
    if (stat === undefined) {
      // Gone: a file the listing had, or a writer's temporary file; any other name may have been a folder.
      if (temp) temps.delete(at);
      else if (artifact) stats.delete(at);
      else if (!at.endsWith('.md')) return undefined;
      continue;
    }
    if (!stat.isFile()) return undefined;
    if (temp) temps.add(at);
    else if (artifact) {
      if (!stats.has(at)) added = true;
      stats.set(at, { size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  // A new name goes where a listing would put it (sourceFolder.ts sorts the paths).
  const ordered = added ? new Map([...stats.keys()].sort().map((at) => [at, stats.get(at)])) : stats;
  return { root: before.root, stats: ordered, skipped: before.skipped, temps: [...temps], key: keyOf(ordered) };
}

/**
 * Whether the files hold anything the index has not read: a file added, removed, or whose
 * size or time differs from its stamp. A missing folder is no change (see importFiles).
 */
export function filesChanged(stamps: ReadonlyMap<string, FileStamp>, listing: FolderListing | undefined): boolean {
  if (!listing) return false;
  if (listing.temps.length > 0) return true;
  let live = 0;
  for (const stamp of stamps.values()) if (stamp.size >= 0) live++;
  if (listing.stats.size !== live) return true;
  for (const [at, now] of listing.stats) {
    const stamp = stamps.get(at);
    if (!stamp || !now || now.size !== stamp.size || now.mtimeMs !== stamp.mtimeMs) return true;
  }
  return false;
}

/** The key of `folderListing` (a session keeps the one of its last import: a file the import cannot take is not read again until something changes). */
export function listingKey(dir: string): string | undefined {
  return folderListing(dir)?.key;
}

/** Where the database-first version kept its mirror state (src/node/legacyLedger.ts). */
export function legacyStateFile(dbFile: string): string {
  return `${dbFile}.sync.json`;
}

/** Whether an earlier version's mirror state is beside the database (the migration has not run). */
export function hasLegacyState(dbFile: string): boolean {
  return fs.existsSync(legacyStateFile(dbFile));
}

/** Whether the artifacts folder beside `dbFile` holds at least one file (a clone to build the index from). */
export function mirrorHasFiles(dbFile: string, dir = mirrorFolderOf(dbFile)): boolean {
  const root = realFolder(dir);
  return root !== undefined && mirrorPaths(root).paths.length > 0;
}

/** A write found the file of a chain it changed edited on disk since the index read it. */
export class FileChangedError extends UserError {
  constructor(
    readonly file: string,
    readonly chainId: string,
  ) {
    super(
      `${file} was changed or deleted on disk (a teammate's edit, a pull) since the ledger read it; the ledger now has what the file says, and your change was not written over it.`,
      'Look at the artifact as it is now (context-ledger show / history) and make your change again.',
    );
  }
}
