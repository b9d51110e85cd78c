/**
 * Importing the knowledge a folder already keeps (ctx `.context/`, ADR folders,
 * Copilot / Cursor / Claude / AGENTS.md / Cline rule files), shared by the CLI
 * (`import-folder`, `import --from`) and the editor command: find what is there, read
 * and parse the chosen formats, then apply them to a store (or to a copy, for a dry run).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAdrFileName } from '../core/formats/adr';
import type { ImportFormat, ImportResult, Skipped, SourceFile } from '../core/formats/common';
import { dedupeSources, expandImports, type ReadSource } from '../core/formats/sameFile';
import { type DetectedFormat, detectFormats, formatOf, importDetected } from '../core/formats/detect';
import { applyLinked, fileOfSource, type LinkedChange, linkOf } from '../core/formats/linked';
import type { Artifact, ArtifactInput } from '../core/model';
import { UserError } from '../core/model';
import { normalizeArtifactInput } from '../core/ledgerStore/artifactInput';
import { LedgerStore } from '../core/store';
import { loadSqlJs } from './ledgerFile';
import { type FolderListing, listFolder, readFolderFiles } from './sourceFolder';

export interface FormatReport {
  format: ImportFormat;
  files: number;
  added: string[];
  updated: string[];
  unchanged: string[];
  /** Edited in the ledger while their source changed (or went away): kept, and detached from the file. */
  detached: string[];
  /** Gone from their source: archived. */
  removed: string[];
  /** Every entry added, updated, detached or removed, with the reason. */
  changes: LinkedChange[];
  tasksAdded: string[];
  tasksUnchanged: string[];
  skipped: Skipped[];
}

export interface FolderImportReport {
  folder: string;
  dryRun: boolean;
  formats: FormatReport[];
  /** Things skipped while walking the folder (links out, unreadable folders). */
  skipped: Skipped[];
}

/** What a folder holds that can be imported, before anything is read. */
export interface ImportScan {
  /** The folder (or file) asked for, absolute. */
  folder: string;
  listing: FolderListing;
  /** Paths are workspace-relative when the folder is inside the workspace. */
  detected: DetectedFormat[];
  /** Workspace-relative path → path under `listing.root`. */
  toLocal: Map<string, string>;
  prefix: string;
  /**
   * A folder inside the workspace: a linked file under it that is gone was removed. (For
   * one file, or a folder outside, only the files read count.)
   */
  wholeFolder: boolean;
}

export type ParsedImport = Map<ImportFormat, { files: number; result: ImportResult; covered?: (file: string) => boolean }>;

/** A folder, or one file (listed alone, from its folder). */
function listTarget(target: string): FolderListing {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(target);
  } catch {
    throw new UserError(`Not found: ${target}`);
  }
  if (stat.isDirectory()) return listFolder(target);
  const real = fs.realpathSync(target);
  return { root: path.dirname(real), paths: [path.basename(real)], skipped: [] };
}

/**
 * Lists `target` (a folder or one file) and groups its files by format. Only `from`
 * when given; a folder given as the ADR folder counts whatever its name.
 */
export function scanImportSources(workspace: string, target: string, from?: ImportFormat): ImportScan {
  const folder = path.resolve(workspace, target);
  const listing = listTarget(folder);
  // Paths are workspace-relative when the folder is inside the workspace, so
  // `import-folder docs/adrs` and `import-folder` give the same sources and ids.
  let realWorkspace = workspace;
  try {
    realWorkspace = fs.realpathSync(workspace);
  } catch {
    // keep as given
  }
  const relativeRoot = path.relative(realWorkspace, listing.root);
  const outside = relativeRoot.startsWith('..') || path.isAbsolute(relativeRoot);
  const detectUnder = (prefix: string) => {
    const toLocal = new Map(listing.paths.map((p) => [`${prefix}${p}`, p]));
    const found = detectFormats([...toLocal.keys()]);
    return { prefix, toLocal, detected: from ? found.filter((d) => d.format === from) : found };
  };
  let scan = detectUnder(relativeRoot === '' || outside ? '' : `${relativeRoot.split(path.sep).join('/')}/`);
  // Outside the workspace, formats are only known by the folders they live in: another
  // project's `.context`, `.cursor/rules` or `.github/copilot-instructions.md`, given
  // itself, is read as if from that project's root.
  const rootSegments = listing.root.split(path.sep).filter(Boolean);
  for (let depth = 1; outside && scan.detected.length === 0 && depth <= Math.min(2, rootSegments.length); depth++) {
    const candidate = detectUnder(`${rootSegments.slice(-depth).join('/')}/`);
    if (candidate.detected.length > 0) scan = candidate;
  }
  const { prefix, toLocal } = scan;
  let { detected } = scan;
  if (from === 'adr' && detected.length === 0) {
    // A folder given as the ADR folder, whatever its name.
    const files = [...toLocal.keys()].filter((p) => formatOf(p) === null && isAdrFileName(p) && !toLocal.get(p)!.includes('/'));
    if (files.length > 0) detected = [{ format: 'adr', files }];
  }
  const wholeFolder = !outside && fs.statSync(folder).isDirectory();
  return { folder, listing, detected, toLocal, prefix, wholeFolder };
}

/** The error for a folder with nothing importable. */
export function nothingToImport(folder: string, from?: ImportFormat): UserError {
  const what = from ? `no ${from} files` : 'nothing it can import';
  return new UserError(
    `Found ${what} in ${folder}.`,
    'It looks for .context/*.md (ctx), ADR folders (docs/adr, docs/decisions, ...), .github/copilot-instructions.md, .cursor/rules/*.mdc, CLAUDE.md, AGENTS.md, .clinerules and .cline/rules.',
  );
}

/**
 * Reads and parses the files of the chosen formats (all detected ones by default). One
 * real file reached under several paths (links, `@`-imports) is read once; Claude Code
 * `@path` imports of files that are not knowledge of their own are inlined.
 */
export function parseImportSources(scan: ImportScan, formats?: readonly ImportFormat[]): ParsedImport {
  const parsed: ParsedImport = new Map();
  const chosen = scan.detected.filter(({ format }) => !formats || formats.includes(format));
  const reads = chosen.map(({ format, files }) => ({ format, files, read: readFolderFiles(scan.listing.root, files.map((p) => scan.toLocal.get(p)!)) }));
  const realOf = (local: string): string => {
    try {
      return `${scan.prefix}${path.relative(scan.listing.root, fs.realpathSync(path.join(scan.listing.root, local))).split(path.sep).join('/')}`;
    } catch {
      return `${scan.prefix}${local}`;
    }
  };
  const all: ReadSource[] = reads.flatMap(({ read }) => read.files.map((f) => ({ path: `${scan.prefix}${f.path}`, content: f.content, real: realOf(f.path) })));
  const deduped = dedupeSources(all);
  const kept = new Map(deduped.files.map((f) => [f.path, f]));
  const knowledge = new Set(all.map((f) => f.path));
  const readOther = (file: string): string | null => {
    if (!file.startsWith(scan.prefix)) return null;
    const read = readFolderFiles(scan.listing.root, [file.slice(scan.prefix.length)]);
    return read.files[0]?.content ?? null;
  };
  for (const { format, files, read } of reads) {
    const skipped: Skipped[] = read.skipped.map((s) => ({ ...s, where: `${scan.prefix}${s.where}` }));
    skipped.push(...deduped.skipped.filter((s) => files.includes(s.where)));
    const sources: SourceFile[] = [];
    for (const f of read.files) {
      const file = kept.get(`${scan.prefix}${f.path}`);
      if (!file) continue;
      const expanded = expandImports(file, readOther, (target) => knowledge.has(target));
      skipped.push(...expanded.skipped);
      sources.push({ path: file.path, content: expanded.content });
    }
    const result = importDetected(format, sources);
    result.artifacts = result.artifacts.filter((input) => importable(input, skipped));
    result.skipped.unshift(...skipped);
    const unreadable = new Set(read.skipped.map((s) => `${scan.prefix}${s.where}`));
    const listed = new Set(files);
    const covered = (file: string): boolean =>
      !unreadable.has(file) && (listed.has(file) || (scan.wholeFolder && file.startsWith(scan.prefix)));
    parsed.set(format, { files: files.length, result, covered });
  }
  return parsed;
}

/** The start of the reason of an entry the ledger refused (a section over 4 MB): the rest of the import lands, the command exits 1. */
export const NOT_IMPORTED = 'not imported: ';

/**
 * Whether the ledger would take `input`; if not, it is listed in `skipped` with the reason,
 * so one bad section (over 4 MB, a NUL in its title) costs only itself, not the whole import.
 */
function importable(input: ArtifactInput, skipped: Skipped[]): boolean {
  try {
    normalizeArtifactInput(input, () => new Date(0).toISOString(), () => 'checked');
    return true;
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    const file = input.source ? fileOfSource(input.source) : null;
    skipped.push({ where: `${file ?? 'a section'} "${input.title.slice(0, 80)}"`, reason: `${NOT_IMPORTED}${error.message}${error.hint ? ` ${error.hint}` : ''}` });
    return false;
  }
}

/** Adds the supersession links to the newer artifacts' inputs (their status is set by the parsers). */
function linkSupersessions(result: ImportResult): ArtifactInput[] {
  const byId = new Map(result.artifacts.map((a) => [a.id, a]));
  for (const { olderId, newerId } of result.supersessions ?? []) {
    const newer = byId.get(newerId);
    if (newer && byId.has(olderId) && (newer.supersedes === undefined || newer.supersedes === null)) newer.supersedes = olderId;
  }
  return result.artifacts;
}

/**
 * Applies parsed formats in one transaction, each entry compared with what its source
 * said at the last import (see core/formats/linked.ts): an unchanged source changes
 * nothing, a changed one makes a new version, and nothing a person did in the ledger is undone.
 */
export function applyImport(store: LedgerStore, parsed: ParsedImport, now: () => string = () => new Date().toISOString()): FormatReport[] {
  const reports: FormatReport[] = [];
  store.transaction(() => {
    for (const [format, { files, result, covered }] of parsed) {
      const prefix = `import:${format}:`;
      const changes = applyLinked(
        store,
        linkSupersessions(result),
        (file, source) => source.startsWith(prefix) && fileOfSource(source) === file && (covered?.(file) ?? false),
        now,
      );
      const of = (outcome: LinkedChange['outcome']) => changes.filter((c) => c.outcome === outcome).map((c) => c.id);
      const tasksAdded: string[] = [];
      const tasksUnchanged: string[] = [];
      for (const task of result.tasks ?? []) {
        if (store.getTask(task.id)) {
          tasksUnchanged.push(task.id);
        } else {
          store.createTask({ id: task.id, title: task.title, description: task.description, labels: task.labels });
          tasksAdded.push(task.id);
        }
      }
      reports.push({
        format,
        files,
        added: of('added'),
        updated: of('updated'),
        unchanged: of('unchanged'),
        detached: of('detached'),
        removed: of('removed'),
        changes: changes.filter((c) => c.outcome !== 'unchanged'),
        tasksAdded,
        tasksUnchanged,
        skipped: result.skipped,
      });
    }
  });
  return reports;
}

/** What `applyImport` would do, run on an in-memory copy of `store` (or an empty ledger) that is thrown away. */
export async function previewImport(store: LedgerStore | undefined, parsed: ParsedImport): Promise<FormatReport[]> {
  const copy = LedgerStore.open(await loadSqlJs(), store?.export());
  try {
    return applyImport(copy, parsed);
  } finally {
    copy.close();
  }
}

/** Everything skipped: while walking the folder and in each format. */
export function allSkipped(report: FolderImportReport): Skipped[] {
  return [...report.skipped, ...report.formats.flatMap((f) => f.skipped)];
}

/** One knowledge file out of step with the ledger, and the entries an import would change for it. */
export interface FileDrift {
  file: string;
  /** `new`: no entry of it in the ledger yet; `removed`: gone from disk; `changed`: its text differs from the last import. */
  state: 'new' | 'changed' | 'removed';
  changes: LinkedChange[];
}

export interface ImportStatus {
  folder: string;
  /** Knowledge files whose entries are all as the ledger last read them. */
  inStep: number;
  drift: FileDrift[];
  /** Entries a person edited in the ledger while their source changed: the ledger's version is kept, no longer linked. */
  detached: { id: string; title: string; file: string; reason: string }[];
}

/**
 * `import-folder --status`: what an import would change, by file, from a dry run (nothing
 * is written), and the entries already detached from their files.
 */
export function importStatus(scan: ImportScan, reports: readonly FormatReport[], latest: readonly Artifact[]): ImportStatus {
  const byFile = new Map<string, LinkedChange[]>();
  for (const change of reports.flatMap((r) => r.changes)) {
    const list = byFile.get(change.file);
    if (list) list.push(change);
    else byFile.set(change.file, [change]);
  }
  const known = new Set(latest.map((a) => linkOf(a)?.file).filter((file): file is string => file !== undefined));
  const drift: FileDrift[] = [...byFile.entries()]
    .map(([file, changes]) => ({
      file,
      state: changes.every((c) => c.outcome === 'removed') ? ('removed' as const) : !known.has(file) ? ('new' as const) : ('changed' as const),
      changes,
    }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const files = new Set(scan.detected.flatMap((d) => d.files));
  const detached = latest.flatMap((a) => {
    const link = linkOf(a);
    return link?.detached ? [{ id: a.id, title: a.title, file: link.file, reason: link.detached.reason }] : [];
  });
  return { folder: scan.folder, inStep: [...files].filter((f) => !byFile.has(f)).length, drift, detached };
}
