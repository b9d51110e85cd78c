import * as vscode from 'vscode';
import { KNOWLEDGE_FILE_GLOB } from '../core/formats/knowledgeGlob';
import type { FormatReport } from '../node/folderImport';
import { Debouncer, DisposableBase } from './disposable';
import type { ConfigService } from './config';
import { lazily } from './lazy';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';
import { relativePathIn } from './workspaceUris';

/**
 * A save is one event, a `git pull` or a branch switch a burst of them: one refresh after
 * the burst, soon enough that the tree and the next build show the new text within seconds.
 */
const DEBOUNCE_MS = 700;
/** The catch-up at start waits until activation and the first build are done. */
const CATCH_UP_DELAY_MS = 3000;

/** The parsers of every knowledge format load with the first refresh, not at activation. */
const refreshCode = lazily(() => Promise.all([import('../node/folderImport.js'), import('../node/knowledgeRefresh.js')]));

/**
 * Keeps the artifacts imported from the workspace's knowledge files (AGENTS.md, CLAUDE.md,
 * rule files, ADRs) in step with those files while the editor is open: a change on disk
 * refreshes them through the same incremental import as `import-folder`
 * (src/node/knowledgeRefresh.ts), so what a person did in the ledger — a pin, an archive, a
 * review, an edit — is never undone. Only a ledger that imported something is followed, and
 * only the formats it imported: importing is the user's choice, refreshing is not.
 * Trusted workspaces only, as for an import: workspace files become knowledge agents read.
 * `contextLedger.import.watch` turns it off.
 */
export class KnowledgeWatcher extends DisposableBase {
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** Per folder: the changed workspace-relative paths of the burst (undefined = everything followed). */
  private readonly pending = new Map<string, { debounce: Debouncer; changed: Set<string> | undefined }>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly config: ConfigService,
    private readonly logger: Logger,
  ) {
    super();
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.start()));
    this.register(
      config.onDidChange((change) => {
        if (this.registry.folders().some((f) => change.affects('import.watch', f.uri) || change.affects('databasePath', f.uri))) this.start();
      }),
    );
    this.register({
      dispose: () => {
        for (const d of this.watchers.values()) d.dispose();
        for (const p of this.pending.values()) p.debounce.dispose();
      },
    });
  }

  /** Watches every folder that allows it and catches up with what changed while the editor was closed. */
  start(): void {
    for (const d of this.watchers.values()) d.dispose();
    this.watchers.clear();
    if (!vscode.workspace.isTrusted) return;
    for (const folder of this.registry.folders()) {
      if (!this.enabled(folder)) continue;
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, KNOWLEDGE_FILE_GLOB));
      const changed = (uri: vscode.Uri): void => this.changed(folder, uri);
      this.watchers.set(folder.uri.toString(), vscode.Disposable.from(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed)));
      this.schedule(folder, undefined, CATCH_UP_DELAY_MS);
    }
  }

  private enabled(folder: vscode.WorkspaceFolder): boolean {
    return vscode.workspace.isTrusted && this.config.get(folder.uri).importWatch;
  }

  private changed(folder: vscode.WorkspaceFolder, uri: vscode.Uri): void {
    const relative = relativePathIn(folder, uri);
    // Never a path outside the folder (a watcher event through a link).
    if (relative !== undefined) this.schedule(folder, relative);
  }

  private schedule(folder: vscode.WorkspaceFolder, relative: string | undefined, delayMs = DEBOUNCE_MS): void {
    const key = folder.uri.toString();
    let entry = this.pending.get(key);
    if (!entry) {
      const created: { debounce: Debouncer; changed: Set<string> | undefined } = {
        changed: new Set(),
        debounce: new Debouncer(DEBOUNCE_MS, () => {
          const changed = created.changed;
          created.changed = new Set();
          void this.refresh(folder, changed ? [...changed] : undefined);
        }),
      };
      entry = created;
      this.pending.set(key, entry);
    }
    if (relative === undefined) entry.changed = undefined;
    else entry.changed?.add(relative);
    entry.debounce.schedule(delayMs);
  }

  /**
   * Refreshes `folder`'s imported artifacts from its files now (`changed`: the paths that
   * changed; undefined: every followed format). Resolves when done; refreshes run one at a
   * time per folder, a later one after the running one.
   */
  refresh(folder: vscode.WorkspaceFolder, changed?: readonly string[]): Promise<void> {
    const key = folder.uri.toString();
    const next = (this.running.get(key) ?? Promise.resolve()).then(() => this.refreshNow(folder, changed));
    this.running.set(key, next);
    return next;
  }

  private async refreshNow(folder: vscode.WorkspaceFolder, changed?: readonly string[]): Promise<void> {
    if (this.isDisposed || !this.enabled(folder)) return;
    const ledger = this.registry.get(folder);
    // No ledger yet: nothing was imported, so there is nothing to follow.
    if (!ledger.exists()) return;
    const started = Date.now();
    try {
      const [{ applyImport, previewImport }, { followedSources, formatsTouched, parseRefresh }] = await refreshCode();
      const followed = await ledger.read((store) => followedSources(store.latestArtifacts()));
      const formats = formatsTouched(followed, changed);
      if (formats.length === 0) return;
      const root = folder.uri.fsPath;
      const parsed = parseRefresh(root, followed, formats);
      // A dry run first, as Import Knowledge does: a file saved unchanged, or a checkout that
      // leaves the knowledge as it was, writes nothing (a write would refresh every view).
      const planned = await ledger.read((store) => previewImport(store, parsed));
      if (!changes(planned)) return;
      const applied = await ledger.write((store) => applyImport(store, parsed), 'artifacts');
      this.report(folder, applied, Date.now() - started);
    } catch (error) {
      this.logger.error(`Refreshing the knowledge files of ${folder.name}`, error);
    }
  }

  private report(folder: vscode.WorkspaceFolder, reports: readonly FormatReport[], ms: number): void {
    const count = (pick: (r: FormatReport) => readonly string[]): number => reports.reduce((n, r) => n + pick(r).length, 0);
    this.logger.info(
      `Knowledge files of ${folder.name} changed: ${count((r) => r.added)} added, ${count((r) => r.updated)} updated, ` +
        `${count((r) => r.removed)} archived (gone from their file), ${count((r) => r.detached)} detached, in ${ms} ms`,
    );
    for (const r of reports) for (const c of r.changes) this.logger.info(`  ${c.outcome} ${c.title} (${c.file}): ${c.reason}`);
    const detached = reports.flatMap((r) => r.changes.filter((c) => c.outcome === 'detached'));
    if (detached.length === 0) return;
    // Never in silence: the person's edit is kept, and they learn it no longer follows its file.
    const first = detached[0]!;
    const which = detached.length === 1 ? `"${first.title}" was edited in the ledger and ${first.file} changed` : `${detached.length} artifacts were edited in the ledger and their files changed`;
    void vscode.window
      .showWarningMessage(`Context Ledger: ${which} — the ledger's version is kept and no longer follows the file.`, 'Show Log')
      .then((pick) => pick && this.logger.show());
  }
}

function changes(reports: readonly FormatReport[]): boolean {
  return reports.some((r) => r.changes.length > 0 || r.tasksAdded.length > 0);
}
