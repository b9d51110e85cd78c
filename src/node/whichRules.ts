/**
 * `which` on a real workspace (the CLI command and the editor command): the rule files
 * it holds, read safely, run through the rule simulator for one file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyRuleFile } from '../core/formats/agentRules';
import type { SourceFile } from '../core/formats/common';
import { type GlobProblem, lintRules, simulateRules, type WhichReport } from '../core/formats/ruleSimulator';
import type { Artifact } from '../core/model';
import { UserError } from '../core/model';
import { listFolder, readFolderFiles } from './sourceFolder';

/**
 * `file` is absolute, inside `workspace` (it need not exist yet); `artifacts` are the
 * ledger's latest versions. A file outside the workspace is refused.
 */
export function whichRules(workspace: string, file: string, artifacts: readonly Artifact[]): WhichReport {
  const root = fs.realpathSync(workspace);
  let real = file;
  try {
    real = fs.realpathSync(file);
  } catch {
    // Not there yet: judge the path as given.
  }
  const relative = path.relative(root, real);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new UserError(`${file} is outside the workspace ${root}.`, 'Give a file inside it (the CLI finds the workspace from the current folder or --db).');
  }
  const { paths, ruleFiles } = workspaceRules(root);
  const target = relative.split(path.sep).join('/');
  // Continue's `regex` rules match the file's text: read it when it is a workspace file (not a link out).
  const text = paths.includes(target) ? readFolderFiles(root, [target]).files[0]?.content : undefined;
  return simulateRules(target, paths, ruleFiles, artifacts, text);
}

/** The glob problems of every rule file and path-scoped ledger artifact of the workspace. */
export function lintWorkspaceRules(workspace: string, artifacts: readonly Artifact[]): GlobProblem[] {
  const { paths, ruleFiles } = workspaceRules(fs.realpathSync(workspace));
  return lintRules(paths, ruleFiles, artifacts);
}

function workspaceRules(root: string): { paths: string[]; ruleFiles: SourceFile[] } {
  const listing = listFolder(root);
  return { paths: listing.paths, ruleFiles: readFolderFiles(root, listing.paths.filter((p) => classifyRuleFile(p) !== null)).files };
}
