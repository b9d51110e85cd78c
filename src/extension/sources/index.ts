import * as vscode from 'vscode';
import { type LiveCandidate, type PlainDiagnostic, type PlainSymbol, type Severity, type SourceKind, SourceCache, outlineFromSymbols } from '../../core/sources';
import { collectLiveSources } from '../../node/sources';
import type { TerminalFailures } from './terminalLogs';
import { relativePathIn } from '../workspaceUris';

/**
 * Live sources in the editor: the same collector as the CLI, fed with what only the
 * editor knows — unsaved text of open documents, outlines from the language servers'
 * symbol providers (any language with one), and the problems the editor shows.
 */
export interface EditorSourceRequest {
  folder: vscode.WorkspaceFolder;
  kinds: readonly SourceKind[];
  task?: { title?: string; description?: string; labels?: readonly string[] };
  /** Visible editors, the active one first (workspace-relative). */
  visible: readonly string[];
  /** Other open tabs (workspace-relative). */
  open: readonly string[];
  /** Workspace log files the logs source reads (`contextLedger.sources.logFiles`). */
  logFiles?: readonly string[];
}

const SEVERITY: Record<vscode.DiagnosticSeverity, Severity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function plainSymbols(symbols: readonly (vscode.DocumentSymbol | vscode.SymbolInformation)[]): PlainSymbol[] {
  return symbols.map((s) =>
    'children' in s
      ? { name: s.name, kind: vscode.SymbolKind[s.kind], detail: s.detail, line: s.selectionRange.start.line, children: plainSymbols(s.children) }
      : { name: s.name, kind: vscode.SymbolKind[s.kind], line: s.location.range.start.line },
  );
}

export class EditorSources {
  /** Outlines per document version: the symbol provider is asked again only after an edit. */
  private readonly outlines = new SourceCache<Promise<string | undefined>>(500);

  constructor(private readonly terminals?: TerminalFailures) {}

  async collect(request: EditorSourceRequest): Promise<LiveCandidate[]> {
    const { folder } = request;
    const rel = (uri: vscode.Uri): string | undefined => relativePathIn(folder, uri);
    const documents = new Map<string, vscode.TextDocument>();
    for (const doc of vscode.workspace.textDocuments) {
      if (vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.toString() !== folder.uri.toString()) continue;
      const path = rel(doc.uri);
      if (path) documents.set(path, doc);
    }
    const outlines = new Map<string, string>();
    if (request.kinds.includes('code')) {
      await Promise.all(
        [...request.visible, ...request.open].map(async (path) => {
          const doc = documents.get(path);
          if (!doc) return;
          const outline = await this.outlines.get(doc.uri.toString(), String(doc.version), () => this.outlineOf(doc));
          if (outline) outlines.set(path, outline);
        }),
      );
    }
    const diagnostics: PlainDiagnostic[] = [];
    if (request.kinds.includes('diagnostics')) {
      for (const [uri, list] of vscode.languages.getDiagnostics()) {
        if (vscode.workspace.getWorkspaceFolder(uri)?.uri.toString() !== folder.uri.toString()) continue;
        const path = rel(uri);
        if (!path) continue;
        for (const d of list) {
          diagnostics.push({
            path,
            line: d.range.start.line + 1,
            column: d.range.start.character + 1,
            severity: SEVERITY[d.severity],
            message: d.message,
            ...(d.source ? { source: d.source } : {}),
            ...(d.code !== undefined ? { code: String(typeof d.code === 'object' ? d.code.value : d.code) } : {}),
          });
        }
      }
    }
    return collectLiveSources({
      root: folder.uri.fsPath,
      // Running git in a workspace we do not trust can run its code (hooks, fsmonitor, aliases in .git/config),
      // which is why VS Code's own Git is off in Restricted Mode too. Logs are off there as well: a cloned
      // repository's log files are text its authors chose to put in front of the agent.
      kinds: vscode.workspace.isTrusted ? request.kinds : request.kinds.filter((kind) => kind !== 'git' && kind !== 'logs'),
      ...(request.kinds.includes('logs') && this.terminals ? { logInputs: this.terminals.recent(folder) } : {}),
      ...(request.logFiles ? { logGlobs: request.logFiles } : {}),
      ...(request.task ? { task: request.task } : {}),
      paths: request.visible,
      open: request.open,
      textOf: (path) => documents.get(path)?.getText(),
      outlines,
      diagnostics,
    });
  }

  private async outlineOf(doc: vscode.TextDocument): Promise<string | undefined> {
    try {
      const symbols = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>('vscode.executeDocumentSymbolProvider', doc.uri);
      if (!symbols || symbols.length === 0) return undefined;
      return outlineFromSymbols(plainSymbols(symbols), doc.getText());
    } catch {
      // No symbol provider for the language: the lexer-level outline stands in.
      return undefined;
    }
  }
}
