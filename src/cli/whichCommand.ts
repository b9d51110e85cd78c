import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderWhichReport } from '../core/formats/ruleSimulator';
import { whichRules } from '../node/whichRules';
import { type Command, databasePath, isJson, printJson, withRead, workspaceOf } from './commandContext';

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
    const workspace = workspaceOf(context);
    const absolute = path.resolve(context.cwd, context.positionals[0]!);
    const artifacts = fs.existsSync(databasePath(context).file) ? await withRead(context, (store) => store.latestArtifacts()) : [];
    const report = whichRules(workspace, absolute, artifacts);
    if (isJson(context)) return printJson(context, report);
    context.out(renderWhichReport(report));
  },
};
