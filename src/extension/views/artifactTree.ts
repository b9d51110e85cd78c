import * as vscode from 'vscode';
import { type Artifact, artifactUrn, type Scope, type TokenizerName } from '../../core/model';
import type { LedgerStore } from '../../core/store';
import { fullCostOf } from '../../core/assemble/blocks';
import { TokenCounter, type TokenCountCache } from '../../core/tokens';
import {
  type ArtifactFilterState,
  artifactDescription,
  bodyPreview,
  DEFAULT_FILTER,
  describeFilter,
  displayTitle,
  groupArtifacts,
  isDefaultFilter,
  SCOPE_ICONS,
  SCOPE_LABELS,
  type ScopeGroup,
  scopeDescription,
  scopeShowsTypes,
  type TypeGroup,
  TYPE_ICONS,
  TYPE_LABELS,
} from '../artifactTreeModel';
import type { ConfigService } from '../config';
import { describeStale, type StaleFlag } from '../../core/git';
import type { GitTracker } from '../git';
import { DisposableBase } from '../disposable';
import { COMMANDS, CONTEXT_KEYS, TREE_ITEM_KINDS, VIEWS } from '../ids';
import type { LedgerRegistry } from '../ledgers';
import type { Logger } from '../logger';
import type { MirrorFollower } from '../mirrorFollower';
import type { MirrorConflict } from '../../node/artifactFolder';

export type ArtifactTreeNode =
  | { kind: 'folder'; folder: vscode.WorkspaceFolder }
  | { kind: 'scope'; folder: vscode.WorkspaceFolder; group: ScopeGroup }
  | { kind: 'type'; folder: vscode.WorkspaceFolder; scope: Scope; group: TypeGroup }
  | { kind: 'artifact'; folder: vscode.WorkspaceFolder; artifact: Artifact }
  | { kind: 'version'; folder: vscode.WorkspaceFolder; artifact: Artifact }
  /** Under an artifact changed on both sides of a git merge: the row that opens Resolve…. */
  | { kind: 'conflict'; folder: vscode.WorkspaceFolder; artifact: Artifact; conflict: MirrorConflict }
  | { kind: 'message'; label: string; icon?: string };

interface Snapshot {
  latest: readonly Artifact[];
  tokens: Map<string, number>;
}

/**
 * Token counters, handed out after the first render; the tree shows counts once one is ready.
 * One per folder and tokenizer, not per store object: the session opens a new store whenever
 * another process changed the index (a hook, an MCP server, the CLI), and a counter keyed by the
 * store was handed out again, as not ready, after each such change, so the counts could stay
 * away for as long as other processes kept writing. The counter's cache of counts by content
 * hash follows the newest store it was asked with.
 */
class BackgroundCounters {
  private readonly counters = new Map<string, { cache: StoreCountCache; counter: TokenCounter | Promise<void> }>();

  constructor(private readonly onReady: () => void) {}

  get(folderKey: string, store: LedgerStore, tokenizer: TokenizerName): TokenCounter | undefined {
    const key = `${tokenizer} ${folderKey}`;
    const known = this.counters.get(key);
    if (known) {
      known.cache.store = store;
      return known.counter instanceof TokenCounter ? known.counter : undefined;
    }
    // Lazy: the tokenizer loads only for a count the ledger has not cached (most are, by content hash).
    const cache = new StoreCountCache(store);
    const counter = TokenCounter.lazy(tokenizer, cache);
    const entry = {
      cache,
      counter: Promise.resolve().then(() => {
        entry.counter = counter;
        this.onReady();
      }) as TokenCounter | Promise<void>,
    };
    this.counters.set(key, entry);
    return undefined;
  }
}

class StoreCountCache implements TokenCountCache {
  constructor(public store: LedgerStore) {}

  getTokenCount(hash: string, tokenizer: TokenizerName): number | undefined {
    return this.store.getTokenCount(hash, tokenizer);
  }

  putTokenCount(hash: string, tokenizer: TokenizerName, count: number): void {
    this.store.putTokenCount(hash, tokenizer, count);
  }
}

/**
 * The artifact browser: (workspace folder →) scope → (type, where a scope holds more than one)
 * → artifact → older versions. The title is the row; its tokens and paths are in the
 * tooltip with a Markdown preview; a filter by type and status, and a text search.
 */
export class ArtifactTreeProvider extends DisposableBase implements vscode.TreeDataProvider<ArtifactTreeNode> {
  private readonly changed = this.register(new vscode.EventEmitter<ArtifactTreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<ArtifactTreeNode>;
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly counters = new BackgroundCounters(() => this.refresh());
  private filterState: ArtifactFilterState = { ...DEFAULT_FILTER };

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly config: ConfigService,
    private readonly logger: Logger,
    private readonly git?: GitTracker,
    private readonly mirror?: MirrorFollower,
  ) {
    super();
    if (mirror) this.register(mirror.onDidChangeConflicts(() => this.refresh()));
    this.view = this.register(vscode.window.createTreeView(VIEWS.artifacts, { treeDataProvider: this, showCollapseAll: true }));
    if (git) this.register(git.onDidChange(() => this.refresh()));
    this.register(
      registry.onDidChange((change) => {
        if (change.kind !== 'activity' && change.kind !== 'log') this.refresh();
      }),
    );
    this.register(
      config.onDidChange((change) => {
        if (change.affects('tokenizer') || change.affects('databasePath')) this.refresh();
      }),
    );
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()));
  }

  get filter(): ArtifactFilterState {
    return this.filterState;
  }

  setFilter(filter: ArtifactFilterState): void {
    this.filterState = filter;
    const filtered = !isDefaultFilter(filter);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.artifactsFiltered, filtered);
    this.view.message = filtered ? `Filtered: ${describeFilter(filter)}` : undefined;
    this.refresh();
  }

  refresh(): void {
    this.snapshots.clear();
    this.changed.fire(undefined);
  }

  private async snapshot(folder: vscode.WorkspaceFolder): Promise<Snapshot> {
    const key = folder.uri.toString();
    const cached = this.snapshots.get(key);
    if (cached) return cached;
    const tokenizer = this.config.get(folder.uri).tokenizer;
    const snapshot = await this.registry.get(folder).read((store) => {
      const latest = store.latestArtifacts();
      const tokens = new Map<string, number>();
      const counter = this.counters.get(key, store, tokenizer);
      if (counter) for (const a of latest) tokens.set(a.id, fullCostOf(counter, a));
      return { latest, tokens };
    });
    this.snapshots.set(key, snapshot);
    const any = this.registry.folders().length > 0 && [...this.snapshots.values()].some((s) => s.latest.length > 0);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.hasArtifacts, any);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.artifactsLoaded, true);
    return snapshot;
  }

  async getChildren(node?: ArtifactTreeNode): Promise<ArtifactTreeNode[]> {
    try {
      const folders = this.registry.folders();
      if (!node) {
        if (folders.length === 0) return [];
        if (folders.length > 1) return folders.map((folder) => ({ kind: 'folder', folder }));
        return await this.scopeNodes(folders[0]!);
      }
      switch (node.kind) {
        case 'folder':
          return await this.scopeNodes(node.folder);
        case 'scope':
          return scopeShowsTypes(node.group)
            ? node.group.types.map((group) => ({ kind: 'type', folder: node.folder, scope: node.group.scope, group }))
            : node.group.types.flatMap((group) => group.artifacts.map((artifact) => ({ kind: 'artifact' as const, folder: node.folder, artifact })));
        case 'type':
          return node.group.artifacts.map((artifact) => ({ kind: 'artifact', folder: node.folder, artifact }));
        case 'artifact': {
          const versions = await this.registry.get(node.folder).read((store) => store.history(node.artifact.id));
          const conflict = this.conflictOf(node.folder, node.artifact);
          return [
            ...(conflict ? [{ kind: 'conflict' as const, folder: node.folder, artifact: node.artifact, conflict }] : []),
            ...versions
              .filter((v) => v.id !== node.artifact.id)
              .reverse()
              .map((artifact) => ({ kind: 'version' as const, folder: node.folder, artifact })),
          ];
        }
        default:
          return [];
      }
    } catch (error) {
      this.logger.error('Loading the artifact tree', error);
      return [{ kind: 'message', label: `Could not read the ledger: ${error instanceof Error ? error.message : String(error)}`, icon: 'error' }];
    }
  }

  private async scopeNodes(folder: vscode.WorkspaceFolder): Promise<ArtifactTreeNode[]> {
    const snapshot = await this.snapshot(folder);
    if (snapshot.latest.length === 0) {
      // A single folder shows the welcome view instead; in a multi-root workspace say it per folder.
      return this.registry.folders().length > 1 ? [{ kind: 'message', label: 'No artifacts yet', icon: 'info' }] : [];
    }
    const groups = groupArtifacts(snapshot.latest, this.filterState);
    if (groups.length === 0) return [{ kind: 'message', label: 'Nothing matches the filter', icon: 'filter' }];
    return groups.map((group) => ({ kind: 'scope', folder, group }));
  }

  getTreeItem(node: ArtifactTreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = TREE_ITEM_KINDS.folder;
        item.id = `folder:${node.folder.uri.toString()}`;
        return item;
      }
      case 'scope': {
        const item = new vscode.TreeItem(SCOPE_LABELS[node.group.scope], vscode.TreeItemCollapsibleState.Expanded);
        item.description = scopeDescription(node.group);
        item.iconPath = new vscode.ThemeIcon(SCOPE_ICONS[node.group.scope]);
        item.contextValue = TREE_ITEM_KINDS.group;
        item.id = `scope:${node.folder.uri.toString()}:${node.group.scope}`;
        return item;
      }
      case 'type': {
        const item = new vscode.TreeItem(TYPE_LABELS[node.group.type].many, vscode.TreeItemCollapsibleState.Expanded);
        item.description = String(node.group.artifacts.length);
        item.iconPath = new vscode.ThemeIcon(TYPE_ICONS[node.group.type]);
        item.contextValue = TREE_ITEM_KINDS.group;
        item.id = `type:${node.folder.uri.toString()}:${node.scope}:${node.group.type}`;
        return item;
      }
      case 'artifact':
      case 'version':
        return this.artifactItem(node);
      case 'conflict': {
        const item = new vscode.TreeItem('Resolve conflict…', vscode.TreeItemCollapsibleState.None);
        item.id = `conflict:${node.folder.uri.toString()}:${node.artifact.chainId}`;
        item.description = node.conflict.kind === 'markers' ? 'git left conflict markers in its file' : 'changed on both sides: both kept as versions';
        item.iconPath = new vscode.ThemeIcon('git-merge', new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = TREE_ITEM_KINDS.conflict;
        item.tooltip = `${node.conflict.path}: keep mine, keep theirs, or edit. Nothing is lost either way: the other side stays in the history.`;
        item.command = { command: COMMANDS.resolveConflict, title: 'Resolve…', arguments: [node] };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
        return item;
      }
    }
  }

  private artifactItem(node: { kind: 'artifact' | 'version'; folder: vscode.WorkspaceFolder; artifact: Artifact }): vscode.TreeItem {
    const a = node.artifact;
    const isVersion = node.kind === 'version';
    const tokens = this.snapshots.get(node.folder.uri.toString())?.tokens.get(a.id);
    const conflict = isVersion ? undefined : this.conflictOf(node.folder, a);
    const item = new vscode.TreeItem(
      isVersion ? `v${a.version}` : displayTitle(a.title),
      conflict ? vscode.TreeItemCollapsibleState.Expanded : !isVersion && a.version > 1 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${node.kind}:${node.folder.uri.toString()}:${a.id}${conflict ? ':conflict' : ''}`;
    const stale = isVersion ? undefined : this.git?.staleFlags(node.folder).get(a.id);
    item.description = isVersion ? `${a.updatedAt.slice(0, 10)} · ${displayTitle(a.title)}` : artifactDescription(a, { conflict: !!conflict, stale: !!stale });
    const color = a.status === 'active' ? (a.pinned ? new vscode.ThemeColor('charts.yellow') : undefined) : new vscode.ThemeColor('disabledForeground');
    item.iconPath = isVersion
      ? new vscode.ThemeIcon('versions')
      : conflict
        ? new vscode.ThemeIcon('git-merge', new vscode.ThemeColor('list.warningForeground'))
      : stale
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
        : new vscode.ThemeIcon(a.pinned ? 'pinned' : TYPE_ICONS[a.type], color);
    item.tooltip = this.tooltip(a, tokens, isVersion, stale);
    item.contextValue = isVersion
      ? TREE_ITEM_KINDS.version
      : a.status === 'archived'
        ? TREE_ITEM_KINDS.artifactArchived
        : a.status === 'superseded'
          ? TREE_ITEM_KINDS.artifactSuperseded
          : a.pinned
            ? TREE_ITEM_KINDS.artifactPinned
            : TREE_ITEM_KINDS.artifact;
    item.command = { command: COMMANDS.openArtifact, title: 'Open', arguments: [node] };
    item.accessibilityInformation = { label: `${TYPE_LABELS[a.type].one}: ${displayTitle(a.title)}${a.status !== 'active' ? `, ${a.status}` : ''}${conflict ? ', in conflict' : ''}${stale ? ', possibly stale' : ''}` };
    return item;
  }

  private tooltip(a: Artifact, tokens: number | undefined, isVersion: boolean, stale?: StaleFlag): vscode.MarkdownString {
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${escapeInline(a.title)}**\n\n`);
    if (stale) {
      md.appendMarkdown(`$(warning) ${escapeInline(describeStale(stale))}. Check it against the code and update it.\n\n`);
      for (const c of stale.commits.slice(0, 5)) md.appendMarkdown(`- \`${c.hash.slice(0, 8)}\` ${escapeInline(c.subject)} (${c.files.slice(0, 3).map((f) => escapeInline(f)).join(', ')})\n`);
      md.appendMarkdown('\n');
    }
    const facts = [
      `$(${TYPE_ICONS[a.type]}) ${TYPE_LABELS[a.type].one}`,
      `${SCOPE_LABELS[a.scope]} scope`,
      `v${a.version}`,
      a.status !== 'active' ? a.status : '',
      a.pinned ? '$(pinned) pinned' : '',
      tokens !== undefined ? `${tokens.toLocaleString('en-US')} tokens` : '',
    ].filter(Boolean);
    md.appendMarkdown(`${facts.join(' · ')}\n\n`);
    if (a.paths.length > 0) md.appendMarkdown(`Paths: ${a.paths.map((p) => `\`${p.replace(/`/g, '')}\``).join(', ')}\n\n`);
    if (a.tags.length > 0) md.appendMarkdown(`Tags: ${a.tags.map((t) => escapeInline(t)).join(', ')}\n\n`);
    md.appendMarkdown('---\n\n');
    md.appendMarkdown(bodyPreview(a.body));
    md.appendMarkdown(`\n\n---\n\n\`${artifactUrn(a.id)}\` · updated ${a.updatedAt.slice(0, 10)}${isVersion ? ' · older version' : ''}`);
    return md;
  }

  private conflictOf(folder: vscode.WorkspaceFolder, artifact: Artifact): MirrorConflict | undefined {
    return this.mirror?.conflicts(folder).get(artifact.chainId);
  }

  /** Reveals the artifact (by chain) after it was added or changed. */
  async reveal(folder: vscode.WorkspaceFolder, artifact: Artifact): Promise<void> {
    this.refresh();
    try {
      await this.snapshot(folder);
      await this.view.reveal({ kind: 'artifact', folder, artifact }, { select: true, focus: false, expand: false });
    } catch {
      // Filtered out, or the view is hidden: nothing to reveal.
    }
  }

  getParent(node: ArtifactTreeNode): ArtifactTreeNode | undefined {
    const multi = this.registry.folders().length > 1;
    switch (node.kind) {
      case 'artifact': {
        const scope = this.scopeGroup(node.folder, node.artifact.scope);
        if (scope && !scopeShowsTypes(scope)) return { kind: 'scope', folder: node.folder, group: scope };
        const group = scope?.types.find((t) => t.type === node.artifact.type);
        return group ? { kind: 'type', folder: node.folder, scope: node.artifact.scope, group } : undefined;
      }
      case 'type': {
        const scope = this.scopeGroup(node.folder, node.scope);
        return scope ? { kind: 'scope', folder: node.folder, group: scope } : undefined;
      }
      case 'scope':
        return multi ? { kind: 'folder', folder: node.folder } : undefined;
      default:
        return undefined;
    }
  }

  private scopeGroup(folder: vscode.WorkspaceFolder, scope: Scope): ScopeGroup | undefined {
    const snapshot = this.snapshots.get(folder.uri.toString());
    return snapshot ? groupArtifacts(snapshot.latest, this.filterState).find((g) => g.scope === scope) : undefined;
  }
}

function escapeInline(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|]/g, '\\$&');
}
