/**
 * Interop commands: import the knowledge a team already keeps in a folder (ctx
 * `.context/`, ADR folders, Copilot / Cursor / Claude / AGENTS.md / Cline rule files).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { detectFormats, formatOf, importDetected } from '../core/formats/detect';
import { isAdrFileName } from '../core/formats/adr';
import { IMPORT_FORMATS, type ImportFormat, type ImportResult, type Skipped } from '../core/formats/common';
import type { ArtifactInput } from '../core/model';
import { UserError } from '../core/model';
import type { LedgerStore } from '../core/store';
import { LedgerStore as Store } from '../core/store';
import { defaultDatabasePath } from '../node/files';
import { loadSqlJs } from '../node/ledgerFile';
import { listFolder, readFolderFiles } from '../node/sourceFolder';
import { stringOption } from './args';
import { type Command, type CommandContext, isJson, printJson, withRead, withWrite } from './commands';

export interface FormatReport {
  format: ImportFormat;
  files: number;
  added: string[];
  updated: string[];
  unchanged: string[];
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

function isImportFormat(value: string): value is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(value);
}

/** The workspace: the folder holding the ledger found from cwd (or --db), else cwd. */
function workspaceOf(context: CommandContext): string {
  const db = stringOption(context.options, 'db');
  if (db) {
    const file = path.resolve(context.cwd, db);
    const folder = path.dirname(file);
    return path.basename(folder) === '.context-ledger' ? path.dirname(folder) : context.cwd;
  }
  const found = defaultDatabasePath(context.cwd);
  return found.found ? path.dirname(path.dirname(found.file)) : context.cwd;
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

function applyImport(store: LedgerStore, parsed: Map<ImportFormat, { files: number; result: ImportResult }>): FormatReport[] {
  const reports: FormatReport[] = [];
  store.transaction(() => {
    for (const [format, { files, result }] of parsed) {
      const report = store.importArtifacts(linkSupersessions(result));
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
      reports.push({ format, files, ...report, tasksAdded, tasksUnchanged, skipped: result.skipped });
    }
  });
  return reports;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function renderReport(report: FolderImportReport): string {
  const lines = [`${report.dryRun ? 'Dry run (nothing written): would import' : 'Imported'} from ${report.folder}:`];
  for (const f of report.formats) {
    const tasks = f.tasksAdded.length + f.tasksUnchanged.length > 0 ? `; tasks ${f.tasksAdded.length} added, ${f.tasksUnchanged.length} unchanged` : '';
    lines.push(
      `  ${f.format.padEnd(9)}  ${plural(f.files, 'file').padEnd(9)}  ${f.added.length} added, ${f.updated.length} updated, ${f.unchanged.length} unchanged, ${f.skipped.length} skipped${tasks}`,
    );
  }
  const skipped = [...report.skipped, ...report.formats.flatMap((f) => f.skipped)];
  if (skipped.length > 0) {
    lines.push('', 'Skipped:');
    for (const s of skipped.slice(0, 50)) lines.push(`  ${s.where}: ${s.reason}`);
    if (skipped.length > 50) lines.push(`  … and ${skipped.length - 50} more.`);
  }
  return lines.join('\n');
}

const importFolderCommand: Command = {
  name: 'import-folder',
  summary: 'Import the knowledge a folder already keeps: ctx .context/, ADRs, Copilot/Cursor/Claude/AGENTS.md/Cline rules.',
  usage: `context-ledger import-folder [<dir>] [--from ${IMPORT_FORMATS.join('|')}] [--dry-run] [--format json]`,
  options: {
    from: { type: 'string', value: IMPORT_FORMATS.join('|'), description: 'Only this format (default: every format found).' },
    'dry-run': { type: 'boolean', description: 'Report what would be imported; write nothing.' },
  },
  positionals: [0, 1],
  details: [
    '<dir> defaults to the workspace (the folder holding the ledger, else the current folder).',
    'node_modules and .git are not searched; links out of the folder are not followed; binary,',
    'non-UTF-8 and over-10 MB files are skipped with a note. Re-importing is idempotent: unchanged',
    'entries are left alone, changed ones become new versions of their chain.',
  ].join('\n'),
  async run(context) {
    const from = stringOption(context.options, 'from');
    if (from !== undefined && !isImportFormat(from)) throw new UserError(`Unknown format "${from}".`, `Use one of: ${IMPORT_FORMATS.join(', ')}.`);
    const dryRun = context.options['dry-run'] === true;
    const workspace = workspaceOf(context);
    const folder = path.resolve(context.cwd, context.positionals[0] ?? workspace);
    const listing = listFolder(folder);

    // Paths are workspace-relative when the folder is inside the workspace, so
    // `import-folder docs/adrs` and `import-folder` give the same sources and ids.
    let realWorkspace = workspace;
    try {
      realWorkspace = fs.realpathSync(workspace);
    } catch {
      // keep as given
    }
    const relativeRoot = path.relative(realWorkspace, listing.root);
    const prefix = relativeRoot === '' || relativeRoot.startsWith('..') || path.isAbsolute(relativeRoot) ? '' : `${relativeRoot.split(path.sep).join('/')}/`;
    const toLocal = new Map(listing.paths.map((p) => [`${prefix}${p}`, p]));

    let detected = detectFormats([...toLocal.keys()]);
    if (from) detected = detected.filter((d) => d.format === from);
    if (from === 'adr' && detected.length === 0) {
      // A folder given as the ADR folder, whatever its name.
      const files = [...toLocal.keys()].filter((p) => formatOf(p) === null && isAdrFileName(p) && !toLocal.get(p)!.includes('/'));
      if (files.length > 0) detected = [{ format: 'adr', files }];
    }
    if (detected.length === 0) {
      const what = from ? `no ${from} files` : 'nothing it can import';
      throw new UserError(
        `Found ${what} in ${folder}.`,
        'It looks for .context/*.md (ctx), ADR folders (docs/adr, docs/decisions, ...), .github/copilot-instructions.md, .cursor/rules/*.mdc, CLAUDE.md, AGENTS.md and .clinerules.',
      );
    }

    const parsed = new Map<ImportFormat, { files: number; result: ImportResult }>();
    for (const { format, files } of detected) {
      const read = readFolderFiles(
        listing.root,
        files.map((p) => toLocal.get(p)!),
      );
      const sources = read.files.map((f) => ({ path: `${prefix}${f.path}`, content: f.content }));
      const result = importDetected(format, sources);
      result.skipped.unshift(...read.skipped.map((s) => ({ ...s, where: `${prefix}${s.where}` })));
      parsed.set(format, { files: files.length, result });
    }

    let formats: FormatReport[];
    if (!dryRun) {
      formats = await withWrite(context, (store) => applyImport(store, parsed));
    } else {
      const dbExists = fs.existsSync(stringOption(context.options, 'db') ? path.resolve(context.cwd, stringOption(context.options, 'db')!) : defaultDatabasePath(context.cwd).file);
      // Runs the import on an in-memory copy that is never saved.
      formats = dbExists
        ? await withRead(context, (store) => applyImport(store, parsed))
        : await (async () => {
            const store = Store.open(await loadSqlJs());
            try {
              return applyImport(store, parsed);
            } finally {
              store.close();
            }
          })();
    }
    const report: FolderImportReport = { folder, dryRun, formats, skipped: listing.skipped };
    if (isJson(context)) {
      return printJson(context, {
        ...report,
        formats: formats.map((f) => ({
          format: f.format,
          files: f.files,
          added: f.added.length,
          updated: f.updated.length,
          unchanged: f.unchanged.length,
          tasksAdded: f.tasksAdded.length,
          tasksUnchanged: f.tasksUnchanged.length,
          skipped: f.skipped,
        })),
      });
    }
    context.out(renderReport(report));
  },
};

export const INTEROP_COMMANDS: readonly Command[] = [importFolderCommand];
