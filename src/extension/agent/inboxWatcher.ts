import * as vscode from 'vscode';
import type { InboxOutcome } from '../../node/inbox';
import { inboxFolderOf, pendingInboxFiles } from '../../node/inboxFolder';
import { Debouncer, DisposableBase } from '../disposable';
import { lazily } from '../lazy';
import { SETTINGS_SECTION } from '../ids';
import type { Services } from '../services';
import { AGENT_SETTINGS, REVIEW_VIEW_ID } from './ids';

/** Waits this long after the last change, so a file still being written is not read half-way. */
const SETTLE_MS = 400;
// The validation and the ledger writes load with the first file that lands.
const inboxCode = lazily(() => Promise.all([import('../../core/inbox.js'), import('../../node/inbox.js')]));

/**
 * File events can be missed (a busy machine, a folder created after the watcher started) and
 * a file the database could not take (locked) must be retried: a cheap look at one folder
 * every so often catches both.
 */
const SWEEP_MS = 15_000;

/**
 * Ingests `.context-ledger/inbox/*.json` of each trusted workspace folder through the
 * same core code as the tools (src/core/inbox.ts): at start-up and whenever a file lands.
 * Never runs in an untrusted workspace: the files come from whatever ran there.
 */
export class InboxWatcher extends DisposableBase {
  private readonly perFolder = new Map<string, vscode.Disposable>();
  private readonly running = new Map<string, Promise<InboxOutcome[]>>();

  constructor(private readonly s: Services) {
    super();
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.sync()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.sync()));
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SETTINGS_SECTION}.${AGENT_SETTINGS.inboxEnabled}`)) this.sync();
      }),
    );
    this.register({ dispose: () => this.stopAll() });
    const sweep = setInterval(() => this.sweep(), SWEEP_MS);
    this.register({ dispose: () => clearInterval(sweep) });
    this.sync();
  }

  private enabled(folder: vscode.WorkspaceFolder): boolean {
    return (
      vscode.workspace.isTrusted &&
      folder.uri.scheme === 'file' &&
      vscode.workspace.getConfiguration(SETTINGS_SECTION, folder.uri).get<boolean>(AGENT_SETTINGS.inboxEnabled) !== false
    );
  }

  private sync(): void {
    const wanted = new Map(this.s.registry.folders().filter((f) => this.enabled(f)).map((f) => [f.uri.toString(), f]));
    for (const [key, watcher] of this.perFolder) {
      if (!wanted.has(key)) {
        watcher.dispose();
        this.perFolder.delete(key);
      }
    }
    for (const [key, folder] of wanted) {
      if (this.perFolder.has(key)) continue;
      const debounce = new Debouncer(SETTLE_MS, () => void this.ingest(folder));
      const fsWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.context-ledger/inbox/*.json'));
      this.perFolder.set(
        key,
        vscode.Disposable.from(fsWatcher, fsWatcher.onDidCreate(() => debounce.schedule()), fsWatcher.onDidChange(() => debounce.schedule()), debounce),
      );
      debounce.schedule();
    }
  }

  private sweep(): void {
    for (const folder of this.s.registry.folders()) {
      if (this.perFolder.has(folder.uri.toString()) && pendingInboxFiles(inboxFolderOf(folder.uri.fsPath)).length > 0) void this.ingest(folder);
    }
  }

  private stopAll(): void {
    for (const watcher of this.perFolder.values()) watcher.dispose();
    this.perFolder.clear();
  }

  /** Processes the folder's inbox now (one run at a time per folder; a run asked for meanwhile follows it). */
  ingest(folder: vscode.WorkspaceFolder): Promise<InboxOutcome[]> {
    if (!this.enabled(folder)) return Promise.resolve([]);
    const key = folder.uri.toString();
    const previous = this.running.get(key) ?? Promise.resolve([]);
    const next = previous.then(() => this.run(folder), () => this.run(folder));
    this.running.set(key, next);
    return next;
  }

  private async run(folder: vscode.WorkspaceFolder): Promise<InboxOutcome[]> {
    const inbox = inboxFolderOf(folder.uri.fsPath);
    // An empty inbox (the usual case) costs a listing, not loading the validation code.
    if (pendingInboxFiles(inbox).length === 0) return [];
    const [{ applyInboxFile }, { processInbox }] = await inboxCode();
    const ledger = this.s.registry.get(folder);
    const root = folder.uri.fsPath.replace(/\\/g, '/');
    const outcomes = await processInbox(inbox, (parsed, file) =>
      ledger.write((store) => applyInboxFile(store, parsed, { workspaceRoot: root, file }), 'artifacts'),
    );
    if (outcomes.length > 0) this.report(outcomes);
    return outcomes;
  }

  private report(outcomes: InboxOutcome[]): void {
    const created = outcomes.flatMap((o) => (o.status === 'ingested' ? o.created : []));
    for (const o of outcomes) {
      if (o.status === 'ingested') this.s.logger.info(`Inbox: ${o.file}: ${o.created.length} artifact(s)${o.ignoredFields.length ? `; ignored fields ${o.ignoredFields.join(', ')}` : ''}`);
      else this.s.logger.warn(`Inbox: ${o.file} ${o.status}: ${o.error}`);
    }
    if (created.length > 0) {
      this.s.artifactTree.refresh();
      const what = created.length === 1 ? `"${created[0]!.title}"` : `${created.length} artifacts`;
      void vscode.window.showInformationMessage(`Context Ledger: an agent's inbox file added ${what}, unreviewed.`, 'Review').then((pick) => {
        if (pick) void vscode.commands.executeCommand(`${REVIEW_VIEW_ID}.focus`);
      });
    }
    const rejected = outcomes.filter((o): o is Extract<InboxOutcome, { status: 'rejected' }> => o.status === 'rejected');
    if (rejected.length > 0) {
      const first = rejected[0]!;
      void vscode.window
        .showWarningMessage(`Context Ledger: inbox file ${first.file.split(/[\\/]/).pop()} was rejected: ${first.error}`, 'Open Error')
        .then((pick) => {
          if (pick) void vscode.window.showTextDocument(vscode.Uri.file(`${first.movedTo}.error`));
        });
    }
  }
}
