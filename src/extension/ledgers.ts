import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Artifact } from '../core/model';
import { LedgerStore } from '../core/store';
import { loadSqlJs } from '../node/ledgerFile';
import { isWorkspaceLedger } from '../node/ledgerFolder';
import { type MirrorConflict, mirrorHasFiles } from '../node/artifactFolder';
import type { SyncReport } from '../node/artifactFiles';
import { LedgerSession } from '../node/session';
import type { ConfigService } from './config';
import { Debouncer, DisposableBase } from './disposable';
import type { Logger } from './logger';

/** What a write changed, so listeners can skip work that does not concern them. */
export type LedgerChangeKind = 'artifacts' | 'tasks' | 'activity' | 'feedback' | 'log' | 'external' | 'reset';

export interface LedgerChange {
  folder: vscode.WorkspaceFolder;
  kind: LedgerChangeKind;
}

/** Whether the ledger of a folder follows its shared files (trusted workspaces only, as for an import). */
export interface FolderFollows {
  mirror(): boolean;
  knowledge(): boolean;
}

/**
 * The ledger of one workspace folder: a LedgerSession (src/node/session.ts), the one way
 * into a ledger the CLI and the MCP server use too, opened lazily on first use (sql.js and
 * the file load off the activation path). Every read and write brings it up to date with
 * the files first (another process's write, the artifact files a pull changed, the
 * knowledge files it imported); a change found that way is announced as 'external'.
 * Reads and writes run one at a time, so a refresh never swaps the store under a running
 * assembly. Until the file exists (and no artifact files are there to build it from),
 * reads see an empty in-memory ledger; the first write creates it.
 */
export class FolderLedger implements vscode.Disposable {
  private session: LedgerSession | undefined;
  private empty: LedgerStore | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    readonly file: string,
    private readonly logger: Logger,
    private readonly changed: (kind: LedgerChangeKind) => void,
    private readonly follows: FolderFollows,
  ) {}

  /** Whether the database file exists (cheap; no load). */
  exists(): boolean {
    return fs.existsSync(this.file);
  }

  get isLoaded(): boolean {
    return this.session !== undefined;
  }

  /** A clone with artifact files and no database yet: opening builds its ledger from them. */
  private canBuildFromFiles(): boolean {
    return !this.exists() && isWorkspaceLedger(this.file) && this.follows.mirror() && mirrorHasFiles(this.file);
  }

  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async open(create: boolean): Promise<LedgerSession | undefined> {
    if (this.disposed) throw new Error('The ledger was closed.');
    if (this.session) return this.session;
    if (!create && !this.exists() && !this.canBuildFromFiles()) return undefined;
    const started = Date.now();
    this.session = await LedgerSession.open({
      cwd: this.folder.uri.fsPath,
      dbFile: this.file,
      create,
      say: (text) => this.logger.info(text),
      followMirror: () => this.follows.mirror(),
      followKnowledge: () => this.follows.knowledge(),
      onExternalChange: () => this.changed('external'),
    });
    const counts = this.session.store.countArtifacts();
    this.logger.info(`Opened ${this.file} (${counts.chains} artifacts, ${counts.versions} versions) in ${Date.now() - started} ms`);
    this.empty?.close();
    this.empty = undefined;
    return this.session;
  }

  /** Runs `fn` on the freshest data. `fn` may be async; nothing else touches the store meanwhile. */
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const session = await this.open(false);
      if (session) return await session.read(fn);
      this.empty ??= LedgerStore.open(await loadSqlJs());
      return await fn(this.empty);
    });
  }

  /**
   * Applies `fn` through the session's one write path (lock, save, the changed chains'
   * artifact files), creating the database on first write. A write that changed nothing
   * tells no one: a refresh of every view for it would redraw the tree under an open quick input.
   */
  write<T>(fn: (store: LedgerStore) => T, kind: LedgerChangeKind): Promise<T> {
    return this.exclusive(async () => {
      const existed = this.exists();
      const session = (await this.open(true))!;
      let changed = true;
      const result = await session.write((store) => {
        const generation = store.generation;
        const value = fn(store);
        changed = !existed || store.generation !== generation;
        return value;
      });
      if (changed) this.changed(kind);
      return result;
    });
  }

  /**
   * For async work that records something in the store as it goes (an assembly that
   * writes its log row): runs `fn` on the freshest data, then persists under the lock.
   * If another process wrote in between, its data wins and this record is dropped.
   */
  writeAsync<T>(fn: (store: LedgerStore) => Promise<T>, kind: LedgerChangeKind): Promise<T> {
    return this.exclusive(async () => {
      const session = (await this.open(true))!;
      const result = await session.read(fn);
      // An empty transaction marks the store changed, so the write persists what fn recorded.
      await session.write((store) => store.transaction(() => undefined));
      this.changed(kind);
      return result;
    });
  }

  /** The artifact files git left with conflict markers (none for a ledger not opened yet). */
  conflicts(): Promise<MirrorConflict[]> {
    return this.exclusive(async () => {
      const session = await this.open(false);
      return session ? await session.conflicts() : [];
    });
  }

  /** **Sync Artifact Files**: imports the artifact files now, and writes any chain's missing file. */
  syncFiles(): Promise<SyncReport> {
    return this.exclusive(async () => {
      const report = await (await this.open(true))!.syncFiles();
      this.changed('artifacts');
      return report;
    });
  }

  /** Keeps one side of a file with conflict markers (`context-ledger resolve` does the same, through the same session call). */
  resolveConflict(chainId: string, keep: 'mine' | 'theirs'): Promise<Artifact> {
    return this.exclusive(async () => {
      const session = await this.open(false);
      if (!session) throw new Error(`${this.file} does not exist.`);
      const kept = await session.resolveConflict(chainId, keep);
      this.changed('artifacts');
      return kept;
    });
  }

  /**
   * Files changed on disk (the database by another window or the CLI, artifact files by
   * git): the session catches up, and announces it if anything changed. An unopened
   * ledger is not loaded for it, unless it can now be built from artifact files.
   */
  fileChanged(): Promise<void> {
    return this.exclusive(async () => {
      if (this.disposed) return;
      if (!this.session && !this.canBuildFromFiles()) {
        this.changed('external');
        return;
      }
      try {
        await (await this.open(false))?.refresh();
      } catch (error) {
        this.logger.error(`Reloading ${this.file}`, error);
        this.session?.close();
        this.session = undefined;
        this.changed('reset');
      }
    });
  }

  dispose(): void {
    this.disposed = true;
    void this.queue.finally(() => {
      this.session?.close();
      this.empty?.close();
      this.session = undefined;
      this.empty = undefined;
    });
  }
}

/** Resolves the database file of a folder: `contextLedger.databasePath`, relative to the folder. */
export function databaseFileFor(folder: vscode.WorkspaceFolder, configured: string): string {
  return path.resolve(folder.uri.fsPath, configured);
}

/** One ledger per workspace folder, created on demand and dropped when its folder or path setting goes. */
export class LedgerRegistry extends DisposableBase {
  private readonly ledgers = new Map<string, { ledger: FolderLedger; watcher: vscode.Disposable }>();
  private readonly changed = this.register(new vscode.EventEmitter<LedgerChange>());
  /** Fires after every write and when another process changed a database. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly config: ConfigService,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeWorkspaceFolders((event) => {
        for (const folder of event.removed) this.drop(folder);
        for (const folder of [...event.added, ...event.removed]) this.changed.fire({ folder, kind: 'reset' });
      }),
    );
    this.register(
      config.onDidChange((change) => {
        for (const folder of this.folders()) {
          if (change.affects('databasePath', folder.uri) && this.ledgers.has(folder.uri.toString())) {
            this.drop(folder);
            this.changed.fire({ folder, kind: 'reset' });
          }
        }
      }),
    );
  }

  folders(): readonly vscode.WorkspaceFolder[] {
    return vscode.workspace.workspaceFolders ?? [];
  }

  folderOf(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.getWorkspaceFolder(uri);
  }

  /** The folders whose database file exists. */
  foldersWithLedger(): vscode.WorkspaceFolder[] {
    return this.folders().filter((folder) => fs.existsSync(this.databaseFile(folder)));
  }

  databaseFile(folder: vscode.WorkspaceFolder): string {
    return this.ledgers.get(folder.uri.toString())?.ledger.file ?? databaseFileFor(folder, this.config.get(folder.uri).databasePath);
  }

  get(folder: vscode.WorkspaceFolder): FolderLedger {
    const key = folder.uri.toString();
    const known = this.ledgers.get(key);
    if (known) return known.ledger;
    const file = databaseFileFor(folder, this.config.get(folder.uri).databasePath);
    const follows: FolderFollows = {
      mirror: () => vscode.workspace.isTrusted,
      // The knowledge files are followed by KnowledgeWatcher (a change on disk, and a catch-up at
      // start) through this same session, so a person who edited an artifact whose file then
      // changed gets its warning; a read does not refresh them first.
      knowledge: () => false,
    };
    const ledger = new FolderLedger(folder, file, this.logger, (kind) => this.changed.fire({ folder, kind }), follows);
    const debounce = new Debouncer(250, () => void ledger.fileChanged());
    // Another process (the CLI, an agent's MCP server) saved the index.
    const fsWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)));
    const watcher = vscode.Disposable.from(
      fsWatcher,
      fsWatcher.onDidChange(() => debounce.schedule()),
      fsWatcher.onDidCreate(() => debounce.schedule()),
      fsWatcher.onDidDelete(() => debounce.schedule()),
      debounce,
    );
    this.ledgers.set(key, { ledger, watcher });
    return ledger;
  }

  private drop(folder: vscode.WorkspaceFolder): void {
    const key = folder.uri.toString();
    const entry = this.ledgers.get(key);
    if (!entry) return;
    this.ledgers.delete(key);
    entry.watcher.dispose();
    entry.ledger.dispose();
  }

  override dispose(): void {
    for (const folder of this.folders()) this.drop(folder);
    for (const entry of this.ledgers.values()) {
      entry.watcher.dispose();
      entry.ledger.dispose();
    }
    this.ledgers.clear();
    super.dispose();
  }
}
