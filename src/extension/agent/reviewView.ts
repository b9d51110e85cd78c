import * as vscode from 'vscode';
import { type Artifact, artifactUrn } from '../../core/model';
import { applyReview } from '../../core/artifactService';
import { isUnreviewed } from '../../core/review';
import { DisposableBase } from '../disposable';
import { COMMANDS } from '../ids';
import type { Services } from '../services';
import { AGENT_COMMANDS, REVIEW_ITEM_CONTEXT, REVIEW_VIEW_ID } from './ids';

export interface ReviewNode {
  kind: 'artifact';
  folder: vscode.WorkspaceFolder;
  artifact: Artifact;
}

/** Latest, active artifacts an agent wrote that no person has approved or rejected yet. */
export function pendingReview(latest: readonly Artifact[]): Artifact[] {
  return latest.filter((a) => a.status === 'active' && isUnreviewed(a));
}

/**
 * "Needs Review": what agents wrote (tools, chat, MCP, inbox), kept apart from reviewed
 * knowledge, with approve / edit (open) / reject on each item.
 */
export class ReviewTreeProvider extends DisposableBase implements vscode.TreeDataProvider<ReviewNode> {
  private readonly changed = this.register(new vscode.EventEmitter<ReviewNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<ReviewNode>;

  constructor(private readonly s: Services) {
    super();
    this.view = this.register(vscode.window.createTreeView(REVIEW_VIEW_ID, { treeDataProvider: this }));
    this.register(
      s.registry.onDidChange((change) => {
        if (change.kind !== 'activity' && change.kind !== 'log') this.changed.fire(undefined);
      }),
    );
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.changed.fire(undefined)));
    const review = (verdict: 'approved' | 'rejected') => async (node?: ReviewNode) => {
      if (!node) return;
      try {
        const after = await s.registry.get(node.folder).write((store) => applyReview(store, node.artifact.id, verdict), 'artifacts');
        s.artifactTree.refresh();
        vscode.window.setStatusBarMessage(`Context Ledger: ${verdict === 'approved' ? 'approved' : 'rejected and archived'} "${after.title}"`, 4000);
      } catch (error) {
        s.logger.error('Reviewing the artifact', error);
        void vscode.window.showErrorMessage(`Context Ledger: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    this.register(vscode.commands.registerCommand(AGENT_COMMANDS.approve, review('approved')));
    this.register(vscode.commands.registerCommand(AGENT_COMMANDS.reject, review('rejected')));
  }

  async getChildren(node?: ReviewNode): Promise<ReviewNode[]> {
    if (node) return [];
    const nodes: ReviewNode[] = [];
    for (const folder of this.s.registry.foldersWithLedger()) {
      const pending = await this.s.registry.get(folder).read((store) => pendingReview(store.latestArtifacts()));
      for (const artifact of pending) nodes.push({ kind: 'artifact', folder, artifact });
    }
    this.view.badge = nodes.length > 0 ? { value: nodes.length, tooltip: `${nodes.length} artifact${nodes.length === 1 ? '' : 's'} written by agents await review` } : undefined;
    return nodes;
  }

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    const a = node.artifact;
    const item = new vscode.TreeItem(a.title, vscode.TreeItemCollapsibleState.None);
    item.id = `review:${node.folder.uri.toString()}:${a.id}`;
    const via = a.proposedVia !== undefined ? ` via ${a.proposedVia}` : '';
    item.description = `${a.type} · ${a.source}${via}`;
    item.iconPath = new vscode.ThemeIcon('report', new vscode.ThemeColor('charts.orange'));
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Unreviewed** — written by \`${a.source.replace(/`/g, '')}\`${via}; no person has checked it yet.\n\n`);
    md.appendText(a.body.length > 600 ? `${a.body.slice(0, 600)}…` : a.body);
    md.appendMarkdown(`\n\n\`${artifactUrn(a.id)}\``);
    item.tooltip = md;
    item.contextValue = REVIEW_ITEM_CONTEXT;
    // The artifact document: editing and saving it records a new version.
    item.command = { command: COMMANDS.openArtifact, title: 'Open', arguments: [node] };
    return item;
  }
}
