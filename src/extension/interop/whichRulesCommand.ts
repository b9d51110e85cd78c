import * as path from 'node:path';
import * as vscode from 'vscode';
import { classifyRuleFile } from '../../core/formats/agentRules';
import type { SourceFile } from '../../core/formats/common';
import { renderWhichReport, simulateRules, type WhichReport } from '../../core/formats/ruleSimulator';
import type { Artifact } from '../../core/model';
import { MAX_SOURCE_FILE_BYTES } from '../../node/sourceFolder';
import { whichRules } from '../../node/whichRules';
import type { Services } from '../services';
import { isWorkspaceFile, relativePathIn } from '../workspaceUris';
import { WHICH_SCHEME } from './ids';

/** A virtual workspace is listed through the file system API; past this many files the glob checks judge what was listed. */
const MAX_LISTED_FILES = 50_000;

/**
 * "Which Rules Apply to This File?": the report for `uri` (the Explorer's or the editor's
 * file, else the active editor), opened beside it. A local or remote file (a remote extension
 * host sees `file`) goes through the CLI's `which`; a virtual workspace's file through
 * vscode.workspace.fs, since node's fs cannot read it.
 */
export async function showWhichRules(s: Services, arg: unknown, show: (doc: vscode.Uri, text: string) => Promise<void>): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (!uri || !isWorkspaceFile(uri)) {
    void vscode.window.showWarningMessage('Context Ledger: open a file of the workspace first; "Which Rules Apply" works on the active editor.');
    return;
  }
  const folder = s.registry.folderOf(uri);
  const relative = folder ? relativePathIn(folder, uri) : undefined;
  if (!folder || relative === undefined) {
    void vscode.window.showWarningMessage(`Context Ledger: ${path.posix.basename(uri.path)} is not inside a workspace folder.`);
    return;
  }
  const artifacts = await s.registry.get(folder).read((store) => store.latestArtifacts());
  const report = folder.uri.scheme === 'file' ? whichRules(folder.uri.fsPath, uri.fsPath, artifacts) : await whichRulesThroughFs(folder, relative, artifacts);
  const fires = report.rules.filter((r) => r.fires).length;
  const text = [
    `Which rules apply — ${folder.name}/${report.path}`,
    `${report.artifacts.path.length} path-scoped artifacts, ${fires} of ${report.rules.length} rule files fire, ${report.problems.length} glob problems.`,
    '',
    renderWhichReport(report),
    '',
  ].join('\n');
  const doc = vscode.Uri.from({ scheme: WHICH_SCHEME, path: `/Which rules apply (${path.posix.basename(report.path)}).txt`, query: `${folder.name}/${report.path}` });
  await show(doc, text);
}

async function whichRulesThroughFs(folder: vscode.WorkspaceFolder, relative: string, artifacts: readonly Artifact[]): Promise<WhichReport> {
  const listed = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), undefined, MAX_LISTED_FILES);
  const paths = listed.map((u) => relativePathIn(folder, u)).filter((p): p is string => p !== undefined).sort();
  const ruleFiles: SourceFile[] = [];
  for (const rel of paths.filter((p) => classifyRuleFile(p) !== null)) {
    const uri = vscode.Uri.joinPath(folder.uri, ...rel.split('/'));
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if ((stat.type & vscode.FileType.File) === 0 || stat.size > MAX_SOURCE_FILE_BYTES) continue;
      ruleFiles.push({ path: rel, content: new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri)) });
    } catch {
      // Gone or unreadable since it was listed: judged without it.
    }
  }
  return simulateRules(relative, paths, ruleFiles, artifacts);
}
