import * as vscode from 'vscode';
import { commitEventPayload, commitsToRecord, type StaleFlag, staleMemories, stalenessHorizon } from '../core/git';
import type { GitCommit } from '../core/sources';
import { branchFiles, gitCommits, gitHead } from '../node/git';
import { Debouncer, DisposableBase } from './disposable';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';

/**
 * The slice of the built-in Git extension's API (`vscode.git`, API version 1) used here,
 * declared narrowly and feature-detected: the extension can be disabled, and its API is
 * not part of @types/vscode.
 */
interface GitApiChange {
  readonly uri: vscode.Uri;
}
interface GitApiRepository {
  readonly rootUri: vscode.Uri;
  readonly state: {
    readonly HEAD: { readonly name?: string; readonly commit?: string } | undefined;
    readonly workingTreeChanges: readonly GitApiChange[];
    readonly indexChanges: readonly GitApiChange[];
    readonly untrackedChanges?: readonly GitApiChange[];
    readonly onDidChange: vscode.Event<void>;
  };
}
interface GitApi {
  readonly repositories: readonly GitApiRepository[];
  readonly onDidOpenRepository: vscode.Event<GitApiRepository>;
}

/** What the editor knows about one folder's git state, refreshed when HEAD or the working tree changes. */
interface FolderGit {
  head?: string;
  /** Files changed on the branch (committed since its base, staged, unstaged, new). */
  files: string[];
  /** Committed branch files, cached by HEAD (only the uncommitted part changes without a commit). */
  committed?: { head: string | undefined; files: string[] };
  /** History back to the oldest module memory's update, cached by HEAD and that horizon. */
  history?: { key: string; commits: GitCommit[] };
  stale: Map<string, StaleFlag>;
  debounce: Debouncer;
  /** The refresh under way: refreshes of one folder never overlap (two could record the same commits). */
  running?: Promise<void>;
}

/** Branch files beyond this many do not join the active paths (a huge branch would drown the open files). */
const MAX_BRANCH_FILES = 20;
/** Commits read when HEAD moves; more than this in one move is a branch switch, not work on the task. */
const MAX_NEW_COMMITS = 100;
const HEAD_KEY = 'contextLedger.git.lastHead';

/**
 * Git in the editor: which files the branch changed (they join the active paths), the
 * commits made while a task is active (recorded as its `commit` events) and module
 * memories the code moved on from (flagged possibly stale). Reads the built-in Git
 * extension's state where it is present, and runs git (src/node/git.ts) otherwise or for
 * what the API does not give (files per commit). Nothing runs on keystrokes: the Git
 * extension's state events (or saves, without it) trigger a debounced refresh, and
 * history is read again only when HEAD moves. Off in Restricted Mode: git runs code the
 * workspace controls (hooks, fsmonitor, aliases).
 */
export class GitTracker extends DisposableBase {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.WorkspaceFolder>());
  /** Fires when a folder's branch files or stale flags changed. */
  readonly onDidChange = this.changed.event;
  private readonly folders = new Map<string, FolderGit>();
  private api: GitApi | undefined;
  private readonly watched = new Set<GitApiRepository>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly logger: Logger,
    private readonly memento: vscode.Memento,
  ) {
    super();
    this.register(
      registry.onDidChange((change) => {
        // A module memory updated (here or by another process) can stop being stale: no git call, the history is cached.
        if (change.kind === 'artifacts' || change.kind === 'external' || change.kind === 'reset') this.schedule(change.folder);
      }),
    );
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.scheduleAll()));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleAll()));
    // Without the Git extension, a save or coming back to the window (from a terminal commit) is the only sign.
    this.register(
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (this.api) return;
        const folder = registry.folderOf(doc.uri);
        if (folder) this.schedule(folder, 2000);
      }),
    );
    this.register(
      vscode.window.onDidChangeWindowState((window) => {
        if (!this.api && window.focused) this.scheduleAll();
      }),
    );
    void this.connectApi().finally(() => this.scheduleAll());
  }

  /** Files changed on the current branch, for the active paths (at most MAX_BRANCH_FILES). */
  branchFiles(folder: vscode.WorkspaceFolder): string[] {
    return (this.folders.get(folder.uri.toString())?.files ?? []).slice(0, MAX_BRANCH_FILES);
  }

  /** Module memories (by artifact id) whose paths changed in commits after their last update. */
  staleFlags(folder: vscode.WorkspaceFolder): ReadonlyMap<string, StaleFlag> {
    return this.folders.get(folder.uri.toString())?.stale ?? new Map<string, StaleFlag>();
  }

  /** Reads the folder's git state now (tests and the Refresh command); resolves when done. */
  async refresh(folder: vscode.WorkspaceFolder): Promise<void> {
    const state = this.stateOf(folder);
    state.debounce.cancel();
    await this.update(folder, state);
  }

  /** Runs after the refresh under way, if any; a burst of requests while one runs becomes one more. */
  private update(folder: vscode.WorkspaceFolder, state: FolderGit): Promise<void> {
    const next = (state.running ?? Promise.resolve()).then(() => this.read(folder, state));
    const tracked = next.finally(() => {
      if (state.running === tracked) state.running = undefined;
    });
    state.running = tracked;
    return tracked;
  }

  private stateOf(folder: vscode.WorkspaceFolder): FolderGit {
    const key = folder.uri.toString();
    let state = this.folders.get(key);
    if (!state) {
      const debounce = this.register(new Debouncer(400, () => void this.update(folder, state!)));
      state = { files: [], stale: new Map(), debounce };
      this.folders.set(key, state);
    }
    return state;
  }

  private schedule(folder: vscode.WorkspaceFolder, delayMs?: number): void {
    if (folder.uri.scheme !== 'file') return;
    this.stateOf(folder).debounce.schedule(delayMs);
  }

  private scheduleAll(): void {
    for (const folder of this.registry.folders()) this.schedule(folder);
  }

  private async connectApi(): Promise<void> {
    const extension = vscode.extensions.getExtension<{ getAPI?: (version: 1) => GitApi }>('vscode.git');
    if (!extension) {
      this.logger.info('The built-in Git extension is not available; Context Ledger runs git itself.');
      return;
    }
    try {
      const exports = extension.isActive ? extension.exports : await extension.activate();
      const api = typeof exports?.getAPI === 'function' ? exports.getAPI(1) : undefined;
      if (!api || !Array.isArray(api.repositories)) return;
      this.api = api;
      for (const repo of api.repositories as readonly GitApiRepository[]) this.watch(repo);
      this.register(api.onDidOpenRepository((repo) => this.watch(repo)));
    } catch (error) {
      this.logger.info(`The Git extension's API is not usable (${error instanceof Error ? error.message : String(error)}); Context Ledger runs git itself.`);
    }
  }

  private watch(repo: GitApiRepository): void {
    if (this.watched.has(repo)) return;
    this.watched.add(repo);
    // Fires after the Git extension's own status run: a commit, a checkout, a save that changed the diff.
    this.register(repo.state.onDidChange(() => this.foldersOf(repo).forEach((f) => this.schedule(f))));
    for (const folder of this.foldersOf(repo)) {
      // Said once per repository: HEAD may already have been read with git, so the next read logs nothing new.
      this.logger.info(`Git: following ${folder.name} through the Git extension's API.`);
      this.schedule(folder);
    }
  }

  private foldersOf(repo: GitApiRepository): vscode.WorkspaceFolder[] {
    const root = repo.rootUri.fsPath;
    return this.registry.folders().filter((f) => f.uri.fsPath === root || f.uri.fsPath.startsWith(root.endsWith('/') ? root : `${root}/`) || root.startsWith(`${f.uri.fsPath}/`));
  }

  /** The repository the Git extension opened for `folder` (the innermost one holding it). */
  private repositoryOf(folder: vscode.WorkspaceFolder): GitApiRepository | undefined {
    const path = folder.uri.fsPath;
    return this.api?.repositories
      .filter((r) => path === r.rootUri.fsPath || path.startsWith(`${r.rootUri.fsPath}/`))
      .sort((a, b) => b.rootUri.fsPath.length - a.rootUri.fsPath.length)[0];
  }

  private async read(folder: vscode.WorkspaceFolder, state: FolderGit): Promise<void> {
    if (!vscode.workspace.isTrusted || folder.uri.scheme !== 'file' || this.isDisposed) {
      this.set(folder, state, [], new Map());
      return;
    }
    try {
      const root = folder.uri.fsPath;
      const repo = this.repositoryOf(folder);
      const fromGit = repo ? undefined : await gitHead(root);
      if (!repo && !fromGit) {
        // Not a repository (or no git): nothing to flag.
        this.set(folder, state, [], new Map());
        return;
      }
      const head = repo ? repo.state.HEAD?.commit : fromGit?.head;
      if (head !== state.head) {
        this.logger.info(`Git: ${folder.name} is at ${head ? head.slice(0, 8) : 'no commit yet'} (read ${repo ? "through the Git extension's API" : 'with git'}).`);
        await this.recordCommits(folder, head);
      }
      state.head = head;

      let files: string[];
      if (repo) {
        const committed = state.committed?.head === head && state.committed ? state.committed : { head, files: await branchFiles(root, { committedOnly: true }) };
        state.committed = committed;
        const local = (uri: vscode.Uri): string | undefined => {
          const rel = vscode.workspace.asRelativePath(uri, false);
          return rel === uri.fsPath || rel.startsWith('..') || this.registry.folderOf(uri)?.uri.toString() !== folder.uri.toString() ? undefined : rel;
        };
        const uncommitted = [...repo.state.workingTreeChanges, ...repo.state.indexChanges, ...(repo.state.untrackedChanges ?? [])]
          .map((c) => local(c.uri))
          .filter((p): p is string => p !== undefined);
        files = [...new Set([...uncommitted, ...committed.files])];
      } else {
        files = await branchFiles(root);
      }

      const artifacts = await this.registry.get(folder).read((store) => store.latestArtifacts());
      const horizon = stalenessHorizon(artifacts);
      let stale = new Map<string, StaleFlag>();
      if (horizon !== undefined) {
        const key = `${head ?? ''}|${horizon}`;
        if (state.history?.key !== key) state.history = { key, commits: await gitCommits(root, { since: horizon, max: 2000 }) };
        stale = staleMemories(artifacts, state.history.commits);
      }
      this.set(folder, state, files, stale);
    } catch (error) {
      this.logger.error(`Reading git state of ${folder.name}`, error);
    }
  }

  private set(folder: vscode.WorkspaceFolder, state: FolderGit, files: string[], stale: Map<string, StaleFlag>): void {
    const before = JSON.stringify([state.files, [...state.stale]]);
    state.files = files;
    state.stale = stale;
    if (JSON.stringify([files, [...stale]]) !== before) this.changed.fire(folder);
  }

  /**
   * HEAD moved from the last HEAD seen in this folder (kept across sessions): the commits
   * in between that are newer than the active task become its `commit` events.
   */
  private async recordCommits(folder: vscode.WorkspaceFolder, head: string | undefined): Promise<void> {
    const key = `${HEAD_KEY}:${folder.uri.toString()}`;
    const previous = this.memento.get<string>(key);
    await this.memento.update(key, head);
    if (!head || !previous || previous === head) return;
    const ledger = this.registry.get(folder);
    if (!ledger.exists()) return;
    const task = await ledger.read((store) => store.getActiveTask());
    if (!task) return;
    const commits = await gitCommits(folder.uri.fsPath, { range: `${previous}..${head}`, max: MAX_NEW_COMMITS + 1 });
    if (commits.length === 0 || commits.length > MAX_NEW_COMMITS) return;
    // A checkout back to older work, or commits recorded by another window: no write at all.
    if ((await ledger.read((store) => commitsToRecord(commits, task.createdAt, store.taskEvents(task.id)))).length === 0) return;
    const recorded = await ledger.write((store) => {
      // Re-read under the lock: another window or the CLI may have recorded them meanwhile.
      const active = store.getActiveTask();
      if (!active || active.id !== task.id) return 0;
      const fresh = commitsToRecord(commits, active.createdAt, store.taskEvents(active.id));
      for (const commit of fresh) store.addTaskEvent(active.id, 'commit', commitEventPayload(commit) as unknown as Record<string, unknown>);
      return fresh.length;
    }, 'tasks');
    if (recorded > 0) this.logger.info(`Recorded ${recorded} commit${recorded === 1 ? '' : 's'} as events of task ${task.id}.`);
  }
}
