/**
 * Interop commands: import the knowledge a team already keeps in a folder (ctx
 * `.context/`, ADR folders, Copilot / Cursor / Claude / AGENTS.md / Cline rule files).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { detectFormats, formatOf, importDetected } from '../core/formats/detect';
import { isAdrFileName } from '../core/formats/adr';
import { IMPORT_FORMATS, type ImportFormat, type ImportResult, type Skipped } from '../core/formats/common';
import { exportRules, isGeneratedRuleFile, type RuleTarget } from '../core/formats/ruleExport';
import type { ArtifactInput, TokenizerName } from '../core/model';
import { isTokenizerName, TOKENIZERS, UserError } from '../core/model';
import { isUnreviewed } from '../core/review';
import { TokenCounter } from '../core/tokens';
import { OutputFolder } from '../node/outputFolder';
import type { LedgerStore } from '../core/store';
import { LedgerStore as Store } from '../core/store';
import { loadSqlJs } from '../node/ledgerFile';
import { type FolderListing, listFolder, readFolderFiles } from '../node/sourceFolder';
import { integerOption, stringOption } from './args';
import { type Command, type CommandContext, databasePath, isJson, printJson, withRead, withWrite, workspaceOf } from './commands';
import { syncCommand } from './syncCommand';
import { whichCommand } from './whichCommand';

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
    return importFolder(context, { target: context.positionals[0], from, dryRun: context.options['dry-run'] === true });
  },
};

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

/** `import-folder`, and `import --from <format> <path>` (a folder or one file of that format). */
export async function importFolder(context: CommandContext, request: { target?: string; from?: ImportFormat; dryRun: boolean }): Promise<number | void> {
  const { from, dryRun } = request;
  const workspace = workspaceOf(context);
  const folder = path.resolve(context.cwd, request.target ?? workspace);
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
    const dbExists = fs.existsSync(databasePath(context).file);
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
}

// ---------------------------------------------------------------- export --to

const RULE_TARGETS: Record<string, RuleTarget> = { copilot: 'copilot', cursor: 'cursor', agents: 'agents-md', 'agents-md': 'agents-md' };

/** Where each target writes, so files of an earlier export that are no longer produced can be removed. */
const OWN_FILES: Record<RuleTarget, RegExp> = {
  copilot: /^\.github\/instructions\/context-ledger-[^/]+\.instructions\.md$/,
  cursor: /^\.cursor\/rules\/context-ledger-[^/]+\.mdc$/,
  'agents-md': /^AGENTS\.md$/,
};

export interface RuleExportReport {
  target: RuleTarget;
  folder: string;
  budget: number;
  tokenizer: TokenizerName;
  files: { path: string; tokens: number; included: number; dropped: number }[];
  removed: string[];
  refused: { path: string; reason: string }[];
  unreviewed: number;
}

/**
 * `export --to copilot|cursor|agents`: the ledger's active, reviewed knowledge as rule
 * files agents read on their own, each within the per-file budget. It writes only under
 * its folder, only files that are its own (generated header) or new, and removes its own
 * files an earlier export wrote that are no longer produced.
 */
export async function exportRuleFiles(context: CommandContext, targetName: string): Promise<number | void> {
  const target = RULE_TARGETS[targetName];
  if (!target) throw new UserError(`Unknown export target "${targetName}".`, 'Use --to copilot, --to cursor or --to agents.');
  const budget = integerOption(context.options, 'budget', 4000);
  if (budget < 100 || budget > 1_000_000) throw new UserError(`--budget must be between 100 and 1000000 tokens per file, not ${budget}.`);
  const tokenizer = stringOption(context.options, 'tokenizer') ?? 'o200k_base';
  if (!isTokenizerName(tokenizer)) throw new UserError(`Unknown tokenizer "${tokenizer}".`, `Use one of: ${TOKENIZERS.join(', ')}.`);
  const folder = new OutputFolder(path.resolve(context.cwd, stringOption(context.options, 'out') ?? workspaceOf(context)));

  const latest = await withRead(context, (store) => store.latestArtifacts());
  // Rule files are read by agents as instructions: what an agent wrote and no person approved stays out.
  const reviewed = latest.filter((a) => !isUnreviewed(a));
  const counter = await TokenCounter.load(tokenizer);
  const files = exportRules(target, reviewed, { budget, count: (text) => counter.count(text) });

  const report: RuleExportReport = {
    target, folder: folder.root, budget, tokenizer, files: [], removed: [], refused: [],
    unreviewed: latest.filter((a) => a.status === 'active' && a.scope !== 'task' && isUnreviewed(a)).length,
  };
  for (const file of files) {
    const existing = folder.read(file.path);
    if (existing !== undefined && !isGeneratedRuleFile(existing)) {
      report.refused.push({ path: file.path, reason: 'exists and was not written by Context Ledger (no generated header); left as it is' });
      continue;
    }
    if (existing !== file.content) folder.write(file.path, file.content);
    report.files.push({ path: file.path, tokens: file.tokens, included: file.included.length, dropped: file.dropped.length });
  }
  const written = new Set(files.map((f) => f.path));
  const ownFolder = target === 'copilot' ? '.github/instructions' : target === 'cursor' ? '.cursor/rules' : '';
  let names: string[] = [];
  try {
    names = ownFolder === '' ? [] : fs.readdirSync(folder.resolve(ownFolder));
  } catch {
    // No such folder yet.
  }
  for (const name of names) {
    const relative = `${ownFolder}/${name}`;
    if (written.has(relative) || !OWN_FILES[target].test(relative)) continue;
    const existing = folder.read(relative);
    if (existing !== undefined && isGeneratedRuleFile(existing)) {
      folder.remove(relative);
      report.removed.push(relative);
    }
  }

  if (isJson(context)) printJson(context, report);
  else {
    const lines = [`Exported to ${target} in ${folder.root} (at most ${budget} ${tokenizer} tokens a file):`];
    for (const f of report.files) lines.push(`  ${f.path}  ${f.tokens} tokens, ${plural(f.included, 'artifact')}${f.dropped ? `, ${f.dropped} left out for the budget (named in "Also noted")` : ''}`);
    if (report.files.length === 0 && report.refused.length === 0) lines.push('  nothing to export: no active, reviewed global or path-scoped artifacts.');
    for (const r of report.removed) lines.push(`  removed ${r} (an earlier export; no longer produced)`);
    if (report.unreviewed > 0) lines.push(`  ${plural(report.unreviewed, 'unreviewed artifact')} left out (approve with \`context-ledger review approve <id>\`).`);
    context.out(lines.join('\n'));
  }
  for (const r of report.refused) context.err(`context-ledger: refused to overwrite ${r.path}: it ${r.reason}. Export elsewhere with --out <folder>.`);
  return report.refused.length > 0 ? 1 : 0;
}

export const INTEROP_COMMANDS: readonly Command[] = [importFolderCommand, syncCommand, whichCommand];
