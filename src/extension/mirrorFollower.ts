import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ensureLedgerGitignore, isWorkspaceLedger, mirrorFolderOf } from '../node/ledgerFolder';
import { mirrorHasChanges, mirrorHasFiles } from '../node/mirrorState';
import { syncMirror } from '../node/mirrorSync';
import { Debouncer, DisposableBase } from './disposable';
import { withDelayedProgress } from './interop';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';

/** Edits come in bursts (a tree action, a pull writing many files): one sync after the burst. */
const DEBOUNCE_MS = 500;

/**
 * Keeps each workspace ledger and its Markdown mirror (`.context-ledger/artifacts/`, the
 * copy a team commits) in step without a command: a change in the ledger rewrites its
 * mirror file, a change of mirror files on disk (a pull, a checkout, a merge, a teammate's
 * edit) updates the ledger, and a clone with a mirror and no database gets its ledger at
 * activation. Both directions are one sync (src/node/mirrorSync.ts), which reads only the
 * files whose size or time changed. Trusted workspaces only: the mirror is workspace content
 * that becomes knowledge agents read, as an import does.
 */
export class MirrorFollower extends DisposableBase {
  private readonly pending = new Map<string, Debouncer>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** Folders whose sync is running: the ledger change it makes itself must not schedule another. */
  private readonly running = new Set<string>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      registry.onDidChange((change) => {
        // Only the mirror's side is followed here (a pull, a checkout, a teammate's edit). Writing the mirror after
        // every ledger change made the tree refresh under open quick inputs and dialogs (e2e); in VS Code the mirror is
        // written by Sync Markdown Mirror, and by every CLI command that changes artifacts.
        if (change.kind === 'reset') this.watch(change.folder);
      }),
    );
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()));
    this.register({ dispose: () => { for (const d of [...this.pending.values(), ...this.watchers.values()]) d.dispose(); } });
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

  /** One sync of `folder`, now; resolves when done (tests, and the first build). */
  async sync(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    const ledger = this.registry.get(folder);
    if (!isWorkspaceLedger(ledger.file) || this.running.has(key)) return;
    this.running.add(key);
    try {
      ensureLedgerGitignore(path.dirname(ledger.file));
      const report = await syncMirror({ dbFile: ledger.file, auto: true, write: (fn) => ledger.write(fn, 'artifacts') });
      const pulled = report.added.length + report.updated.length + report.archived.length;
      if (pulled > 0 || report.written.length > 0 || report.removed.length > 0) {
        this.logger.info(`Mirror of ${folder.name}: ${report.added.length} added, ${report.updated.length} updated, ${report.archived.length} archived from files; ${report.written.length} files written, ${report.removed.length} removed`);
      }
      for (const c of report.conflicts) this.logger.warn(`Mirror conflict ${c.path}: ${c.note}`);
      for (const p of report.problems) this.logger.warn(`Mirror file ${p.path} skipped: ${p.message}`);
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
