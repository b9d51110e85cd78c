/**
 * Reads a folder of project knowledge safely for the importers: lists its files
 * (workspace-relative, '/'-separated) without leaving the folder, and reads the chosen
 * ones as strict UTF-8, reporting (not failing on) binary, huge or unreadable files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Skipped, SourceFile } from '../core/formats/common';
import { UserError } from '../core/model';
import { decodeText } from './files';

/** Folders never walked into: dependencies, VCS data, the ledger's own files. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn', '.context-ledger', '.venv', 'venv', '__pycache__']);

export const MAX_SOURCE_FILE_BYTES = 10 * 1024 * 1024;
/** A walk stops after this many entries, so a huge tree cannot stall an import. */
const MAX_ENTRIES = 200_000;

export interface FolderListing {
  /** The folder's real path (symbolic links resolved). */
  root: string;
  /** Files inside `root`, relative and '/'-separated, sorted. */
  paths: string[];
  skipped: Skipped[];
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function realRoot(folder: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(folder);
  } catch {
    throw new UserError(`Folder not found: ${folder}`);
  }
  if (!stat.isDirectory()) throw new UserError(`${folder} is a file, not a folder.`, 'Give the folder that holds it.');
  return fs.realpathSync(folder);
}

/**
 * Lists the files under `folder`. Symbolic links are followed only when they point to a
 * file inside the folder; links to folders or to anything outside are skipped with a note.
 */
export function listFolder(folder: string): FolderListing {
  const root = realRoot(folder);
  const paths: string[] = [];
  const skipped: Skipped[] = [];
  let entries = 0;
  const walk = (relative: string): void => {
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch (error) {
      skipped.push({ where: relative || '.', reason: `cannot read the folder (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
      return;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of dirents) {
      if (++entries > MAX_ENTRIES) return;
      const rel = relative ? `${relative}/${dirent.name}` : dirent.name;
      if (dirent.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(dirent.name)) walk(rel);
      } else if (dirent.isFile()) {
        paths.push(rel);
      } else if (dirent.isSymbolicLink()) {
        let target: string;
        try {
          target = fs.realpathSync(path.join(root, rel));
        } catch {
          skipped.push({ where: rel, reason: 'broken symbolic link' });
          continue;
        }
        if (!isInside(root, target)) skipped.push({ where: rel, reason: 'symbolic link to outside the folder, not followed' });
        else if (fs.statSync(target).isDirectory()) skipped.push({ where: rel, reason: 'symbolic link to a folder, not followed' });
        else paths.push(rel);
      }
    }
  };
  walk('');
  if (entries > MAX_ENTRIES) skipped.push({ where: '.', reason: `over ${MAX_ENTRIES} entries; the rest of the folder was not read` });
  return { root, paths: paths.sort(), skipped };
}

/**
 * Reads `relativePaths` (from listFolder) under `root` as UTF-8 text. A path that
 * escapes the root (`..`, absolute, or a link out) is refused; binary, non-UTF-8 and
 * over-`maxBytes` files are skipped with the reason.
 */
export function readFolderFiles(
  root: string,
  relativePaths: readonly string[],
  maxBytes = MAX_SOURCE_FILE_BYTES,
): { files: SourceFile[]; skipped: Skipped[] } {
  const files: SourceFile[] = [];
  const skipped: Skipped[] = [];
  for (const rel of relativePaths) {
    if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) {
      skipped.push({ where: rel, reason: 'path outside the folder, refused' });
      continue;
    }
    try {
      const real = fs.realpathSync(path.join(root, rel));
      if (!isInside(root, real)) {
        skipped.push({ where: rel, reason: 'symbolic link to outside the folder, not followed' });
        continue;
      }
      const stat = fs.statSync(real);
      if (!stat.isFile()) {
        skipped.push({ where: rel, reason: 'not a regular file' });
        continue;
      }
      if (stat.size > maxBytes) {
        skipped.push({ where: rel, reason: `${(stat.size / 1048576).toFixed(1)} MB, over the ${Math.round(maxBytes / 1048576)} MB limit` });
        continue;
      }
      files.push({ path: rel, content: decodeText(fs.readFileSync(real), rel) });
    } catch (error) {
      if (error instanceof UserError) {
        const reason = /binary/.test(error.message) ? 'binary file (contains NUL bytes)' : /UTF-8/.test(error.message) ? 'not UTF-8 text' : error.message;
        skipped.push({ where: rel, reason });
      } else {
        skipped.push({ where: rel, reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
      }
    }
  }
  return { files, skipped };
}
