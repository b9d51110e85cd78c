import * as path from 'node:path';
import type * as vscode from 'vscode';

/**
 * Schemes of the files a workspace folder holds. `file` is local and also what a remote
 * extension host (SSH, WSL, containers, Codespaces, code-server) sees; `vscode-remote` is
 * what the workbench, and so a `when` clause, sees for those same files; `vscode-vfs` is a
 * virtual workspace (github.dev, Remote Repositories). The manifest's `when` clauses use the
 * same list (WORKSPACE_SCHEME_WHEN).
 */
export const WORKSPACE_FILE_SCHEMES: ReadonlySet<string> = new Set(['file', 'vscode-remote', 'vscode-vfs']);

/** The `when`-clause test for a resource of a workspace, in step with WORKSPACE_FILE_SCHEMES. */
export const WORKSPACE_SCHEME_WHEN = `resourceScheme =~ /^(${[...WORKSPACE_FILE_SCHEMES].join('|')})$/`;

export function isWorkspaceFile(uri: vscode.Uri): boolean {
  return WORKSPACE_FILE_SCHEMES.has(uri.scheme);
}

/**
 * Workspace-relative path with forward slashes, or undefined outside the folder (or for the
 * folder itself). A local file compares native paths (case and separators as the platform
 * has them); any other scheme compares the URI paths, which are always `/`-separated.
 */
export function relativePathIn(folder: vscode.WorkspaceFolder, uri: vscode.Uri): string | undefined {
  if (uri.scheme !== folder.uri.scheme || uri.authority.toLowerCase() !== folder.uri.authority.toLowerCase()) return undefined;
  const local = uri.scheme === 'file';
  const rel = local ? path.relative(folder.uri.fsPath, uri.fsPath) : path.posix.relative(folder.uri.path, uri.path);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel) || path.posix.isAbsolute(rel)) return undefined;
  return local ? rel.split(path.sep).join('/') : rel;
}

/** Whether `uri` is the folder itself. */
export function isFolderRoot(folder: vscode.WorkspaceFolder, uri: vscode.Uri): boolean {
  return uri.scheme === folder.uri.scheme && uri.authority === folder.uri.authority && uri.path.replace(/\/+$/, '') === folder.uri.path.replace(/\/+$/, '');
}
