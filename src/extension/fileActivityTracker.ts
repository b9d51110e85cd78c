import * as vscode from 'vscode';
import type { FileActivity } from '../core/model';
import { type ActivityEvent, type ActivityKind, ActivityThrottle, mergeActivity } from './activePaths';
import type { ConfigService } from './config';
import { DisposableBase } from './disposable';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';
import { enabledGlobs, TrackingFilter } from './trackingFilter';
import { isWorkspaceFile, relativePathIn } from './workspaceUris';

const FLUSH_EVERY_MS = 5_000;
const EDIT_DEBOUNCE_MS = 1_500;
/** One open per file per minute, one edit burst per half minute; every save counts. */
const THROTTLE = { open: 60_000, edit: 30_000, save: 0 } as const;

/**
 * Feeds opens, edits and saves of workspace files into the ledger's file_activity table.
 * Events are throttled per file, kept in memory and written in batches (every few seconds
 * and on deactivate) through the locked LedgerFile.write; folders without a ledger are
 * only tracked in memory, so no database is created just by opening files.
 */
export class FileActivityTracker extends DisposableBase {
  private readonly pending = new Map<string, { folder: vscode.WorkspaceFolder; events: ActivityEvent[] }>();
  private readonly editTimers = new Map<string, NodeJS.Timeout>();
  private readonly throttle = new ActivityThrottle(THROTTLE);
  private filters = new Map<string, TrackingFilter>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly recorded = this.register(new vscode.EventEmitter<vscode.WorkspaceFolder>());
  /** Fires when an event was recorded in memory (before it is written). */
  readonly onDidRecord = this.recorded.event;

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly config: ConfigService,
    private readonly logger: Logger,
    /** Workspace-relative paths the extension writes itself (never tracked). */
    private readonly ownFiles: (folder: vscode.WorkspaceFolder) => string[],
  ) {
    super();
    this.register(vscode.window.onDidChangeActiveTextEditor((editor) => editor && this.record(editor.document.uri, 'open')));
    this.register(vscode.workspace.onDidChangeTextDocument((event) => event.contentChanges.length > 0 && this.editSoon(event.document.uri)));
    this.register(vscode.workspace.onDidSaveTextDocument((document) => this.record(document.uri, 'save')));
    this.register(
      config.onDidChange((change) => {
        if (change.filesExclude || change.affects('tracking.exclude') || change.affects('autoInject.path')) this.filters.clear();
      }),
    );
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.filters.clear()));
    this.register({ dispose: () => this.stopTimers() });
    const active = vscode.window.activeTextEditor;
    if (active) this.record(active.document.uri, 'open');
  }

  private filterFor(folder: vscode.WorkspaceFolder): TrackingFilter {
    const key = folder.uri.toString();
    let filter = this.filters.get(key);
    if (!filter) {
      const config = this.config.get(folder.uri);
      filter = new TrackingFilter({
        exclude: [...enabledGlobs(this.config.filesExclude(folder.uri)), ...config.tracking.exclude],
        ownFiles: this.ownFiles(folder),
      });
      this.filters.set(key, filter);
    }
    return filter;
  }

  /**
   * Whether `relPath` in `folder` is a file the user works on: not the ledger's own files,
   * not what the extension writes, not excluded. The files in play (the meter, every build)
   * pass through it, whichever source named them (editors, git, activity).
   */
  isWorkFile(folder: vscode.WorkspaceFolder, relPath: string): boolean {
    return this.filterFor(folder).accepts(folder.uri.scheme, relPath);
  }

  /** The folder and workspace-relative path of a trackable document, or undefined. */
  private locate(uri: vscode.Uri): { folder: vscode.WorkspaceFolder; relPath: string } | undefined {
    if (!isWorkspaceFile(uri)) return undefined;
    const folder = this.registry.folderOf(uri);
    if (!folder) return undefined;
    if (!this.config.get(folder.uri).tracking.enabled) return undefined;
    const relPath = relativePathIn(folder, uri);
    if (!this.filterFor(folder).accepts(uri.scheme, relPath)) return undefined;
    return { folder, relPath: relPath! };
  }

  private editSoon(uri: vscode.Uri): void {
    if (!isWorkspaceFile(uri)) return;
    const key = uri.toString();
    const timer = this.editTimers.get(key);
    if (timer) clearTimeout(timer);
    this.editTimers.set(
      key,
      setTimeout(() => {
        this.editTimers.delete(key);
        this.record(uri, 'edit');
      }, EDIT_DEBOUNCE_MS),
    );
  }

  private record(uri: vscode.Uri, kind: ActivityKind): void {
    if (this.isDisposed) return;
    const located = this.locate(uri);
    if (!located) return;
    const now = Date.now();
    if (!this.throttle.shouldRecord(`${located.folder.uri.toString()}|${located.relPath}`, kind, now)) return;
    const key = located.folder.uri.toString();
    const entry = this.pending.get(key) ?? { folder: located.folder, events: [] };
    entry.events.push({ path: located.relPath, kind, at: new Date(now).toISOString() });
    this.pending.set(key, entry);
    this.logger.trace(`activity: ${kind} ${located.relPath}`);
    this.recorded.fire(located.folder);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, FLUSH_EVERY_MS);
  }

  /** Events recorded but not yet written, for a folder. */
  pendingEvents(folder: vscode.WorkspaceFolder): readonly ActivityEvent[] {
    return this.pending.get(folder.uri.toString())?.events ?? [];
  }

  /** Stored activity merged with what is still pending. */
  withPending(folder: vscode.WorkspaceFolder, stored: readonly FileActivity[]): FileActivity[] {
    return mergeActivity(stored, this.pendingEvents(folder));
  }

  /** Writes pending events of folders that have a ledger; drops older events of folders without one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batches = [...this.pending.values()];
      this.pending.clear();
      for (const { folder, events } of batches) {
        const ledger = this.registry.get(folder);
        if (!ledger.exists()) {
          // Keep the last minutes in memory: they still shape the active paths.
          const cutoff = Date.now() - 30 * 60_000;
          const recent = events.filter((e) => Date.parse(e.at) >= cutoff);
          if (recent.length > 0) this.pending.set(folder.uri.toString(), { folder, events: recent.slice(-500) });
          continue;
        }
        try {
          await ledger.write((store) => {
            store.transaction(() => {
              for (const event of events) store.recordFileActivity(event.path, event.kind, event.at);
            });
          }, 'activity');
          this.logger.debug(`Recorded ${events.length} file activity event${events.length === 1 ? '' : 's'} in ${folder.name}`);
        } catch (error) {
          this.logger.error(`Recording file activity in ${folder.name}`, error);
        }
      }
    });
    return this.flushing;
  }

  private stopTimers(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const timer of this.editTimers.values()) clearTimeout(timer);
    this.editTimers.clear();
  }
}
