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
    const files: AgentFile[] = [];
    for (const uri of uris) {
      try {
        const stat = await vscode.workspace.fs.stat(uri);
        if (stat.size > MAX_BYTES) continue;
        const content = decoder.decode(await vscode.workspace.fs.readFile(uri));
        files.push({ path: vscode.workspace.asRelativePath(uri, false), content });
      } catch {
        // Deleted between the search and the read: it no longer costs the agent anything.
      }
    }
    return files;
  }
}
