import * as vscode from 'vscode';
import { renderExplain } from '../core/assemble';
import type { BuiltContext } from './contextService';
import { DisposableBase } from './disposable';
import { EXPLAIN_SCHEME } from './ids';

/** Read-only documents with the explain report of a build (what went in, what was cut and why). */
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
    this.reports.set(uri.toString(), `${header}${renderExplain(built.result)}`);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}
