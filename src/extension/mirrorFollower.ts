import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ensureLedgerGitignore, isWorkspaceLedger, mirrorFolderOf } from '../node/ledgerFolder';
import type { Artifact } from '../core/model';
import { fileKey, type MirrorConflict, mirrorConflicts, mirrorHasChanges, mirrorHasFiles, stateFileOf } from '../node/mirrorState';
import { mirrorChains, resolveMirrorConflict, syncMirror } from '../node/mirrorSync';
import { Debouncer, DisposableBase } from './disposable';
import { withDelayedProgress } from './progress';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';

/** Edits come in bursts (a tree action, a pull writing many files): one sync after the burst. */
const DEBOUNCE_MS = 500;

/**
 * Keeps each workspace ledger and its Markdown mirror (`.context-ledger/artifacts/`, the
 * copy a team commits) in step without a command: a change in the ledger rewrites the
 * mirror files of the chains it changed (debounced, only those), a change of mirror files
 * on disk (a pull, a checkout, a merge, a teammate's edit) updates the ledger, and a clone
 * with a mirror and no database gets its ledger at activation. The sync
 * (src/node/mirrorSync.ts) reads only the files whose size or time changed.
 *
 * Its own writes are recognised, not followed: the files it writes are recorded (size, time,
 * hash) before their watcher events arrive, so those events find nothing changed and neither
 * reload the ledger nor refresh a view (a refresh redraws the tree under an open quick input).
 * Trusted workspaces only: the mirror is workspace content that becomes knowledge agents
 * read, as an import does.
 */
export class MirrorFollower extends DisposableBase {
  private readonly pending = new Map<string, Debouncer>();
  private readonly pendingChains = new Map<string, { folder: vscode.WorkspaceFolder; chains: Set<string>; debounce: Debouncer }>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** Folders whose sync is running: the ledger change it makes itself must not be mirrored back. */
  private readonly running = new Set<string>();
  private readonly conflictsChanged = this.register(new vscode.EventEmitter<vscode.WorkspaceFolder>());
  /** Fires when a folder's list of chains in conflict may have changed (after a sync or a resolve). */
  readonly onDidChangeConflicts = this.conflictsChanged.event;
  private readonly conflictsByFolder = new Map<string, { stamp: string | undefined; conflicts: ReadonlyMap<string, MirrorConflict> }>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      registry.onDidChange((change) => {
        if (change.kind === 'reset') {
          this.conflictsByFolder.delete(change.folder.uri.toString());
          this.watch(change.folder);
        }
        if (change.chains && !this.running.has(change.folder.uri.toString())) this.mirrorSoon(change.folder, change.chains);
      }),
    );
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()));
    this.register({
      dispose: () => {
        for (const d of [...this.pending.values(), ...this.watchers.values(), ...[...this.pendingChains.values()].map((p) => p.debounce)]) d.dispose();
      },
    });
  }

  /** The chains of `folder` in conflict, by chain id, as the last sync or resolve left them. */
  conflicts(folder: vscode.WorkspaceFolder): ReadonlyMap<string, MirrorConflict> {
    const key = folder.uri.toString();
    const file = this.registry.databaseFile(folder);
    // Re-read when the state file changed (a sync by hand, the CLI): one stat per call, the JSON only then.
    const stamp = fileKey(stateFileOf(file));
    let known = this.conflictsByFolder.get(key);
    if (!known || known.stamp !== stamp) {
      known = { stamp, conflicts: new Map(isWorkspaceLedger(file) && stamp ? mirrorConflicts(file).map((c) => [c.chainId, c]) : []) };
      this.conflictsByFolder.set(key, known);
    }
    return known.conflicts;
  }

  /** Keeps one side of a chain in conflict (`context-ledger resolve` does the same, through the same function). */
  async resolve(folder: vscode.WorkspaceFolder, chainId: string, keep: 'mine' | 'theirs'): Promise<Artifact> {
    const ledger = this.registry.get(folder);
    try {
      return await resolveMirrorConflict({ dbFile: ledger.file, chainId, keep, write: (fn) => ledger.write(fn, 'artifacts') });
    } finally {
      this.conflictsByFolder.delete(folder.uri.toString());
      this.conflictsChanged.fire(folder);
    }
  }

  /** Watches every folder and catches up with what changed while the editor was closed. */
  start(): void {
    if (!vscode.workspace.isTrusted) return;
    for (const folder of this.registry.folders()) {
      this.watch(folder);
      const file = this.registry.databaseFile(folder);
      if (!isWorkspaceLedger(file)) continue;
      const fresh = !fs.existsSync(file) && mirrorHasFiles(file);
      if (fresh) void this.buildFromMirror(folder);
      else if (fs.existsSync(file) && mirrorHasChanges(file)) this.schedule(folder, 0);
    }
  }

  private watch(folder: vscode.WorkspaceFolder): void {
    const key = folder.uri.toString();
    this.watchers.get(key)?.dispose();
    const file = this.registry.databaseFile(folder);
    if (!vscode.workspace.isTrusted || !isWorkspaceLedger(file)) return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(mirrorFolderOf(file)), '**/*.md'));
    const changed = (): void => this.schedule(folder);
    this.watchers.set(key, vscode.Disposable.from(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed)));
  }

  /** Collects the chains a burst of ledger writes changed, and writes their files once after it. */
  private mirrorSoon(folder: vscode.WorkspaceFolder, chains: readonly string[]): void {
    if (!vscode.workspace.isTrusted || !isWorkspaceLedger(this.registry.databaseFile(folder))) return;
    const key = folder.uri.toString();
    let entry = this.pendingChains.get(key);
    if (!entry) {
      const created = { folder, chains: new Set<string>(), debounce: new Debouncer(DEBOUNCE_MS, () => void this.writeChains(created)) };
      entry = created;
      this.pendingChains.set(key, entry);
    }
    for (const chain of chains) entry.chains.add(chain);
    entry.debounce.schedule();
  }

  private async writeChains(entry: { folder: vscode.WorkspaceFolder; chains: Set<string> }): Promise<void> {
    const chainIds = [...entry.chains];
    entry.chains.clear();
    const ledger = this.registry.get(entry.folder);
    try {
      const report = await mirrorChains({ dbFile: ledger.file, chainIds, write: (fn) => ledger.locked(fn) });
      if (report.needsSync || report.deferred.length > 0) await this.sync(entry.folder, true);
    } catch (error) {
      this.logger.error(`Writing the Markdown mirror of ${entry.folder.name}`, error);
    }
  }

  private schedule(folder: vscode.WorkspaceFolder, delayMs = DEBOUNCE_MS): void {
    if (!vscode.workspace.isTrusted) return;
    const key = folder.uri.toString();
    let debounce = this.pending.get(key);
    if (!debounce) {
      debounce = new Debouncer(DEBOUNCE_MS, () => void this.sync(folder));
      this.pending.set(key, debounce);
    }
    debounce.schedule(delayMs);
  }

  private async buildFromMirror(folder: vscode.WorkspaceFolder): Promise<void> {
    await withDelayedProgress(`building the ledger of ${folder.name} from its Markdown mirror…`, this.sync(folder));
  }

  /** A ledger whose mirror no sync has recorded yet (the state file is missing): its first sync writes every file. */
  private needsFirstSync(dbFile: string): boolean {
    return !fs.existsSync(stateFileOf(dbFile));
  }

  /** One sync of `folder`, now; resolves when done (tests, and the first build). */
  async sync(folder: vscode.WorkspaceFolder, force = false): Promise<void> {
    const key = folder.uri.toString();
    const ledger = this.registry.get(folder);
    if (!isWorkspaceLedger(ledger.file) || this.running.has(key)) return;
    // Our own file writes were recorded as they were made: their watcher events find nothing to do.
    if (!force && ledger.exists() && !mirrorHasChanges(ledger.file) && !this.needsFirstSync(ledger.file)) return;
    this.running.add(key);
    try {
      ensureLedgerGitignore(path.dirname(ledger.file));
      const hadConflicts = this.conflicts(folder).size > 0;
      const report = await syncMirror({ dbFile: ledger.file, auto: true, write: (fn) => ledger.write(fn, 'artifacts') });
      const pulled = report.added.length + report.updated.length + report.archived.length;
      if (pulled > 0 || report.written.length > 0 || report.removed.length > 0) {
        this.logger.info(`Mirror of ${folder.name}: ${report.added.length} added, ${report.updated.length} updated, ${report.archived.length} archived from files; ${report.written.length} files written, ${report.removed.length} removed`);
      }
      for (const c of report.conflicts) this.logger.warn(`Mirror conflict ${c.path}: ${c.note}`);
      for (const p of report.problems) this.logger.warn(`Mirror file ${p.path} skipped: ${p.message}`);
      this.conflictsByFolder.delete(key);
      if (hadConflicts || this.conflicts(folder).size > 0) this.conflictsChanged.fire(folder);
      if (report.conflicts.length > 0) {
        void vscode.window.showWarningMessage(
          `Context Ledger: ${report.conflicts.length} artifact${report.conflicts.length === 1 ? ' is' : 's are'} in conflict after a change from git — nothing was lost. Pick a side with Resolve… in the Artifacts view.`,
        );
      }
    } catch (error) {
      this.logger.error(`Syncing the Markdown mirror of ${folder.name}`, error);
    } finally {
      this.running.delete(key);
    }
  }
}
