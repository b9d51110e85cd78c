/**
 * Interop commands: import the knowledge a team already keeps in a folder (ctx
 * `.context/`, ADR folders, Copilot / Cursor / Claude / AGENTS.md / Cline rule files).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IMPORT_FORMATS, type ImportFormat } from '../core/formats/common';
import { RULE_FILE_BUDGET, RULE_TARGET_NAMES, type RuleTarget } from '../core/formats/ruleExport';
import type { TokenizerName } from '../core/model';
import { isTokenizerName, TOKENIZERS, UserError } from '../core/model';
import { TokenCounter } from '../core/tokens';
import {
  allSkipped,
  NOT_IMPORTED,
  applyImport,
  type FolderImportReport,
  type FormatReport,
  type ImportStatus,
  importStatus,
  nothingToImport,
  parseImportSources,
  previewImport,
  scanImportSources,
} from '../node/folderImport';
import { type RuleFilesWritten, writeRuleFiles } from '../node/ruleFileExport';
import { integerOption, stringOption } from './args';
import { type Command, type CommandContext, databasePath, isJson, printJson, withRead, withWrite, workspaceOf } from './commandContext';
import { resolveCommand, syncCommand } from './syncCommand';
import { whichCommand } from './whichCommand';

function isImportFormat(value: string): value is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(value);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** At most this many changed entries are named in the text report (all are in --format json). */
const NAMED_CHANGES = 200;

function renderReport(report: FolderImportReport): string {
  const lines = [`${report.dryRun ? 'Dry run (nothing written): would import' : 'Imported'} from ${report.folder}:`];
  for (const f of report.formats) {
    const tasks = f.tasksAdded.length + f.tasksUnchanged.length > 0 ? `; tasks ${f.tasksAdded.length} added, ${f.tasksUnchanged.length} unchanged` : '';
    const more = [f.detached.length > 0 ? `, ${f.detached.length} detached` : '', f.removed.length > 0 ? `, ${f.removed.length} removed` : ''].join('');
    lines.push(
      `  ${f.format.padEnd(9)}  ${plural(f.files, 'file').padEnd(9)}  ${f.added.length} added, ${f.updated.length} updated, ${f.unchanged.length} unchanged${more}, ${f.skipped.length} skipped${tasks}`,
    );
  }
  const changes = report.formats.flatMap((f) => f.changes);
  if (changes.length > 0) {
    const verbs = report.dryRun
      ? { added: 'would add', updated: 'would update', detached: 'would detach', removed: 'would archive', unchanged: '' }
      : { added: 'added', updated: 'updated', detached: 'detached', removed: 'archived', unchanged: '' };
    lines.push('', report.dryRun ? 'Would change:' : 'Changed:');
    for (const c of changes.slice(0, NAMED_CHANGES)) lines.push(`  ${verbs[c.outcome].padEnd(13)} ${c.id}  "${c.title}"  (${c.reason})`);
    if (changes.length > NAMED_CHANGES) lines.push(`  … and ${changes.length - NAMED_CHANGES} more (--format json lists all).`);
  }
  const became = report.formats.flatMap((f) => f.became);
  if (became.length > 0) {
    lines.push('', report.dryRun ? 'Would read each file as:' : 'Read each file as:');
    for (const b of became.slice(0, NAMED_CHANGES)) lines.push(`  ${b.where}: ${b.what}`);
    if (became.length > NAMED_CHANGES) lines.push(`  … and ${became.length - NAMED_CHANGES} more (--format json lists all).`);
  }
  const skipped = allSkipped(report);
  if (skipped.length > 0) {
    // Links out of the folder are the same every run and rarely news: one line for all of them.
    const links = skipped.filter((s) => /symbolic link/.test(s.reason));
    const rest = skipped.filter((s) => !/symbolic link/.test(s.reason));
    lines.push('', 'Skipped:');
    for (const s of rest.slice(0, 50)) lines.push(`  ${s.where}: ${s.reason}`);
    if (rest.length > 50) lines.push(`  … and ${rest.length - 50} more.`);
    if (links.length > 0) lines.push(`  ${plural(links.length, 'symbolic link')} to folders or outside the folder, not followed (--format json lists them).`);
  }
  return lines.join('\n');
}

const importFolderCommand: Command = {
  name: 'import-folder',
  summary: 'Import the knowledge a folder already keeps: ctx .context/, ADRs, agent rule files (Copilot, Cursor, Claude, AGENTS.md, Cline, Kiro, Windsurf, Gemini, Junie, Continue, Roo, Amazon Q, Augment, Zed) and skills.',
  usage: `context-ledger import-folder [<dir>] [--from ${IMPORT_FORMATS.join('|')}] [--dry-run | --status] [--format json]`,
  options: {
    from: { type: 'string', value: IMPORT_FORMATS.join('|'), description: 'Only this format (default: every format found).' },
    'dry-run': { type: 'boolean', description: 'Report what would be imported; write nothing.' },
    status: { type: 'boolean', description: 'Drift between the knowledge files and the ledger, by file (new, changed, removed), and detached entries; writes nothing.' },
  },
  positionals: [0, 1],
  details: [
    '<dir> defaults to the workspace (the folder holding the ledger, else the current folder).',
    'node_modules and .git are not searched; links out of the folder are not followed; binary,',
    'non-UTF-8 and over-10 MB files are skipped with a note. Re-importing is idempotent: unchanged',
    'entries are left alone, changed ones become new versions of their chain.',
  ].join('\n'),
  async run(context) {
    const given = stringOption(context.options, 'from');
    // `agents` is the name `export --to` uses for the same format: both are accepted.
    const from = given === 'agents' ? 'agents-md' : given;
    if (from !== undefined && !isImportFormat(from)) throw new UserError(`Unknown format "${from}".`, `Use one of: ${IMPORT_FORMATS.join(', ')}.`);
    const status = context.options.status === true;
    if (status && context.options['dry-run'] === true) throw new UserError('--status and --dry-run are two views of the same check: give one.');
    return importFolder(context, { target: context.positionals[0], from, dryRun: status || context.options['dry-run'] === true, status });
  },
};

function renderStatus(status: ImportStatus): string {
  const lines = [`Knowledge files in ${status.folder} and the ledger:`];
  if (status.drift.length === 0) lines.push(`  all ${plural(status.inStep, 'knowledge file')} in step with the ledger.`);
  else {
    for (const d of status.drift) {
      const counts = new Map<string, number>();
      for (const c of d.changes) counts.set(c.outcome, (counts.get(c.outcome) ?? 0) + 1);
      const what = [...counts].map(([outcome, n]) => `${n} ${outcome === 'removed' ? 'to archive' : outcome === 'added' ? 'to add' : outcome === 'updated' ? 'to update' : 'to detach'}`).join(', ');
      lines.push(`  ${d.state.padEnd(8)} ${d.file}  (${what})`);
    }
    lines.push(`  ${plural(status.inStep, 'other knowledge file')} in step. \`context-ledger import-folder\` brings the ledger up to date.`);
  }
  if (status.detached.length > 0) {
    lines.push('', 'Detached from their files (the ledger\'s edit kept; imports leave them alone):');
    for (const d of status.detached) lines.push(`  ${d.id}  "${d.title}"  ${d.file}: ${d.reason}`);
  }
  return lines.join('\n');
}

/** The import is the refresh of the knowledge files: the session does not do it first, so the report says what changed. */
const NOT_FOLLOWING = { knowledge: false };

/** `import-folder`, and `import --from <format> <path>` (a folder or one file of that format). */
export async function importFolder(
  context: CommandContext,
  request: { target?: string; from?: ImportFormat; dryRun: boolean; status?: boolean },
): Promise<number | void> {
  const { from, dryRun } = request;
  const workspace = workspaceOf(context);
  const scan = scanImportSources(workspace, path.resolve(context.cwd, request.target ?? workspace), from);
  const folder = scan.folder;
  if (scan.detected.length === 0) throw nothingToImport(folder, from);
  const parsed = parseImportSources(scan);

  let formats: FormatReport[];
  if (!dryRun) {
    formats = await withWrite(context, (store) => applyImport(store, parsed), true, NOT_FOLLOWING);
  } else {
    const dbExists = fs.existsSync(databasePath(context).file);
    // Runs the import on an in-memory copy that is never saved.
    formats = dbExists
      ? await withRead(context, (store) => applyImport(store, parsed), NOT_FOLLOWING)
      : await previewImport(undefined, parsed);
  }
  if (request.status) {
    const latest = fs.existsSync(databasePath(context).file) ? await withRead(context, (store) => store.latestArtifacts(), NOT_FOLLOWING) : [];
    const status = importStatus(scan, formats, latest);
    if (isJson(context)) return printJson(context, status);
    context.out(renderStatus(status));
    return;
  }
  const report: FolderImportReport = { folder, dryRun, formats, skipped: scan.listing.skipped };
  // Entries the ledger refused (a section over 4 MB): the rest landed; exit 1 says not all of it did.
  const refused = allSkipped(report).filter((s) => s.reason.startsWith(NOT_IMPORTED));
  const refusedExit = (): number | undefined => {
    if (refused.length === 0) return undefined;
    context.err(`context-ledger: ${plural(refused.length, 'section')} not imported (${refused.map((s) => s.where).slice(0, 3).join('; ')}${refused.length > 3 ? '; …' : ''}); everything else was ${dryRun ? 'checked' : 'imported'}.`);
    return 1;
  };
  if (isJson(context)) {
    printJson(context, {
      ...report,
      formats: formats.map((f) => ({
        format: f.format,
        files: f.files,
        added: f.added.length,
        updated: f.updated.length,
        unchanged: f.unchanged.length,
        detached: f.detached.length,
        removed: f.removed.length,
        changes: f.changes,
        tasksAdded: f.tasksAdded.length,
        tasksUnchanged: f.tasksUnchanged.length,
        skipped: f.skipped,
        became: f.became,
      })),
    });
    return refusedExit();
  }
  context.out(renderReport(report));
  return refusedExit();
}

// ---------------------------------------------------------------- export --to

/** `--to` names: each target's own, and `agents` for AGENTS.md. */
const TARGET_NAMES: Record<string, RuleTarget> = { ...Object.fromEntries(RULE_TARGET_NAMES.map((t) => [t, t])), agents: 'agents-md' };

export type RuleExportReport = RuleFilesWritten & { budget: number; tokenizer: TokenizerName };

/**
 * `export --to <tool>` (copilot, cursor, agents, kiro, windsurf, continue, roo, amazonq, augment, gemini): the ledger's active, reviewed knowledge as rule
 * files agents read on their own, each within the per-file budget. It writes only under
 * its folder, only files that are its own (generated header) or new, and removes its own
 * files an earlier export wrote that are no longer produced.
 */
export async function exportRuleFiles(context: CommandContext, targetName: string): Promise<number | void> {
  const target = Object.hasOwn(TARGET_NAMES, targetName) ? TARGET_NAMES[targetName] : undefined;
  if (!target) throw new UserError(`Unknown export target "${targetName}".`, `Use --to ${RULE_TARGET_NAMES.map((t) => (t === 'agents-md' ? 'agents' : t)).join('|')}.`);
  const budget = integerOption(context.options, 'budget', RULE_FILE_BUDGET.default);
  if (budget < RULE_FILE_BUDGET.min || budget > RULE_FILE_BUDGET.max) {
    throw new UserError(`--budget must be between ${RULE_FILE_BUDGET.min} and ${RULE_FILE_BUDGET.max} tokens per file, not ${budget}.`);
  }
  const tokenizer = stringOption(context.options, 'tokenizer') ?? 'o200k_base';
  if (!isTokenizerName(tokenizer)) throw new UserError(`Unknown tokenizer "${tokenizer}".`, `Use one of: ${TOKENIZERS.join(', ')}.`);
  const root = path.resolve(context.cwd, stringOption(context.options, 'out') ?? workspaceOf(context));

  const latest = await withRead(context, (store) => store.latestArtifacts());
  const counter = await TokenCounter.load(tokenizer);
  const written = writeRuleFiles(root, target, latest, { budget, count: (text) => counter.count(text) });
  const report: RuleExportReport = { ...written, budget, tokenizer };

  if (isJson(context)) printJson(context, report);
  else {
    const lines = [`Exported to ${target} in ${report.folder} (at most ${budget} ${tokenizer} tokens a file):`];
    for (const f of report.files) {
      const notes = [
        f.compressed ? `${f.compressed} compressed to fit` : '',
        f.split ? `${f.split} in parts across files` : '',
        f.dropped ? `${f.dropped} moved on to the next file (named in "Also noted")` : '',
      ].filter(Boolean);
      lines.push(`  ${f.path}  ${f.tokens} tokens, ${plural(f.included, 'artifact')}${notes.length > 0 ? `, ${notes.join(', ')}` : ''}`);
    }
    for (const l of report.leftOut) lines.push(`  left out ${l.id}  "${l.title}": ${l.reason}`);
    if (report.files.length === 0 && report.refused.length === 0) lines.push('  nothing to export: no active, reviewed global or path-scoped artifacts.');
    for (const r of report.removed) lines.push(`  removed ${r} (an earlier export; no longer produced)`);
    if (report.unreviewed > 0) lines.push(`  ${plural(report.unreviewed, 'unreviewed artifact')} left out (approve with \`context-ledger review approve <id>\`).`);
    context.out(lines.join('\n'));
  }
  for (const r of report.refused) context.err(`context-ledger: refused to overwrite ${r.path}: it ${r.reason}. Export elsewhere with --out <folder>.`);
  return report.refused.length > 0 ? 1 : 0;
}

export const INTEROP_COMMANDS: readonly Command[] = [importFolderCommand, syncCommand, resolveCommand, whichCommand];
