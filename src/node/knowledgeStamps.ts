/**
 * The quick check behind following the knowledge files a ledger imported (AGENTS.md, rule
 * files, ADRs): stat calls only, and no parser loaded, so a command that finds nothing
 * changed costs a few stats. What changed is then refreshed by src/node/knowledgeRefresh.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Artifact } from '../core/model';

/** The workspace-relative files the imported artifacts came from (`linked.file`). */
export function linkedFiles(artifacts: readonly Artifact[]): Set<string> {
  const files = new Set<string>();
  for (const artifact of artifacts) {
    const file = artifact.linked?.file;
    if (typeof file === 'string' && file !== '') files.add(file);
  }
  return files;
}

/**
 * Size and time of every file a ledger follows and of the folders holding them (a new
 * rule file beside a followed one changes its folder's time, and ADR folders are those of
 * followed ADRs), keyed by workspace-relative
 * path, folders ending in `/`. Stat calls only: comparing two of these tells a session
 * (src/node/session.ts) whether any knowledge file needs reading at all.
 */
export type KnowledgeStamps = Record<string, string>;

function stampOf(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

const fromWorkspace = (workspace: string, relative: string): string => path.join(workspace, ...relative.split('/'));

export function knowledgeStamps(workspace: string, followedFiles: Iterable<string>): KnowledgeStamps {
  const stamps: KnowledgeStamps = {};
  const folders = new Set<string>();
  for (const file of [...followedFiles].sort()) {
    stamps[file] = stampOf(fromWorkspace(workspace, file));
    folders.add(path.posix.dirname(file));
  }
  for (const folder of [...folders].sort()) stamps[`${folder}/`] = stampOf(fromWorkspace(workspace, folder));
  return stamps;
}

export function sameStamps(a: KnowledgeStamps, b: KnowledgeStamps): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * The workspace-relative paths that may have changed between two stampings: a file whose
 * stamp differs or that is no longer followed, and every file a changed folder holds now
 * (what `formatsTouched` needs to see a new file of a followed format).
 */
export function changedKnowledgePaths(workspace: string, before: KnowledgeStamps, now: KnowledgeStamps): string[] {
  const changed = new Set<string>();
  for (const [key, stamp] of Object.entries(now)) {
    if (before[key] === stamp) continue;
    if (!key.endsWith('/')) {
      changed.add(key);
      continue;
    }
    const folder = key.slice(0, -1);
    let names: fs.Dirent[] = [];
    try {
      names = fs.readdirSync(fromWorkspace(workspace, folder), { withFileTypes: true });
    } catch {
      // Gone: its files' own stamps say so.
    }
    for (const entry of names) if (entry.isFile()) changed.add(folder === '.' ? entry.name : `${folder}/${entry.name}`);
  }
  for (const key of Object.keys(before)) if (!(key in now) && !key.endsWith('/')) changed.add(key);
  return [...changed];
}

/**
 * `<db>.knowledge.json`, local like the database: the knowledge files' stamps as last checked,
 * and, for one saved index (`index`: LedgerFile.savedAs), what a refresh would otherwise ask of
 * it — the knowledge files it follows and the hash of the artifact files' listing found to
 * match its file stamps. docs/storage.md, "One session, one write path".
 */
export interface StampRecord {
  version: 1;
  stamps: KnowledgeStamps;
  index?: string;
  files?: string[];
  /** The hash of the artifact files' listing (FolderListing.key) found to match that index's stamps. */
  listing?: string;
  /**
   * Files `add` wrote since that listing, each with its stamp in the index's delta: the index
   * matches the listing plus these, when the index has each as stamped here.
   */
  added?: AddedFile[];
}

export interface AddedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

const isAdded = (value: unknown): value is AddedFile => {
  const file = value as Partial<AddedFile> | null;
  return typeof file === 'object' && file !== null && typeof file.path === 'string' && typeof file.size === 'number' && typeof file.mtimeMs === 'number';
};

/** The record at `file`; undefined when there is none or it is not one. */
export function readStampRecord(file: string): StampRecord | undefined {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<StampRecord>;
    if (record.version !== 1 || typeof record.stamps !== 'object' || record.stamps === null) return undefined;
    const files = Array.isArray(record.files) && record.files.every((f) => typeof f === 'string') ? record.files : undefined;
    if (typeof record.index !== 'string') return { version: 1, stamps: record.stamps };
    const listing = typeof record.listing === 'string' ? { listing: record.listing, ...(Array.isArray(record.added) && record.added.every(isAdded) ? { added: record.added } : {}) } : {};
    return { version: 1, stamps: record.stamps, index: record.index, ...(files ? { files } : {}), ...listing };
  } catch {
    return undefined;
  }
}
