import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LedgerStore } from '../core/store';
import { LedgerFile, loadSqlJs } from '../node/ledgerFile';
import { ensureLedgerGitignore, isWorkspaceLedger } from '../node/ledgerFolder';
import type { ConfigService } from './config';
import { Debouncer, DisposableBase } from './disposable';
import type { Logger } from './logger';

/** What a write changed, so listeners can skip work that does not concern them. */
export type LedgerChangeKind = 'artifacts' | 'tasks' | 'activity' | 'feedback' | 'log' | 'external' | 'reset';

export interface LedgerChange {
  folder: vscode.WorkspaceFolder;
  kind: LedgerChangeKind;
  /** The artifact chains a write of this window changed (its Markdown mirror files follow them). */
  chains?: readonly string[];
}

/**
 * The ledger of one workspace folder. Opened lazily on first use (sql.js and the file
 * load off the activation path). Reads and writes run one at a time, so a refresh after
 * another process wrote never swaps the store under a running assembly. Until the file
 * exists, reads see an empty in-memory ledger; the first write creates it.
 */
export class FolderLedger implements vscode.Disposable {
  private ledger: LedgerFile | undefined;
  private empty: LedgerStore | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    readonly file: string,
    private readonly logger: Logger,
    private readonly changed: (kind: LedgerChangeKind, chains?: readonly string[]) => void,
  ) {}

  /** Whether the database file exists (cheap; no load). */
  exists(): boolean {
    return fs.existsSync(this.file);
  }

  get isLoaded(): boolean {
    return this.ledger !== undefined;
  }

  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async open(create: boolean): Promise<LedgerFile | undefined> {
    if (this.disposed) throw new Error('The ledger was closed.');
    if (this.ledger) return this.ledger;
    if (!create && !this.exists()) return undefined;
    const started = Date.now();
    const creating = create && !this.exists();
    this.ledger = await LedgerFile.open(this.file, { create, createFolder: create });
    // A new workspace ledger's folder says at once what git should keep of it (the mirror) and not (the database).
    if (creating && isWorkspaceLedger(this.file)) ensureLedgerGitignore(path.dirname(this.file));
    const counts = this.ledger.store.countArtifacts();
    this.logger.info(`Opened ${this.file} (${counts.chains} artifacts, ${counts.versions} versions) in ${Date.now() - started} ms`);
    this.empty?.close();
    this.empty = undefined;
    return this.ledger;
  }

  /** Runs `fn` on the freshest data. `fn` may be async; nothing else touches the store meanwhile. */
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const ledger = await this.open(false);
      if (ledger) return await ledger.read(fn);
      this.empty ??= LedgerStore.open(await loadSqlJs());
      return await fn(this.empty);
    });
  }

  /**
   * Applies `fn` under the file lock and persists (creating the database on first write).
   * A write that changed nothing (a mirror sync that found the files as recorded) tells no
   * one: a refresh of every view for it would redraw the tree under an open quick input.
   */
  write<T>(fn: (store: LedgerStore) => T, kind: LedgerChangeKind): Promise<T> {
    return this.exclusive(async () => {
      const existed = this.exists();
      const ledger = (await this.open(true))!;
      const before = ledger.store;
      let changed = true;
      let chains: string[] = [];
      const result = await ledger.write((store) => {
        // What the lock's refresh replayed (another process's writes) is that process's to mirror.
        store.takeChangedChains();
        const generation = store.generation;
        const value = fn(store);
        chains = store.takeChangedChains();
        changed = !existed || store !== before || store.generation !== generation;
        return value;
      });
      if (changed) this.changed(kind, chains);
      return result;
    });
  }

  /**
   * Runs `fn` on the saved ledger under its file lock, for work beside the database that
   * must not interleave with another process's (the Markdown mirror's files and state).
   * `fn` must not change the store: nothing is persisted and no change is announced.
   */
  locked<T>(fn: (store: LedgerStore) => T): Promise<T> {
    return this.exclusive(async () => {
      const ledger = await this.open(false);
      if (!ledger) throw new Error(`${this.file} does not exist.`);
      return await ledger.write(fn);
    });
  }

  /**
   * For async work that records something in the store as it goes (an assembly that
   * writes its log row): runs `fn` on the freshest data, then persists under the lock.
   * If another process wrote in between, its data wins and this record is dropped.
   */
  writeAsync<T>(fn: (store: LedgerStore) => Promise<T>, kind: LedgerChangeKind): Promise<T> {
    return this.exclusive(async () => {
      const ledger = (await this.open(true))!;
      ledger.refresh();
      const result = await fn(ledger.store);
      // An empty transaction marks the store changed, so write() persists what fn recorded.
      await ledger.write((store) => store.transaction(() => undefined));
      this.changed(kind);
      return result;
    });
  }

  /** The file changed on disk (another window, the CLI, git): reload if it is not our own write. */
  fileChanged(): Promise<void> {
    return this.exclusive(() => {
      if (this.disposed) return;
      if (!this.ledger) {
        this.changed('external');
        return;
      }
      try {
        if (this.ledger.refresh()) {
          this.logger.info(`Reloaded ${this.file}: it was changed outside this window.`);
          this.changed('external');
        }
      } catch (error) {
        this.logger.error(`Reloading ${this.file}`, error);
        this.ledger.close();
        this.ledger = undefined;
        this.changed('reset');
      }
    });
  }

  dispose(): void {
    this.disposed = true;
    void this.queue.finally(() => {
      this.ledger?.close();
      this.empty?.close();
      this.ledger = undefined;
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
    const ledger = new FolderLedger(folder, file, this.logger, (kind, chains) => this.changed.fire({ folder, kind, ...(chains && chains.length > 0 ? { chains } : {}) }));
    const debounce = new Debouncer(250, () => void ledger.fileChanged());
    // The journal beside the database takes other processes' build records (see LedgerFile).
    const fsWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), `{${path.basename(file)},${path.basename(file)}.journal}`));
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
