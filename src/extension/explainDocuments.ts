import * as vscode from 'vscode';
import type { BuiltContext } from './contextService';
import { DisposableBase } from './disposable';
import { EXPLAIN_SCHEME } from './ids';

/**
 * Read-only documents of a build: the explain report (what went in, what was cut and why)
 * and the context itself as a Markdown preview. Virtual, so closing one never asks to save.
 */
export class ExplainDocuments extends DisposableBase implements vscode.TextDocumentContentProvider {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  private readonly reports = new Map<string, string>();

  constructor() {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.toString()) ?? 'This report is no longer available: run "Context Ledger: Build agent context" again.';
  }

  async show(built: BuiltContext): Promise<void> {
    const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
    const uri = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: `/Context details${multi ? ` (${built.folder.name})` : ''}.txt` });
    const header = [
      `Context Ledger — built ${built.builtAt.toLocaleString()} (${built.trigger})`,
      `Folder: ${built.folder.name}`,
      `Active paths: ${built.paths.join(', ') || '(none)'}`,
      '',
    ].join('\n');
    const { renderExplain } = await import('../core/assemble/index.js');
    await this.open(uri, `${header}${renderExplain(built.result)}`, { preview: true });
  }

  /** The context Markdown of a build, beside the current editor. */
  async showContext(built: BuiltContext): Promise<void> {
    const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
    const uri = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: `/Agent context${multi ? ` (${built.folder.name})` : ''}.md` });
    await this.open(uri, built.result.text, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  private async open(uri: vscode.Uri, text: string, options: vscode.TextDocumentShowOptions): Promise<void> {
    this.reports.set(uri.toString(), text);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, options);
  }
}
