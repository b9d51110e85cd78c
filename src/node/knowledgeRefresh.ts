/**
 * Refreshing what a ledger imported from the workspace's own knowledge files (AGENTS.md,
 * CLAUDE.md, Cursor / Copilot / Cline / Claude rules, ADRs, ctx) after they changed on
 * disk — an edit, a `git pull`, a branch switch. It is `import-folder` narrowed to what
 * the ledger already follows: the same discovery (scanImportSources), the same parsers and
 * the same linked-source rules (applyImport), so an unchanged source changes nothing, a
 * changed one becomes a new version, and nothing a person did in the ledger is undone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAdrFileName } from '../core/formats/adr';
import { IMPORT_FORMATS, type ImportFormat, normalizePath, parseImportSource } from '../core/formats/common';
import { detectFormats, mergeResults } from '../core/formats/detect';
import { linkOf } from '../core/formats/linked';
import type { Artifact } from '../core/model';
import { type ParsedImport, parseImportSources, scanImportSources } from './folderImport';

/** What a ledger follows: the formats and files it imported (artifacts with a source link). */
export interface FollowedSources {
  formats: Set<ImportFormat>;
  /** Workspace-relative files of linked artifacts, with their format. */
  files: Map<string, ImportFormat>;
  /** Folders of linked ADRs: a new numbered file there is an ADR, whatever the folder's name. */
  adrFolders: Set<string>;
}

function formatOfSource(source: string): ImportFormat | null {
  const format = parseImportSource(source)?.format as ImportFormat | undefined;
  return format && IMPORT_FORMATS.includes(format) ? format : null;
}

/** The formats and files `artifacts` (a ledger's latest versions) were imported from. */
export function followedSources(artifacts: readonly Artifact[]): FollowedSources {
  const followed: FollowedSources = { formats: new Set(), files: new Map(), adrFolders: new Set() };
  for (const artifact of artifacts) {
    const link = linkOf(artifact);
    const format = formatOfSource(artifact.source);
    if (!link || !format) continue;
    followed.formats.add(format);
    followed.files.set(link.file, format);
    if (format === 'adr') followed.adrFolders.add(path.posix.dirname(link.file));
  }
  return followed;
}

/**
 * The followed formats a batch of changed workspace-relative paths touches: a linked file,
 * a file the import would discover in a format the ledger imported (a new rule file), or
 * a numbered file in a folder of linked ADRs. A format the user never imported is never
 * picked up by a change: importing it stays the user's choice. `changed` undefined: all
 * followed formats (catching up with what changed while the editor was closed).
 */
export function formatsTouched(followed: FollowedSources, changed?: readonly string[]): ImportFormat[] {
  if (!changed) return IMPORT_FORMATS.filter((f) => followed.formats.has(f));
  const touched = new Set<ImportFormat>();
  for (const raw of changed) {
    const file = normalizePath(raw);
    const linked = followed.files.get(file);
    if (linked) touched.add(linked);
    const format = detectFormats([file])[0]?.format;
    if (format && followed.formats.has(format)) touched.add(format);
    if (followed.formats.has('adr') && isAdrFileName(file) && followed.adrFolders.has(path.posix.dirname(file))) touched.add('adr');
  }
  return IMPORT_FORMATS.filter((f) => touched.has(f));
}

/**
 * Reads and parses the files of `formats` as `import-folder` would, plus the ADR folders a
 * person chose by hand (their names are not ones the scan knows). A linked file counts as
 * gone (its artifacts archived) only when it no longer exists: a followed file the scan
 * does not list (an ADR folder of another name, an ignored folder) is left alone.
 */
export function parseRefresh(workspace: string, followed: FollowedSources, formats: readonly ImportFormat[]): ParsedImport {
  const scan = scanImportSources(workspace, workspace);
  const parsed = parseImportSources(scan, formats);
  const listed = new Set(scan.detected.filter((d) => formats.includes(d.format)).flatMap((d) => d.files));
  if (formats.includes('adr')) {
    const known = new Set([...listed].filter((f) => isAdrFileName(f)).map((f) => path.posix.dirname(f)));
    for (const folder of followed.adrFolders) {
      if (known.has(folder) || !isFolderInside(workspace, folder)) continue;
      const other = scanImportSources(workspace, path.join(workspace, folder), 'adr');
      const entry = parseImportSources(other).get('adr');
      if (!entry) continue;
      for (const d of other.detected) for (const f of d.files) listed.add(f);
      const mine = parsed.get('adr');
      if (!mine) {
        parsed.set('adr', entry);
        continue;
      }
      const ids = new Set(mine.result.artifacts.map((a) => a.id));
      const extra = { ...entry.result, artifacts: entry.result.artifacts.filter((a) => !ids.has(a.id)) };
      parsed.set('adr', {
        files: mine.files + entry.files,
        result: mergeResults([mine.result, extra]),
        covered: (file) => (mine.covered?.(file) ?? false) || (entry.covered?.(file) ?? false),
      });
    }
  }
  const gone = (file: string): boolean => !fs.existsSync(path.join(workspace, ...file.split('/')));
  // A format whose last file went (the only AGENTS.md deleted) has nothing to parse, yet its artifacts must go.
  for (const format of formats) {
    if (!parsed.has(format)) parsed.set(format, { files: 0, result: { artifacts: [], tasks: [], supersessions: [], skipped: [] }, covered: gone });
  }
  for (const [format, entry] of parsed) {
    const covered = entry.covered;
    parsed.set(format, { ...entry, covered: (file) => (covered?.(file) ?? false) && (listed.has(file) || gone(file)) });
  }
  return parsed;
}

/** A workspace-relative folder that exists and, links resolved, stays inside the workspace. */
function isFolderInside(workspace: string, folder: string): boolean {
  try {
    const root = fs.realpathSync(workspace);
    const real = fs.realpathSync(path.join(workspace, ...folder.split('/')));
    const relative = path.relative(root, real);
    return !relative.startsWith('..') && !path.isAbsolute(relative) && fs.statSync(real).isDirectory();
  } catch {
    return false;
  }
}

