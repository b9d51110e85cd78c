import * as vscode from 'vscode';
import type { ConfigService } from './config';
import type { BuiltContext, ContextService } from './contextService';
import { Debouncer, DisposableBase } from './disposable';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';

export type LiveState =
  | { kind: 'none' }
  | { kind: 'built'; built: BuiltContext }
  | { kind: 'error'; folder: vscode.WorkspaceFolder; message: string };

const DEBOUNCE_MS = 300;

/**
 * The context the current editors would get, rebuilt in the background (debounced, never
 * on the typing path, without writing the assembly log) whenever the active editor, the
 * open editors, the task, the artifacts or the settings change. The status bar meter and
 * auto-inject both read it, so one build serves both.
 */
export class LiveContext extends DisposableBase {
  private readonly updated = this.register(new vscode.EventEmitter<LiveState>());
  readonly onDidUpdate = this.updated.event;
  private readonly debounce = this.register(new Debouncer(DEBOUNCE_MS, () => void this.rebuild()));
  private running = false;
  private again = false;
  private current: LiveState = { kind: 'none' };
  /** When only file activity changed, a rebuild is skipped if the active paths stayed the same. */
  private activityOnly = false;
  /** Open views that show excluded artifacts' costs; counting every body is slow on a big ledger's first build, so only while one is open. */
  private detailUsers = 0;
  private currentHasDetail = false;

  constructor(
    private readonly contexts: ContextService,
    private readonly registry: LedgerRegistry,
    config: ConfigService,
    private readonly logger: Logger,
  ) {
    super();
    const schedule = (): void => {
      this.activityOnly = false;
      this.debounce.schedule();
    };
    this.register(vscode.window.onDidChangeActiveTextEditor(schedule));
    this.register(vscode.window.onDidChangeVisibleTextEditors(schedule));
    this.register(vscode.window.tabGroups.onDidChangeTabs(schedule));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(schedule));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(schedule));
    this.register(config.onDidChange(schedule));
    this.register(
      registry.onDidChange((change) => {
        if (change.kind === 'log') return;
        if (change.kind === 'activity') {
          if (!this.debounce.pending) this.activityOnly = true;
          this.debounce.schedule(DEBOUNCE_MS * 3);
          return;
        }
        schedule();
      }),
    );
  }

  get state(): LiveState {
    return this.current;
  }

  /** While the returned disposable lives, builds also count what each excluded artifact would cost. */
  wantDetail(): vscode.Disposable {
    this.detailUsers++;
    if (this.current.kind === 'built' && !this.currentHasDetail) this.schedule(0);
    return new vscode.Disposable(() => {
      this.detailUsers--;
    });
  }

  /** Rebuild soon (e.g. after a command changed something the events do not cover). */
  schedule(delayMs = DEBOUNCE_MS): void {
    this.activityOnly = false;
    this.debounce.schedule(delayMs);
  }

  private async rebuild(): Promise<void> {
    if (this.isDisposed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    const activityOnly = this.activityOnly;
    this.activityOnly = false;
    try {
      const folder = this.contexts.currentFolder();
      if (!folder || !this.registry.get(folder).exists()) {
        this.publish({ kind: 'none' });
        return;
      }
      if (activityOnly && this.current.kind === 'built' && this.current.built.folder === folder) {
        const previous = this.current.built.paths;
        const paths = await this.registry.get(folder).read((store) => this.contexts.activePathsFor(folder, store));
        if (paths.length === previous.length && paths.every((p, i) => p === previous[i]) && (this.currentHasDetail || this.detailUsers === 0)) return;
      }
      const detail = this.detailUsers > 0;
      const built = await this.contexts.build(folder, { trigger: 'status-bar', log: false, ...(detail ? { excludedTokens: true } : {}) });
      this.currentHasDetail = detail;
      this.publish({ kind: 'built', built });
    } catch (error) {
      const folder = this.contexts.currentFolder();
      this.logger.error('Building the context in the background', error);
      this.publish(folder ? { kind: 'error', folder, message: error instanceof Error ? error.message : String(error) } : { kind: 'none' });
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.debounce.schedule();
      }
    }
  }

  private publish(state: LiveState): void {
    this.current = state;
    this.updated.fire(state);
  }
}
