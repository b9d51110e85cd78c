import * as vscode from 'vscode';
import { isWorkspaceLedger, mirrorFolderOf } from '../node/ledgerFolder';
import type { Artifact } from '../core/model';
import { type MirrorConflict, mirrorHasFiles } from '../node/artifactFolder';
import { Debouncer, DisposableBase } from './disposable';
import { withDelayedProgress } from './progress';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';

/** Edits come in bursts (a pull writing many files): one look after the burst. */
const DEBOUNCE_MS = 500;

/**
 * Tells each workspace ledger when its artifact files (`.context-ledger/artifacts/`, the
 * copy a team commits) changed on disk — a pull, a checkout, a merge, a teammate's edit —
 * so the views show it without waiting for the next read. The work is the ledger session's
 * (src/node/session.ts): it imports what changed (by size and time, then hash) before
 * every read and write anyway, and writes the files of the chains a write changed.
 *
 * Its own writes are recognised, not followed: the files a write makes are stamped in the
 * index (size, time, hash) as they are written, so their watcher events find nothing changed
 * and refresh no view (a refresh redraws the tree under an open quick input). Trusted
 * workspaces only: the artifact files are workspace content that becomes knowledge
 * agents read, as an import does.
 */
export class MirrorFollower extends DisposableBase {
  private readonly pending = new Map<string, Debouncer>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly conflictsChanged = this.register(new vscode.EventEmitter<vscode.WorkspaceFolder>());
  /** Fires when a folder's list of files in conflict (git's markers) may have changed (after a change on disk or a resolve). */
  readonly onDidChangeConflicts = this.conflictsChanged.event;
  /** The files with git's conflict markers, by chain, as the last look found them. */
  private readonly conflictsByFolder = new Map<string, ReadonlyMap<string, MirrorConflict>>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      registry.onDidChange((change) => {
        if (change.kind === 'reset') this.watch(change.folder);
        if (change.kind === 'reset' || change.kind === 'external' || change.kind === 'artifacts') void this.conflictsMayHaveChanged(change.folder);
      }),
    );
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()));
    this.register({
      dispose: () => {
        for (const d of [...this.pending.values(), ...this.watchers.values()]) d.dispose();
      },
    });
  }

  /** The chains of `folder` whose files hold git's conflict markers, by chain id, as last looked at. */
  conflicts(folder: vscode.WorkspaceFolder): ReadonlyMap<string, MirrorConflict> {
    return this.conflictsByFolder.get(folder.uri.toString()) ?? new Map();
  }

  private async conflictsMayHaveChanged(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    const before = this.conflictsByFolder.get(key)?.size ?? 0;
    let found: MirrorConflict[] = [];
    try {
      if (vscode.workspace.isTrusted && isWorkspaceLedger(this.registry.databaseFile(folder))) found = await this.registry.get(folder).conflicts();
    } catch (error) {
      this.logger.error(`Looking for conflicts in the artifact files of ${folder.name}`, error);
    }
    const after = new Map(found.map((c) => [c.chainId, c]));
    this.conflictsByFolder.set(key, after);
    if (before > 0 || after.size > 0) this.conflictsChanged.fire(folder);
    if (after.size > before) {
      void vscode.window.showWarningMessage(
        `Context Ledger: ${after.size} artifact file${after.size === 1 ? ' has' : 's have'} git conflict markers — nothing was lost. Pick a side with Resolve… in the Artifacts view.`,
      );
    }
  }

  /** Keeps one side of a chain in conflict (`context-ledger resolve` does the same, through the same session call). */
  async resolve(folder: vscode.WorkspaceFolder, chainId: string, keep: 'mine' | 'theirs'): Promise<Artifact> {
    try {
      return await this.registry.get(folder).resolveConflict(chainId, keep);
    } finally {
      await this.conflictsMayHaveChanged(folder);
    }
  }

  /** Watches every folder and catches up with what changed while the editor was closed. */
  start(): void {
    if (!vscode.workspace.isTrusted) return;
    for (const folder of this.registry.folders()) {
      this.watch(folder);
      const ledger = this.registry.get(folder);
      if (!isWorkspaceLedger(ledger.file)) continue;
      if (!ledger.exists() && mirrorHasFiles(ledger.file)) void withDelayedProgress(`building the ledger of ${folder.name} from its Markdown mirror…`, ledger.fileChanged());
      else if (ledger.exists()) this.schedule(folder, 0);
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

  /** Brings `folder`'s ledger up to date with its files now; resolves when done (tests, the first build). */
  async sync(folder: vscode.WorkspaceFolder): Promise<void> {
    const ledger = this.registry.get(folder);
    if (!isWorkspaceLedger(ledger.file)) return;
    try {
      await ledger.fileChanged();
      // A file git left with conflict markers changes nothing in the ledger, yet is a conflict to show.
      await this.conflictsMayHaveChanged(folder);
    } catch (error) {
      this.logger.error(`Following the Markdown mirror of ${folder.name}`, error);
    }
  }
}
