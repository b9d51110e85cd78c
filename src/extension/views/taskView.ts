import * as vscode from 'vscode';
import { commitLines } from '../../core/git';
import type { Task } from '../../core/model';
import { displayTitle, wrapForRows } from '../artifactTreeModel';
import { DisposableBase } from '../disposable';
import { COMMANDS, CONTEXT_KEYS, TREE_ITEM_KINDS, VIEWS } from '../ids';
import type { LedgerRegistry } from '../ledgers';
import type { Logger } from '../logger';

/** Characters a row of the Active Task view holds in a side bar of the default width (about 250 px of text). */
const ROW_WIDTH = 32;

export interface TaskNode {
  folder: vscode.WorkspaceFolder;
  task: Task;
  field: 'title' | 'stage' | 'labels' | 'description' | 'folder' | 'artifacts' | 'commits';
  count?: number;
  /** For `commits`: the recorded commits, newest first (short hash and subject). */
  commits?: string[];
  /** For `title` and `description`: this row's part of the text, and its place. */
  text?: string;
  row?: number;
}

/**
 * The active task of each folder: title, stage, labels, description. Clicking the stage
 * (or its inline action) changes it; the title row clears it; the view title has
 * new / switch / clear.
 */
export class TaskTreeProvider extends DisposableBase implements vscode.TreeDataProvider<TaskNode> {
  private readonly changed = this.register(new vscode.EventEmitter<undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly logger: Logger,
  ) {
    super();
    this.register(vscode.window.createTreeView(VIEWS.task, { treeDataProvider: this }));
    this.register(
      registry.onDidChange((change) => {
        if (change.kind !== 'activity' && change.kind !== 'log') this.refresh();
      }),
    );
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: TaskNode): Promise<TaskNode[]> {
    if (node) return [];
    const nodes: TaskNode[] = [];
    const multi = this.registry.folders().length > 1;
    for (const folder of this.registry.foldersWithLedger()) {
      try {
        const found = await this.registry.get(folder).read((store) => {
          const task = store.getActiveTask();
          if (!task) return undefined;
          const commits = commitLines(store.taskEvents(task.id));
          return { task, count: store.listArtifacts({ taskId: task.id, status: 'active' }).length, commits };
        });
        if (!found) continue;
        const { task, count, commits } = found;
        if (multi) nodes.push({ folder, task, field: 'folder' });
        // The title and the description's first line (the rest, e.g. the paths, is in the tooltip) as
        // plain text, in rows narrow enough for a side bar to show whole: a tree row does not wrap.
        wrapForRows(displayTitle(task.title), ROW_WIDTH, 3).forEach((text, row) => nodes.push({ folder, task, field: 'title', text, row }));
        nodes.push({ folder, task, field: 'stage' });
        if (task.labels.length > 0) nodes.push({ folder, task, field: 'labels' });
        wrapForRows(displayTitle(task.description.trim().split('\n')[0] ?? ''), ROW_WIDTH).forEach((text, row) => nodes.push({ folder, task, field: 'description', text, row }));
        nodes.push({ folder, task, field: 'artifacts', count });
        if (commits.length > 0) nodes.push({ folder, task, field: 'commits', count: commits.length, commits });
      } catch (error) {
        this.logger.error(`Reading the active task of ${folder.name}`, error);
      }
    }
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.hasActiveTask, nodes.length > 0);
    return nodes;
  }

  getTreeItem(node: TaskNode): vscode.TreeItem {
    const { task } = node;
    const item = new vscode.TreeItem('', vscode.TreeItemCollapsibleState.None);
    item.contextValue = TREE_ITEM_KINDS.taskField;
    item.id = `${node.folder.uri.toString()}:${task.id}:${node.field}${node.row ? `:${node.row}` : ''}`;
    switch (node.field) {
      case 'folder':
        item.label = node.folder.name;
        item.iconPath = vscode.ThemeIcon.Folder;
        break;
      case 'title':
        // The id is in the tooltip: beside the title it only pushed the title out of the row.
        item.label = node.text ?? '';
        item.iconPath = new vscode.ThemeIcon(node.row ? 'blank' : 'tasklist');
        item.tooltip = `${displayTitle(task.title)} (${task.id})\n\n${task.description}`;
        if (!node.row) item.contextValue = TREE_ITEM_KINDS.taskTitle;
        break;
      case 'stage':
        item.label = `Stage: ${task.stage}`;
        item.iconPath = new vscode.ThemeIcon('debug-stackframe');
        item.tooltip = 'Click to move the task to another stage';
        item.command = { command: COMMANDS.setTaskStage, title: 'Change Stage', arguments: [node] };
        item.contextValue = TREE_ITEM_KINDS.taskStage;
        break;
      case 'labels':
        item.label = `Labels: ${task.labels.join(', ')}`;
        item.iconPath = new vscode.ThemeIcon('tag');
        break;
      case 'description':
        item.label = node.text ?? '';
        item.iconPath = new vscode.ThemeIcon(node.row ? 'blank' : 'note');
        item.tooltip = task.description;
        break;
      case 'artifacts':
        item.label = `${node.count ?? 0} task artifact${node.count === 1 ? '' : 's'}`;
        item.iconPath = new vscode.ThemeIcon('library');
        item.tooltip = 'Artifacts scoped to this task (they are in its context, and only in its context).';
        break;
      case 'commits': {
        const list = node.commits ?? [];
        item.label = `${list.length} commit${list.length === 1 ? '' : 's'} while active`;
        item.description = list[0];
        item.iconPath = new vscode.ThemeIcon('git-commit');
        item.tooltip = `Commits made while this task was active (its workflow memory and stage summaries list them):\n${list.slice(0, 15).join('\n')}${list.length > 15 ? `\n… and ${list.length - 15} earlier` : ''}`;
        break;
      }
    }
    return item;
  }
}
