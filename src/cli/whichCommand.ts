import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyRuleFile } from '../core/formats/agentRules';
import { simulateRules, type WhichReport } from '../core/formats/ruleSimulator';
import { UserError } from '../core/model';
import { listFolder, readFolderFiles } from '../node/sourceFolder';
import { type Command, databasePath, isJson, printJson, withRead, workspaceOf } from './commands';

function renderWhich(report: WhichReport): string {
  const lines = [`${report.path}`, '', `Ledger artifacts: ${report.artifacts.global} global (${report.artifacts.pinned} pinned) apply everywhere; for this path:`];
  if (report.artifacts.path.length === 0) lines.push('  none path-scoped');
  for (const a of report.artifacts.path) lines.push(`  ${a.id}  ${a.type}  ${a.title}  <- ${a.why}`);
  lines.push('', 'Rule files:');
  if (report.rules.length === 0) lines.push('  none in the workspace');
  for (const r of report.rules) lines.push(`  ${r.fires ? 'fires  ' : 'silent '} ${r.path}  (${r.why})`);
  if (report.problems.length > 0) {
    lines.push('', 'Glob problems:');
    for (const p of report.problems) lines.push(`  ${p.where} ${p.field}: ${p.problem}`);
  }
  return lines.join('\n');
}

export const whichCommand: Command = {
  name: 'which',
  summary: 'Which artifacts and which Copilot/Cursor/Claude/AGENTS.md rules apply to a file; lints rule globs.',
  usage: 'context-ledger which <path> [--format json]',
  options: {},
  positionals: [1, 1],
  details:
    'The path is a workspace file (it need not exist yet). Glob mistakes reported: a space after a comma, a YAML list where the\n' +
    'tool reads one string (Copilot applyTo, Cursor globs), a pattern that matches no file, a pattern outside the workspace.',
  async run(context) {
    const workspace = fs.realpathSync(workspaceOf(context));
    const absolute = path.resolve(context.cwd, context.positionals[0]!);
    let real = absolute;
    try {
      real = fs.realpathSync(absolute);
    } catch {
      // Not there yet: judge the path as given.
    }
    const relative = path.relative(workspace, real);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new UserError(`${context.positionals[0]} is outside the workspace ${workspace}.`, 'Give a file inside it (run from the workspace, or pass --db of its ledger).');
    }
    const listing = listFolder(workspace);
    const ruleFiles = readFolderFiles(workspace, listing.paths.filter((p) => classifyRuleFile(p) !== null)).files;
    const artifacts = fs.existsSync(databasePath(context).file) ? await withRead(context, (store) => store.latestArtifacts()) : [];
    const report = simulateRules(relative.split(path.sep).join('/'), listing.paths, ruleFiles, artifacts);
    if (isJson(context)) return printJson(context, report);
    context.out(renderWhich(report));
  },
};
