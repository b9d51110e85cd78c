/**
 * The one way into a ledger: the CLI (src/cli/commandContext.ts), the MCP server
 * (src/cli/mcp/ledger.ts), the hook server and the extension (src/extension/ledgers.ts) each
 * open a `LedgerSession` and read and write through it; nothing else opens a LedgerFile.
 *
 * In a workspace the ledger is its files: the artifact files (`.context-ledger/artifacts/`,
 * one Markdown file per chain; src/node/artifactFiles.ts) and the knowledge files it imported
 * (AGENTS.md, rule files, ADRs; src/node/knowledgeRefresh.ts). The database (sql.js,
 * src/node/ledgerFile.ts) is their index plus this machine's own state. Before every read and
 * write a session brings the index up to date with the files by stamps (size and time, then
 * the hash of what changed), so a refresh that finds nothing changed reads no file.
 *
 * Writes have one path: under the lock, the files changed since are imported, the change is
 * applied to the index, the changed chains' files are written (each atomically; a file a
 * teammate changed meanwhile is never overwritten), then the index is saved. A kill between
 * the files and the index leaves a file newer than the index, which the next refresh imports.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { newArtifactId } from '../core/ids';
import { normalizeArtifactInput } from '../core/ledgerStore/artifactInput';
import { type Artifact, type ArtifactInput, UserError } from '../core/model';
import type { FileStamp, LedgerStore } from '../core/store';
import { FileChangedError, filesChanged, type FolderListing, folderListing, hashOf, hasLegacyState, listingKey, matchesRecorded, type MirrorConflict, mirrorHasFiles, relisted } from './artifactFolder';
import type { SyncReport } from './artifactFiles';
import { defaultDatabasePath, LEDGER_FOLDER, writeFileInside } from './files';
import { changedKnowledgePaths, type KnowledgeStamps, knowledgeStamps, linkedFiles, readStampRecord, sameStamps, type StampRecord } from './knowledgeStamps';
import { assertWritable, LedgerFile, refuseLinkedParts } from './ledgerFile';
import { ensureLedgerGitignore, isWorkspaceLedger, mirrorFolderOf } from './ledgerFolder';
import { faultPoint } from './persistence/faultInjection';
import { deltaBelongsTo, fileLine, fitsDelta, indexIdentity, readDelta, writeDelta } from './persistence/indexDelta';
import { identityOf } from './persistence/fileIdentity';
import { acquireLock } from './persistence/lock';

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

/** Whether a chain of these artifacts has a version imported from a knowledge file (what the session follows depends on it). */
function touchesKnowledge(store: LedgerStore, ids: readonly string[]): boolean {
  return store.chainsHaveSource(ids, 'import:');
}

/**
 * Appends an `add`'s new file to the index's delta (the caller holds the lock). Only a cost
 * when it cannot: the next refresh reads the file, as it reads a teammate's.
 */
function recordOwnFile(dbFile: string, stamp: FileStamp, input: ArtifactInput, say?: (text: string) => void): void {
  try {
    const base = identityOf(dbFile);
    if (!base) return;
    const loaded = readDelta(dbFile);
    const delta = deltaBelongsTo(loaded, base) ? loaded : undefined;
    const line = fileLine(stamp, input);
    if (!fitsDelta(delta, line, base.size)) return;
    const written = writeDelta(dbFile, base, delta, line);
    // The new artifact is no imported knowledge: the knowledge files the index followed, recorded for it, are those
    // the index with this line follows, so the next command does not scan every artifact row for them.
    // And the listing the index matched, with this file added to it (matchesRecorded checks the index has it as stamped).
    const record = readStampRecord(stampFileOf(dbFile));
    if (record?.index !== indexIdentity(base, loaded?.identity)) return;
    const carried: StampRecord = { version: 1, stamps: record.stamps, index: indexIdentity(base, written.identity) };
    if (record.files && !input.source?.startsWith('import:')) carried.files = record.files;
    if (record.listing) Object.assign(carried, { listing: record.listing, added: [...(record.added ?? []), { path: stamp.path, size: stamp.size, mtimeMs: stamp.mtimeMs }] });
    if (carried.files || carried.listing) writeFileInside(path.dirname(dbFile), stampFileOf(dbFile), `${JSON.stringify(carried)}\n`, 'the knowledge files\' stamps');
  } catch (error) {
    say?.(`the index was not told of the new file (the next command reads it): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The session's record beside the index (knowledgeStamps.ts, StampRecord). */
function stampFileOf(dbFile: string): string {
  return `${dbFile}.knowledge.json`;
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

export class LedgerSession {
  private queue: Promise<unknown> = Promise.resolve();
  /** The knowledge files' stamps as last checked (undefined: read them from their file first). */
  private knowledge: KnowledgeStamps | undefined;
  /** The record of `stampFile` as last read or written. */
  private record: StampRecord | undefined;
  /** A store that holds files read without the lock (importNow's fallback), unsaved: nothing is remembered of it. */
  private readInMemory: { store: LedgerStore; savedAs: string | undefined } | undefined;
  private closed = false;
  /** The artifact files as this session's last import left them (see listingKey). */
  private lastImported: string | undefined;
  /** The artifact files as this session last listed them (a refresh told which files changed looks at those alone). */
  private lastListing: FolderListing | undefined;
  /** While a write runs: the chains its refreshes brought in from the files (a change there is a teammate's). */
  private importedDuringWrite: Set<string> | undefined;

  private constructor(
    private readonly ledger: LedgerFile,
    readonly workspace: string,
    private readonly options: SessionOptions,
  ) {}

  get dbFile(): string {
    return this.ledger.file;
  }

  /** The artifact files' folder (`.context-ledger/artifacts/` beside the database). */
  get artifactsFolder(): string {
    return mirrorFolderOf(this.dbFile);
  }

  /** Finds (or creates) the ledger; on a clone with artifact files and no database, the first refresh builds it from them. */
  static async open(options: SessionOptions): Promise<LedgerSession> {
    const location = ledgerLocation(options.cwd, options.dbFile);
    const { file } = location;
    const shared = isWorkspaceLedger(file);
    const fresh = shared && (options.followMirror?.() ?? true) && !fs.existsSync(file) && mirrorHasFiles(file);
    if (fresh) options.say?.(`building the ledger's index from its artifact files in ${path.relative(options.cwd, mirrorFolderOf(file)) || '.'}…`);
    const create = options.create === true || fresh;
    const creating = create && !fs.existsSync(file);
    const ledger = await LedgerFile.open(file, {
      create,
      createFolder: create && mayCreateFolder(location),
      // Outside a workspace the database is all there is: each save reaches the disk.
      durable: !shared,
      ...(options.say ? { say: options.say } : {}),
      ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
    });
    // A new ledger's folder says at once what git should keep of it (the artifact files) and not (the database).
    if (creating && shared) ensureLedgerGitignore(path.dirname(file));
    return new LedgerSession(ledger, shared ? path.dirname(path.dirname(file)) : location.workspace, options);
  }

  /**
   * `add` of a new artifact in a workspace whose index exists: the new chain's file, written
   * under the lock, is the whole write — the index is not loaded. It takes the artifact from
   * the file at the next refresh (of any process), as it takes a teammate's, so a command that
   * only adds pays for neither loading nor saving the index (docs/storage.md, "Cost").
   * Undefined when the add needs the index (an id, chain, task or supersession of its own, no
   * index yet, an earlier version's layout): the caller then writes through a session.
   */
  static async addAsFile(options: SessionOptions, input: ArtifactInput): Promise<Artifact | undefined> {
    const { file } = ledgerLocation(options.cwd, options.dbFile);
    const standalone = input.id === undefined && input.chainId === undefined && input.version === undefined && input.taskId == null && input.supersedes == null;
    if (!standalone || !isWorkspaceLedger(file) || !(options.followMirror?.() ?? true)) return undefined;
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile() || hasLegacyState(file) || fs.existsSync(`${file}.journal`)) return undefined;
    const now = new Date();
    const artifact = normalizeArtifactInput(input, () => now.toISOString(), (type) => newArtifactId(type, now, () => false));
    assertWritable(file);
    refuseLinkedParts(file);
    const release = await acquireLock(`${file}.lock`, file, options.lockTimeoutMs);
    try {
      const { writeNewChainFile } = await import('./artifactFiles.js');
      const written = writeNewChainFile(mirrorFolderOf(file), artifact);
      // The index learns of this machine's own file from its delta: the next command neither reads it again nor reports it found.
      if (written.stamp) recordOwnFile(file, written.stamp, written.input, options.say);
    } finally {
      release();
    }
    return artifact;
  }

  /** One call at a time: a refresh never swaps the store under a running read. */
  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`The ledger session of ${this.dbFile} was closed.`));
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Brings the index up to date with the files; resolves to whether anything changed.
   * `changedFiles`: for a caller the file system tells what changed (the hook server's watch), the
   * files named since this session's last refresh or write (absolute paths): only those of them
   * that are artifact files are looked at again, not every file. Without it every file is stat-ed.
   */
  refresh(changedFiles?: ReadonlySet<string>): Promise<boolean> {
    return this.exclusive(() => this.refreshNow(changedFiles));
  }

  /** Refreshes, then runs `fn` on the index. `fn` must not change the store (use `write`). */
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.refreshNow();
      return await fn(this.ledger.store);
    });
  }

  /**
   * Runs `fn` on the index as the last refresh left it, without refreshing first: for a caller
   * that follows the files itself and knows nothing changed since (the hook server watches them).
   * `fn` must not change the store (use `write`).
   */
  readAsIs<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(() => fn(this.ledger.store));
  }

  /**
   * Saves what a read computed for the index (token counts, term vectors) when it can at once
   * (LedgerFile.saveDerived), keeping the record of the knowledge files for the index it is
   * now: a cold hook's next process reads the counts instead of loading the tokenizer again.
   */
  saveDerived(): Promise<void> {
    return this.exclusive(async () => {
      const before = this.ledger.savedAs;
      if (before === undefined || this.readInMemory?.store === this.ledger.store) return;
      const record = (this.record ??= this.readStamps());
      if ((await this.ledger.saveDerived()) && record?.index === before) this.remember({}, before);
    });
  }

  /**
   * The one write path: refresh, then under the lock apply `fn`, write the files of the
   * chains it changed, and save the index. A chain whose file a teammate changed since this
   * session read it is not written over: the change is refused with a UserError naming the
   * file, whose text is imported.
   */
  write<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.importedDuringWrite = new Set();
      try {
        await this.refreshNow();
        return await this.writeNow(fn);
      } finally {
        this.importedDuringWrite = undefined;
      }
    });
  }

  /**
   * `context-ledger sync` and **Sync Markdown Mirror**: imports the artifact files now, and
   * writes the file of any chain that has none (src/node/artifactFiles.ts).
   */
  syncFiles(): Promise<SyncReport> {
    return this.exclusive(async () => {
      this.ledger.refresh();
      const { importFiles, writeMissingFiles } = await import('./artifactFiles.js');
      const dir = this.artifactsFolder;
      const report = await this.ledger.write(async (store) => {
        if (this.needsMigration()) await this.migrate(store);
        const imported = importFiles(store, dir);
        imported.written.push(...writeMissingFiles(store, dir));
        this.ledger.markUnsaved();
        return imported;
      });
      this.lastImported = listingKey(dir);
      this.lastListing = undefined;
      return report;
    });
  }

  /** The artifact files git left with conflict markers (`context-ledger resolve`, the Artifacts view). */
  conflicts(): Promise<MirrorConflict[]> {
    return this.read(async (store) => {
      if (!this.follows(this.options.followMirror)) return [];
      const { markerConflicts } = await import('./artifactFiles.js');
      return markerConflicts(store, this.artifactsFolder);
    });
  }

  /** Keeps one side of a file with git's conflict markers and writes it clean (`context-ledger resolve`, **Resolve…**). */
  resolveConflict(ref: string, keep: 'mine' | 'theirs'): Promise<Artifact> {
    return this.exclusive(async () => {
      const { resolveMarkers } = await import('./artifactFiles.js');
      const kept = await this.ledger.write((store) => {
        this.ledger.markUnsaved();
        return resolveMarkers(store, this.artifactsFolder, ref, keep);
      });
      this.lastListing = undefined;
      return kept;
    });
  }

  /**
   * The knowledge files (workspace-relative) the index follows, without refreshing first (the
   * hook server watches their folders): from the record kept for the saved index when it has
   * them, else asked of the index (a scan of every artifact row).
   */
  followedKnowledgeFiles(): Promise<Set<string>> {
    return this.exclusive(() => {
      const record = (this.record ??= this.readStamps());
      const saved = this.ledger.savedAs !== undefined && this.readInMemory?.store !== this.ledger.store;
      if (saved && record?.files && record.index === this.ledger.savedAs) return new Set(record.files);
      return linkedFiles(this.ledger.store.listArtifacts({ sourcePrefix: 'import:' }));
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

  /** The index's file stamps (the store keeps them in memory: ledgerStore/fileStamps.ts). */
  private fileStamps(): Map<string, FileStamp> {
    return this.ledger.store.fileStamps();
  }

  /** An earlier version's layout (sync.json, an unmerged journal) is still there: migrate before anything else. */
  private needsMigration(): boolean {
    return this.ledger.hasLegacyJournal || hasLegacyState(this.dbFile);
  }

  /** See src/node/legacyLedger.ts; the caller holds the lock. */
  private async migrate(store: LedgerStore): Promise<void> {
    const { migrateLegacyState } = await import('./legacyLedger.js');
    const written = hasLegacyState(this.dbFile) ? migrateLegacyState(store, this.dbFile, this.artifactsFolder) : [];
    if (written.length > 0) this.say(`migrated the ledger to files first: wrote ${written.length} artifact file${written.length === 1 ? '' : 's'} the database was ahead of.`);
    this.ledger.markUnsaved();
  }

  /** The artifact files now: the last listing with the named files looked at again when the caller could name them all, else a new listing. */
  private listFiles(dir: string, changedFiles: ReadonlySet<string> | undefined): FolderListing | undefined {
    const before = this.lastListing;
    let listing: FolderListing | undefined;
    if (before !== undefined && changedFiles !== undefined) {
      const inside: string[] = [];
      for (const file of changedFiles) {
        const at = path.relative(dir, file);
        // The database, its delta, the lock: not artifact files (the store's own refresh looks at the database).
        if (at !== '' && (at === '..' || at.startsWith(`..${path.sep}`) || path.isAbsolute(at))) continue;
        inside.push(at.split(path.sep).join('/'));
      }
      listing = relisted(before, inside);
    }
    listing ??= folderListing(dir);
    this.lastListing = listing;
    return listing;
  }

  private async refreshNow(changedFiles?: ReadonlySet<string>): Promise<boolean> {
    // The index another process saved can also be loaded by the lock an import takes (that process
    // wrote the files, then the index, while this one waited): a changed store is a change however it came.
    const loadedBefore = this.ledger.store;
    let changed = this.ledger.refresh();
    if (this.follows(this.options.followMirror)) {
      const dir = this.artifactsFolder;
      if (this.needsMigration()) {
        this.lastListing = undefined;
        changed = (await this.importNow(true)) !== undefined || changed;
      } else {
        const listing = this.listFiles(dir, changedFiles);
        // As this session (or, for the saved index it holds, any process) last found the files matching the index: no stamp need be read.
        const record = (this.record ??= this.readStamps());
        const recorded = listing !== undefined && record?.listing !== undefined && record.index === this.ledger.savedAs && matchesRecorded(listing, record.listing, record.added, (at) => this.ledger.store.fileStamp(at));
        // Recorded with files added since: recorded as it is now, so the next command compares the listing alone.
        if (recorded && record.added) this.remember({ listing: hashOf(listing.key) });
        if (recorded || listing?.key === this.lastImported) this.lastImported = listing?.key;
        else if (filesChanged(this.fileStamps(), listing)) {
          const before = { store: this.ledger.store, savedAs: this.ledger.savedAs };
          const imported = await this.importNow(false, listing);
          changed = imported !== undefined || changed;
          // An import that touched no imported knowledge (a teammate's note, not an AGENTS.md section) leaves the
          // knowledge files the index follows as they were: carried over to the index just saved, so they are
          // not asked of it again (a scan of every artifact row: at 10,000 artifacts, ~0.1 s of each refresh).
          // And the listing, when the index saved now has every listed file as listed (no file it could not take,
          // none written since): the next command compares its listing with it and asks the index nothing.
          const saved = this.ledger.store === before.store && this.ledger.savedAs !== before.savedAs;
          const matched = saved && listing !== undefined && this.lastImported === listing.key && !filesChanged(this.fileStamps(), listing) ? hashOf(listing.key) : undefined;
          if (imported !== undefined && !imported.touchesKnowledge && saved && before.savedAs !== undefined && this.record?.index === before.savedAs) {
            this.remember({ listing: matched }, before.savedAs);
          } else if (matched !== undefined) this.remember({ listing: matched });
        } else {
          this.lastImported = listing?.key;
          if (listing) this.remember({ listing: hashOf(listing.key) });
        }
      }
    }
    if (this.follows(this.options.followKnowledge)) changed = (await this.followKnowledge()) || changed;
    changed ||= this.ledger.store !== loadedBefore;
    if (changed) this.options.onExternalChange?.();
    return changed;
  }

  /**
   * Imports what the artifact files got (a pull, a teammate's edit) under the lock; says what it
   * found, never fails the caller. Undefined when the ledger did not change; else whether a chain it
   * changed is (or was) imported knowledge (an `import:` source), which the knowledge files followed depend on.
   */
  private async importNow(migrating: boolean, listing?: FolderListing): Promise<{ touchesKnowledge: boolean } | undefined> {
    const listedWith = this.ledger.store;
    const { importFiles, writeMissingFiles } = await import('./artifactFiles.js');
    const dir = this.artifactsFolder;
    try {
      const report = await this.ledger.write(async (store) => {
        if (migrating) await this.migrate(store);
        // An index that never read a file (a clone, a database moved aside, one made with `--db`
        // before its first file was added) has chains whose files must be written.
        const firstRead = store.fileStamps().size === 0;
        // The refresh's listing holds only while no other writer saved the index since (its files would look deleted).
        const imported = importFiles(store, dir, this.importedDuringWrite, store === listedWith ? listing : undefined);
        if (migrating || firstRead) imported.written.push(...writeMissingFiles(store, dir));
        this.ledger.markUnsaved();
        return imported;
      });
      // Files written (ids given to new files) changed the folder; else it is as listed.
      this.lastImported = listing && report.written.length === 0 ? listing.key : listingKey(dir);
      const pulled = report.added.length + report.updated.length + report.archived.length;
      if (pulled > 0) this.say(`from the artifact files: ${report.added.length} added, ${report.updated.length} updated, ${report.archived.length} archived.`);
      for (const c of report.conflicts) this.say(`CONFLICT ${c.path}: ${c.note}`);
      for (const p of report.problems.slice(0, 10)) this.say(`artifact file ${p.path} skipped: ${p.message}`);
      if (pulled === 0 && report.written.length === 0) return undefined;
      return { touchesKnowledge: migrating || report.written.length > 0 || touchesKnowledge(this.ledger.store, [...report.added, ...report.updated, ...report.archived]) };
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      if (migrating || this.ledger.store !== listedWith) {
        this.say(`the artifact files were not read: ${error.message}`);
        return undefined;
      }
      // The lock or the save is refused (another writer holds it, a read-only ledger): the files are
      // still the ledger, so this session reads them into its copy of the index, unsaved.
      const report = importFiles(this.ledger.store, dir, this.importedDuringWrite, listing, true);
      this.readInMemory = { store: this.ledger.store, savedAs: this.ledger.savedAs };
      this.lastImported = listing?.key;
      const pulled = report.added.length + report.updated.length + report.archived.length;
      if (pulled > 0) this.say(`from the artifact files (read only, the index was not saved: ${error.message}): ${report.added.length} added, ${report.updated.length} updated, ${report.archived.length} archived.`);
      return pulled > 0 ? { touchesKnowledge: true } : undefined;
    }
  }

  private async writeNow<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
    const files = this.follows(this.options.followMirror) ? this.artifactsFolder : undefined;
    const imported = this.importedDuringWrite ?? new Set<string>();
    const before = { store: this.ledger.store, savedAs: this.ledger.savedAs };
    let changedNoChain = false;
    try {
      const value = await this.ledger.write(async (store) => {
        // Files changed since the refresh by a writer that takes no lock (git, an editor) are caught
        // where it matters: writeChainFiles refuses to write over a file not as the index read it.
        store.takeChangedChains();
        const value = await fn(store);
        const chains = store.takeChangedChains();
        if (files !== undefined && chains.length > 0) {
          const { writeChainFiles } = await import('./artifactFiles.js');
          const clash = chains.find((c) => imported.has(c));
          if (clash !== undefined) {
            const stamp = [...store.fileStamps().values()].find((s) => s.chainId === clash);
            throw new FileChangedError(path.join(files, stamp?.path ?? clash), clash);
          }
          faultPoint('files-before');
          writeChainFiles(store, files, chains);
          faultPoint('files-written');
          this.ledger.markUnsaved();
        }
        changedNoChain = chains.length === 0;
        return value;
      });
      // A write that changed no artifact (a build's log row, feedback, a task) leaves the files and what the index follows as
      // they were: what was recorded for the saved index before holds for the one saved now, so the next command asks it nothing.
      if (changedNoChain && this.ledger.store === before.store && before.savedAs !== undefined && this.record?.index === before.savedAs && this.ledger.savedAs !== before.savedAs) {
        this.remember({}, before.savedAs);
      }
      return value;
    } catch (error) {
      // The store went back to what is on disk; a file changed under the lock is imported now, so the writer sees it.
      if (files !== undefined && error instanceof FileChangedError) await this.importNow(false);
      throw error;
    }
  }

  private say(text: string): void {
    this.options.say?.(text);
  }

  private get stampFile(): string {
    return stampFileOf(this.dbFile);
  }

  /**
   * Refreshes what the ledger imported from the workspace's knowledge files when one of
   * them (or a folder holding one) changed since the last check: the same incremental
   * import as `import-folder`, so nothing a person did in the ledger is undone.
   */
  private async followKnowledge(): Promise<boolean> {
    const record = (this.record ??= this.readStamps());
    const index = this.ledger.savedAs;
    let linked: Artifact[] | undefined;
    let files: Set<string>;
    if (index !== undefined && record?.index === index && record.files) files = new Set(record.files);
    else {
      linked = this.ledger.store.listArtifacts({ sourcePrefix: 'import:' });
      files = linkedFiles(linked);
    }
    // What the index follows is recorded for the saved database it is now, so the next command need not ask.
    const remember = (stamps: KnowledgeStamps): void => {
      if (record?.index !== index || !record?.files) this.remember({ stamps, files: [...files].sort() });
    };
    if (files.size === 0) {
      remember(record?.stamps ?? {});
      return false;
    }
    const now = knowledgeStamps(this.workspace, files);
    const before = this.knowledge ?? record?.stamps;
    if (before && sameStamps(before, now)) {
      this.knowledge = now;
      remember(now);
      return false;
    }
    // Something changed: only now are the parsers loaded.
    const [{ followedSources, formatsTouched, parseRefresh }, { applyImport }] = await Promise.all([import('./knowledgeRefresh.js'), import('./folderImport.js')]);
    const followed = followedSources(linked ?? this.ledger.store.listArtifacts({ sourcePrefix: 'import:' }));
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
    // A write changed the index (and maybe what it follows): the files are asked of it again next time.
    this.writeStamps({ version: 1, stamps: now });
    return changed;
  }

  private readStamps(): StampRecord | undefined {
    return readStampRecord(this.stampFile);
  }

  /** Records `patch` for the saved database the index is now (a record for another one starts over, keeping the stamps). */
  private remember(patch: Partial<Omit<StampRecord, 'version' | 'index'>>, carriedFrom?: string): void {
    const index = this.ledger.savedAs;
    if (index === undefined || (this.readInMemory?.store === this.ledger.store && this.readInMemory.savedAs === index)) return;
    const base: StampRecord = this.record?.index === (carriedFrom ?? index) ? this.record : { version: 1, stamps: this.record?.stamps ?? {} };
    // Files an add recorded are only ever added by the add (recordOwnFile): a record this session writes compares the listing alone.
    this.writeStamps({ ...base, ...patch, added: undefined, index });
  }

  /** Local to this machine (the folder's .gitignore keeps it out of git); written aside and renamed, never through a link. */
  private writeStamps(record: StampRecord): void {
    this.record = record;
    try {
      writeFileInside(path.dirname(this.stampFile), this.stampFile, `${JSON.stringify(record)}\n`, 'the knowledge files\' stamps');
    } catch (error) {
      // Only a cost: the next session reads the knowledge files again.
      this.say(`could not record the knowledge files' stamps: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
