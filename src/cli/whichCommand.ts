import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderLint, renderWhichReport } from '../core/formats/ruleSimulator';
import { lintWorkspaceRules, whichRules } from '../node/whichRules';
import { UserError } from '../core/model';
import { type Command, databasePath, isJson, printJson, withRead, workspaceOf } from './commandContext';

export const whichCommand: Command = {
  name: 'which',
  summary: 'Which artifacts and which Copilot/Cursor/Claude/AGENTS.md rules apply to a file; lints rule globs.',
  usage: 'context-ledger which <path> | --lint [--format json]',
  options: {
    lint: { type: 'boolean', description: 'The glob problems of every rule file and ledger artifact of the workspace, once.' },
  },
  positionals: [0, 1],
  details:
    'The path is a workspace file (it need not exist yet). One verdict per rule file, with the problems of the rule files that\n' +
    'could apply to it. Glob mistakes reported: a space after a comma, a YAML list where the tool reads one string (Copilot\n' +
    'applyTo, Cursor globs: the file then never fires by them), a pattern that matches no file, a pattern outside the workspace.',
  async run(context) {
    const workspace = workspaceOf(context);
    const lint = context.options.lint === true;
    const given = context.positionals[0];
    if (lint === (given !== undefined)) throw new UserError('Give a path, or --lint for the whole workspace (not both).', 'context-ledger which src/app.ts, or context-ledger which --lint');
    const artifacts = fs.existsSync(databasePath(context).file) ? await withRead(context, (store) => store.latestArtifacts()) : [];
    if (lint) {
      const problems = lintWorkspaceRules(workspace, artifacts);
      if (isJson(context)) return printJson(context, { problems });
      context.out(renderLint(problems));
      return;
    }
    const absolute = path.resolve(context.cwd, given!);
    const report = whichRules(workspace, absolute, artifacts);
    if (isJson(context)) return printJson(context, report);
    context.out(renderWhichReport(report));
  },
};
