/**
 * The one way into a ledger: the CLI (src/cli/commandContext.ts), the MCP server
 * (src/cli/mcp.ts) and the extension (src/extension/ledgers.ts) each open a
 * `LedgerSession` and read and write through it; nothing else opens a LedgerFile.
 *
 * A session keeps the workspace database (the index: sql.js, src/node/ledgerFile.ts) up
 * to date with the files the team shares before every read and write, without a command
 * in between: another process's write to the database, the Markdown mirror's artifact
 * files (`.context-ledger/artifacts/`, changed by a pull, a checkout, a teammate's edit;
 * src/node/mirrorSync.ts) and the knowledge files the ledger imported (AGENTS.md, rule
 * files, ADRs; src/node/knowledgeRefresh.ts). Each check is by stamps (size and time,
 * then the hash of what changed), so a refresh that finds nothing changed reads no file.
 *
 * Writes have one path: the database's lock, the change, the database, then the artifact
 * files of the chains the change touched (only those), so a commit right after carries them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Artifact, UserError } from '../core/model';
import type { LedgerStore } from '../core/store';
import { defaultDatabasePath, LEDGER_FOLDER, writeFileInside } from './files';
import { changedKnowledgePaths, type KnowledgeStamps, knowledgeStamps, linkedFiles, sameStamps } from './knowledgeStamps';
import { LedgerFile } from './ledgerFile';
import { ensureLedgerGitignore, isWorkspaceLedger, mirrorFolderOf } from './ledgerFolder';
import { mirrorHasChanges, mirrorHasFiles, mirrorListingKey } from './mirrorState';
import type { SyncReport } from './mirrorSync';

export interface SessionOptions {
  /** Where the ledger is searched from (upwards), as the CLI does. */
  cwd: string;
  /** An explicit database (`--db`), relative to `cwd`. */
  dbFile?: string;
  /** Create the ledger when none is found. A clone with artifact files and no database always gets one built from them. */
  create?: boolean;
  /** Progress and warnings (stderr for the CLI, the output channel for the extension). */
  say?: (text: string) => void;
  /** Whether to follow the artifact files (default: yes). The extension says no in an untrusted workspace. */
  followMirror?: () => boolean;
  /** Whether to follow the imported knowledge files (default: yes; the extension's `contextLedger.import.watch`). */
  followKnowledge?: () => boolean;
  /** Called when a refresh found the ledger changed by someone else (another process, the files). */
  onExternalChange?: () => void;
  lockTimeoutMs?: number;
}

export interface LedgerLocation {
  /** The database file, absolute. */
  file: string;
  /** Whether it is the default place (found upwards from cwd, or cwd's own `.context-ledger/`). */
  isDefault: boolean;
  /** The folder holding `.context-ledger/` (a workspace ledger), else cwd. */
  workspace: string;
}

/** Where the ledger of `cwd` (or the explicit `dbFile`) is. */
export function ledgerLocation(cwd: string, dbFile?: string): LedgerLocation {
  if (dbFile) {
    const file = path.resolve(cwd, dbFile);
    const folder = path.dirname(file);
    return { file, isDefault: false, workspace: path.basename(folder) === LEDGER_FOLDER ? path.dirname(folder) : path.resolve(cwd) };
  }
  const found = defaultDatabasePath(cwd);
  return { file: found.file, isDefault: true, workspace: found.found ? path.dirname(path.dirname(found.file)) : path.resolve(cwd) };
}

/** The default place, or a `.context-ledger` folder named explicitly: the ledger's own folder, made when missing. */
function mayCreateFolder(location: LedgerLocation): boolean {
  return location.isDefault || path.basename(path.dirname(location.file)) === LEDGER_FOLDER;
}

interface StampRecord {
  version: 1;
  stamps: KnowledgeStamps;
}

export class LedgerSession {
  private queue: Promise<unknown> = Promise.resolve();
  /** The knowledge files' stamps as last checked (undefined: read them from their file first). */
  private knowledge: KnowledgeStamps | undefined;
  private closed = false;
  /** The artifact files as this session's last sync left them (see mirrorListingKey). */
  private lastSynced: string | undefined;

  private constructor(
    private readonly ledger: LedgerFile,
    readonly workspace: string,
    private readonly options: SessionOptions,
  ) {}

  get dbFile(): string {
    return this.ledger.file;
  }

  /** Finds (or creates) the ledger; on a clone with artifact files and no database, the first refresh builds it from them. */
  static async open(options: SessionOptions): Promise<LedgerSession> {
    const location = ledgerLocation(options.cwd, options.dbFile);
    const { file } = location;
    const shared = isWorkspaceLedger(file);
    const fresh = shared && (options.followMirror?.() ?? true) && !fs.existsSync(file) && mirrorHasFiles(file);
    if (fresh) options.say?.(`building the ledger from the Markdown mirror in ${path.relative(options.cwd, mirrorFolderOf(file)) || '.'}…`);
    const create = options.create === true || fresh;
    const creating = create && !fs.existsSync(file);
    const ledger = await LedgerFile.open(file, { create, createFolder: create && mayCreateFolder(location), ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}) });
    // A new ledger's folder says at once what git should keep of it (the artifact files) and not (the database).
    if (creating && shared) ensureLedgerGitignore(path.dirname(file));
    return new LedgerSession(ledger, shared ? path.dirname(path.dirname(file)) : location.workspace, options);
  }

  /** One call at a time: a refresh never swaps the store under a running read. */
  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`The ledger session of ${this.dbFile} was closed.`));
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Brings the index up to date with the files; resolves to whether anything changed. */
  refresh(): Promise<boolean> {
    return this.exclusive(() => this.refreshNow());
  }

  /** Refreshes, then runs `fn` on the index. `fn` must not change the store (use `write`). */
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.refreshNow();
      return await fn(this.ledger.store);
    });
  }

  /** The one write path: refresh, then under the lock apply `fn`, save, and write the artifact files of the chains it changed. */
  write<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.refreshNow();
      return await this.writeNow(fn);
    });
  }

  /**
   * `context-ledger sync` and **Sync Markdown Mirror**: the artifact files and the index
   * both ways, now (src/node/mirrorSync.ts); `dir` another folder of artifact files.
   */
  syncFiles(options: { dir?: string } = {}): Promise<SyncReport> {
    return this.exclusive(async () => {
      this.ledger.refresh();
      const { syncMirror } = await import('./mirrorSync.js');
      return syncMirror({ dbFile: this.dbFile, ...options, write: (fn, after) => this.ledger.write(fn, after) });
    });
  }

  /** Keeps one side of a chain in conflict and writes its file clean (`context-ledger resolve`, **Resolve…**). */
  resolveConflict(chainId: string, keep: 'mine' | 'theirs'): Promise<Artifact> {
    return this.exclusive(async () => {
      const { resolveMirrorConflict } = await import('./mirrorSync.js');
      return resolveMirrorConflict({ dbFile: this.dbFile, chainId, keep, write: (fn, after) => this.ledger.write(fn, after) });
    });
  }

  /** The store as last refreshed, for a caller already inside `read` (tests, the extension's empty-ledger case). */
  get store(): LedgerStore {
    return this.ledger.store;
  }

  close(): void {
    this.closed = true;
    void this.queue.finally(() => this.ledger.close());
  }

  private follows(option: (() => boolean) | undefined): boolean {
    return isWorkspaceLedger(this.dbFile) && (option?.() ?? true);
  }

  private async refreshNow(): Promise<boolean> {
    let changed = this.ledger.refresh();
    if (this.follows(this.options.followMirror) && mirrorHasChanges(this.dbFile) && mirrorListingKey(this.dbFile) !== this.lastSynced) {
      changed = (await this.followMirror()) || changed;
      this.lastSynced = mirrorListingKey(this.dbFile);
    }
    if (this.follows(this.options.followKnowledge)) changed = (await this.followKnowledge()) || changed;
    if (changed) this.options.onExternalChange?.();
    return changed;
  }

  private async writeNow<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    let chains: string[] = [];
    let needsSync = false;
    const result = await this.ledger.write(
      async (store) => {
        // What the lock's refresh replayed (another process's writes) is that process's to mirror.
        store.takeChangedChains();
        const value = await fn(store);
        chains = store.takeChangedChains();
        return value;
      },
      // The changed chains' files, under the same lock as the database they follow.
      async () => {
        if (chains.length > 0 && this.follows(this.options.followMirror)) needsSync = await this.writeArtifactFiles(chains);
      },
    );
    if (needsSync) await this.syncWhole();
    return result;
  }

  private say(text: string): void {
    this.options.say?.(text);
  }

  /**
   * The changed chains' files (the caller holds the lock and saved the store). Returns
   * whether the mirror needs a whole sync first (no sync recorded it yet). What goes wrong
   * is said and never fails the write.
   */
  private async writeArtifactFiles(chainIds: string[]): Promise<boolean> {
    // Loaded on use, as everything that parses or renders Markdown: a command that changes no artifact never loads it.
    const { mirrorChainsLocked } = await import('./mirrorSync.js');
    try {
      return mirrorChainsLocked(this.ledger.store, { dbFile: this.dbFile, chainIds }).needsSync;
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      this.say(`the Markdown mirror was not written: ${error.message}`);
      return false;
    }
  }

  private async syncWhole(): Promise<void> {
    const { syncMirror } = await import('./mirrorSync.js');
    try {
      await syncMirror({ dbFile: this.dbFile, auto: true, write: (f, after) => this.ledger.write(f, after) });
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      this.say(`the Markdown mirror was not written: ${error.message}`);
    }
  }

  /** Imports what the artifact files got from git since the last look; says what it found, never fails the caller. */
  private async followMirror(): Promise<boolean> {
    const { syncMirror } = await import('./mirrorSync.js');
    try {
      const report = await syncMirror({ dbFile: this.dbFile, auto: true, write: (fn, after) => this.ledger.write(fn, after) });
      const pulled = report.added.length + report.updated.length + report.archived.length;
      if (pulled > 0) this.say(`from the Markdown mirror: ${report.added.length} added, ${report.updated.length} updated, ${report.archived.length} archived.`);
      for (const c of report.conflicts) this.say(`CONFLICT ${c.path}: ${c.note}`);
      for (const p of report.problems.slice(0, 10)) this.say(`mirror file ${p.path} skipped: ${p.message}`);
      // A conflict alone changes nothing in the ledger (its versions were imported when it was found).
      return pulled > 0;
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      this.say(`the Markdown mirror was not synced: ${error.message}`);
      return false;
    }
  }

  private get stampFile(): string {
    return `${this.dbFile}.knowledge.json`;
  }

  /**
   * Refreshes what the ledger imported from the workspace's knowledge files when one of
   * them (or a folder holding one) changed since the last check: the same incremental
   * import as `import-folder`, so nothing a person did in the ledger is undone.
   */
  private async followKnowledge(): Promise<boolean> {
    const linked = this.ledger.store.listArtifacts({ sourcePrefix: 'import:' });
    const files = linkedFiles(linked);
    if (files.size === 0) return false;
    const now = knowledgeStamps(this.workspace, files);
    const before = this.knowledge ?? this.readStamps();
    if (before && sameStamps(before, now)) {
      this.knowledge = now;
      return false;
    }
    // Something changed: only now are the parsers loaded.
    const [{ followedSources, formatsTouched, parseRefresh }, { applyImport }] = await Promise.all([import('./knowledgeRefresh.js'), import('./folderImport.js')]);
    const followed = followedSources(linked);
    const formats = formatsTouched(followed, before ? changedKnowledgePaths(this.workspace, before, now) : undefined);
    let changed = false;
    if (formats.length > 0) {
      try {
        const parsed = parseRefresh(this.workspace, followed, formats);
        const reports = await this.writeNow((store) => {
          const generation = store.generation;
          const applied = applyImport(store, parsed);
          changed = store.generation !== generation;
          return applied;
        });
        const count = (pick: (r: (typeof reports)[number]) => readonly string[]): number => reports.reduce((n, r) => n + pick(r).length, 0);
        if (changed) this.say(`from the knowledge files: ${count((r) => r.added)} added, ${count((r) => r.updated)} updated, ${count((r) => r.removed)} archived, ${count((r) => r.detached)} detached.`);
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        this.say(`the knowledge files were not refreshed: ${error.message}`);
        return false;
      }
    }
    this.knowledge = now;
    this.writeStamps(now);
    return changed;
  }

  private readStamps(): KnowledgeStamps | undefined {
    try {
      const record = JSON.parse(fs.readFileSync(this.stampFile, 'utf8')) as Partial<StampRecord>;
      return record.version === 1 && typeof record.stamps === 'object' && record.stamps !== null ? record.stamps : undefined;
    } catch {
      return undefined;
    }
  }

  /** Local to this machine (the folder's .gitignore keeps it out of git); written aside and renamed, never through a link. */
  private writeStamps(stamps: KnowledgeStamps): void {
    try {
      writeFileInside(path.dirname(this.stampFile), this.stampFile, `${JSON.stringify({ version: 1, stamps } satisfies StampRecord)}\n`, 'the knowledge files\' stamps');
    } catch (error) {
      // Only a cost: the next session reads the knowledge files again.
      this.say(`could not record the knowledge files' stamps: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
