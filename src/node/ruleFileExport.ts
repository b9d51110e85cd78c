/**
 * Writes the ledger's active, reviewed knowledge as agent rule files (the tools of
 * core/formats/ruleTargets.ts: Copilot, Cursor, AGENTS.md, Kiro, Windsurf, Continue, Roo
 * Code, Amazon Q, Augment, GEMINI.md), shared by `export --to` and the editor
 * command. Only under its folder, only files that are its own (generated header) or new;
 * its own files from an earlier export that are no longer produced are removed.
 */
import * as fs from 'node:fs';
import { exportRules, isGeneratedRuleFile, type LeftOut, type RuleTarget } from '../core/formats/ruleExport';
import { isExportedPath, RULE_TARGETS } from '../core/formats/ruleTargets';
import type { Artifact } from '../core/model';
import { isUnreviewed } from '../core/review';
import { OutputFolder } from './outputFolder';

export interface RuleFilesWritten {
  target: RuleTarget;
  folder: string;
  /** Per file: artifacts written, of them compressed / in parts, and (AGENTS.md) moved on to AGENTS-2.md…. */
  files: { path: string; tokens: number; included: number; compressed: number; split: number; dropped: number }[];
  removed: string[];
  /** Hand-written files in the way: never overwritten. */
  refused: { path: string; reason: string }[];
  /** Active artifacts left out because no person approved them yet. */
  unreviewed: number;
  /** Left out as not always-on (a rule attached only on request) or as a duplicate, with why. */
  leftOut: LeftOut[];
}

export function writeRuleFiles(
  root: string,
  target: RuleTarget,
  latest: readonly Artifact[],
  options: { budget: number; count: (text: string) => number },
): RuleFilesWritten {
  const folder = new OutputFolder(root);
  // Rule files are read by agents as instructions: what an agent wrote and no person approved stays out.
  const reviewed = latest.filter((a) => !isUnreviewed(a));
  const { files, leftOut } = exportRules(target, reviewed, options);
  const report: RuleFilesWritten = {
    target,
    folder: folder.root,
    files: [],
    removed: [],
    refused: [],
    unreviewed: latest.filter((a) => a.status === 'active' && a.scope !== 'task' && isUnreviewed(a)).length,
    leftOut,
  };
  for (const file of files) {
    const existing = folder.read(file.path);
    if (existing !== undefined && !isGeneratedRuleFile(existing)) {
      report.refused.push({ path: file.path, reason: 'exists and was not written by Context Ledger (no generated header); left as it is' });
      // AGENTS-2.md… are read only through AGENTS.md's "Also noted" line: without it they are not written.
      const spec = RULE_TARGETS[target];
      if (spec.layout === 'single' && file.path === spec.file) break;
      continue;
    }
    if (existing !== file.content) folder.write(file.path, file.content);
    report.files.push({ path: file.path, tokens: file.tokens, included: file.included.length, compressed: file.compressed.length, split: file.split.length, dropped: file.dropped.length });
  }
  const written = new Set(files.map((f) => f.path));
  const spec = RULE_TARGETS[target];
  const ownFolder = spec.layout === 'folder' ? spec.folder : '';
  let names: string[] = [];
  try {
    names = fs.readdirSync(folder.resolve(ownFolder === '' ? '.' : ownFolder));
  } catch {
    // No such folder yet.
  }
  for (const name of names) {
    const relative = ownFolder === '' ? name : `${ownFolder}/${name}`;
    if (written.has(relative) || !isExportedPath(target, relative)) continue;
    const existing = folder.read(relative);
    if (existing !== undefined && isGeneratedRuleFile(existing)) {
      folder.remove(relative);
      report.removed.push(relative);
    }
  }
  return report;
}
