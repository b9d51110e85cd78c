import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { AGENT_FILE_GLOBS } from '../../core/inspector/agentFiles';
import { DisposableBase } from '../disposable';

/** Bigger files are not rule files anyone writes by hand; they are skipped, not read. */
const MAX_BYTES = 1024 * 1024;
const MAX_FILES = 200;

export interface AgentFile {
  path: string;
  content: string;
}

/**
 * Reads the agent rule files of a workspace folder (Copilot, Cursor, Claude, AGENTS.md,
 * Cline) for the inspector, and keeps them until one of them changes on disk.
 */
export class AgentFileReader extends DisposableBase {
  private readonly cache = new Map<string, Promise<AgentFile[]>>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor() {
    super();
    const watcher = this.register(vscode.workspace.createFileSystemWatcher(`{${AGENT_FILE_GLOBS.join(',')}}`));
    const drop = (): void => {
      this.cache.clear();
      this.changed.fire();
    };
    this.register(watcher.onDidCreate(drop));
    this.register(watcher.onDidChange(drop));
    this.register(watcher.onDidDelete(drop));
  }

  read(folder: vscode.WorkspaceFolder): Promise<AgentFile[]> {
    const key = folder.uri.toString();
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.load(folder);
      this.cache.set(key, pending);
      pending.catch(() => this.cache.delete(key));
    }
    return pending;
  }

  private async load(folder: vscode.WorkspaceFolder): Promise<AgentFile[]> {
    const pattern = new vscode.RelativePattern(folder, `{${AGENT_FILE_GLOBS.join(',')}}`);
    const uris = await vscode.workspace.findFiles(pattern, '{**/node_modules/**,**/.git/**}', MAX_FILES);
    const decoder = new TextDecoder('utf-8');
    const files: (AgentFile & { real: string; link: boolean })[] = [];
    for (const uri of uris) {
      try {
        const stat = await vscode.workspace.fs.stat(uri);
        if (stat.size > MAX_BYTES) continue;
        const content = decoder.decode(await vscode.workspace.fs.readFile(uri));
        const link = (stat.type & vscode.FileType.SymbolicLink) !== 0;
        files.push({ path: vscode.workspace.asRelativePath(uri, false), content, link, real: link ? realPath(uri) : uri.toString() });
      } catch {
        // Deleted between the search and the read: it no longer costs the agent anything.
      }
    }
    // CLAUDE.md linked to AGENTS.md is one file loaded once: count the file it points to, not the link too.
    const real = new Set(files.filter((f) => !f.link).map((f) => f.real));
    return files
      .filter((f) => !f.link || !(real.has(f.real) || files.some((o) => !o.link && o.content === f.content && f.real === '')))
      .map(({ path, content }) => ({ path, content }));
  }
}

/** Where a link leads, as a file URI; '' where it cannot be told (a non-local file system). */
function realPath(uri: vscode.Uri): string {
  if (uri.scheme !== 'file') return '';
  try {
    return vscode.Uri.file(fs.realpathSync(uri.fsPath)).toString();
  } catch {
    return '';
  }
}
