import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConfigService } from '../config';
import { DisposableBase, Debouncer } from '../disposable';
import type { FileActivityTracker } from '../fileActivityTracker';
import { TREE_ITEM_KINDS, VIEWS } from '../ids';
import type { LedgerRegistry } from '../ledgers';
import type { Logger } from '../logger';
import { activitySummary, lastActivity, timeAgo, type TrackedFile, trackedFiles } from '../trackedFilesModel';

export interface TrackedFileNode {
  folder: vscode.WorkspaceFolder;
  file: TrackedFile;
  now: Date;
}

/**
 * The files worked on recently (most relevant now first), with their folder (what was done with
 * each and when in the tooltip) and whether a module memory covers them; an inline action adds one
 * where none does.
 */
export class TrackedFilesProvider extends DisposableBase implements vscode.TreeDataProvider<TrackedFileNode> {
  private readonly changed = this.register(new vscode.EventEmitter<undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<TrackedFileNode>;
  private readonly soon = this.register(new Debouncer(1_000, () => this.changed.fire(undefined)));

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly config: ConfigService,
    private readonly tracker: FileActivityTracker,
    private readonly logger: Logger,
  ) {
    super();
    this.view = this.register(vscode.window.createTreeView(VIEWS.files, { treeDataProvider: this }));
    this.register(
      registry.onDidChange((change) => {
        if (change.kind !== 'log' && this.view.visible) this.soon.schedule();
      }),
    );
    this.register(tracker.onDidRecord(() => this.view.visible && this.soon.schedule()));
    this.register(this.view.onDidChangeVisibility((event) => event.visible && this.refresh()));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: TrackedFileNode): Promise<TrackedFileNode[]> {
    if (node) return [];
    const now = new Date();
    const out: TrackedFileNode[] = [];
    for (const folder of this.registry.folders()) {
      try {
        const halfLife = this.config.get(folder.uri).tracking.halfLifeHours;
        const files = await this.registry
          .get(folder)
          .read((store) => trackedFiles(this.tracker.withPending(folder, store.fileActivity()), store.latestArtifacts(), now, halfLife, 100));
        out.push(...files.map((file) => ({ folder, file, now })));
      } catch (error) {
        this.logger.error(`Reading file activity of ${folder.name}`, error);
      }
    }
    this.view.description = out.length > 0 ? `${out.length}` : undefined;
    return out;
  }

  getTreeItem(node: TrackedFileNode): vscode.TreeItem {
    const { activity, coveredBy } = node.file;
    const uri = vscode.Uri.joinPath(node.folder.uri, ...activity.path.split('/'));
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.id = `${node.folder.uri.toString()}:${activity.path}`;
    item.label = path.posix.basename(activity.path);
    const dir = path.posix.dirname(activity.path);
    const multi = this.registry.folders().length > 1;
    // The folder's last two names: a deep path filled the row and hid what follows (the tooltip has it whole).
    const parts = dir === '.' ? [] : dir.split('/');
    const shortDir = parts.length > 2 ? `…/${parts.slice(-2).join('/')}` : parts.join('/');
    const where = [multi ? node.folder.name : '', shortDir].filter(Boolean).join(' · ');
    // Where it is; what was done with it and when is in the tooltip (it filled the row, and VS Code cut it, the more so beside a problem count).
    item.description = where;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${activity.path}**\n\n`);
    md.appendMarkdown(`${activitySummary(activity) || 'no activity'}; last ${timeAgo(lastActivity(activity), node.now)}\n\n`);
    md.appendMarkdown(
      coveredBy.length > 0
        ? `$(book) Covered by ${coveredBy.map((c) => `"${c.title}"`).join(', ')}`
        : '$(circle-slash) No module memory covers this file yet.',
    );
    item.tooltip = md;
    item.iconPath = coveredBy.length > 0 ? new vscode.ThemeIcon('book', new vscode.ThemeColor('charts.green')) : vscode.ThemeIcon.File;
    item.contextValue = coveredBy.length > 0 ? TREE_ITEM_KINDS.trackedFileCovered : TREE_ITEM_KINDS.trackedFile;
    item.command = { command: 'vscode.open', title: 'Open File', arguments: [uri] };
    return item;
  }
}
