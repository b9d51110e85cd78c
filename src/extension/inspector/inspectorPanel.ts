import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { agentFilesView } from '../../core/inspector/agentFiles';
import { diffSnapshots, historyEntries, snapshotOfResult } from '../../core/inspector/history';
import { buildInspectorModel, type InspectorModel } from '../../core/inspector/model';
import { parseWebviewMessage, type HostMessage, type WebviewMessage } from '../../core/inspector/protocol';
import { ASSEMBLY_LOG_KEPT } from '../../core/store';
import { TokenCounter } from '../../core/tokens';
import type { BuiltContext } from '../contextService';
import { DisposableBase } from '../disposable';
import { showError } from '../errors';
import { INSPECTOR_VIEW_TYPE, SETTINGS, SETTINGS_SECTION } from '../ids';
import type { LiveState } from '../liveContext';
import type { Services } from '../services';
import type { AgentFileReader } from './agentFileReader';

/** The `minimum` of contextLedger.budget in package.json. */
const MIN_BUDGET_SETTING = 256;

/**
 * The Context Inspector: one webview panel that shows the live context (the same build
 * the status-bar meter shows, rebuilt by LiveContext; no second pipeline) and acts on it.
 */
export class InspectorPanel extends DisposableBase {
  private ready = false;
  private lastPosted: BuiltContext | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly s: Services,
    private readonly files: AgentFileReader,
    onDispose: () => void,
  ) {
    super();
    const media = vscode.Uri.joinPath(s.context.extensionUri, 'media');
    const dist = vscode.Uri.joinPath(s.context.extensionUri, 'dist', 'webview');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [media, dist] };
    panel.iconPath = vscode.Uri.joinPath(media, 'ledger.svg');
    panel.webview.html = this.html(panel.webview, media, dist);
    this.register(panel.onDidDispose(() => {
      onDispose();
      this.dispose();
    }));
    this.register(panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this.register(panel.onDidChangeViewState(() => panel.visible && void this.refresh()));
    this.register(s.live.onDidUpdate((state) => void this.show(state)));
    this.register(s.live.wantDetail());
    this.register(files.onDidChange(() => void this.refresh()));
    // A logged build (e.g. "Build agent context") adds to the history without changing the live context.
    this.register(s.registry.onDidChange((change) => change.kind === 'log' && panel.visible && void this.refresh()));
  }

  reveal(): void {
    this.panel.reveal(this.panel.viewColumn ?? vscode.ViewColumn.Active);
  }

  private html(webview: vscode.Webview, media: vscode.Uri, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'inspector.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'inspector.css'));
    // No inline script or style, nothing from outside the extension, no eval.
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Context Inspector</title>
</head>
<body>
<main id="root"></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  /** Rebuilds soon if nothing is built yet, else re-sends what is. */
  async refresh(): Promise<void> {
    if (this.s.live.state.kind === 'none') this.s.live.schedule(0);
    await this.show(this.s.live.state);
  }

  private async show(state: LiveState): Promise<void> {
    if (!this.ready || this.isDisposed) return;
    if (state.kind === 'error') {
      this.post({ type: 'empty', reason: `The context could not be built: ${state.message}` });
      return;
    }
    if (state.kind === 'none') {
      const folder = this.s.contexts.currentFolder();
      this.post({
        type: 'empty',
        reason: folder
          ? `"${folder.name}" has no ledger yet. Add an artifact from the Context Ledger view, or import one with the CLI (context-ledger import knowledge.jsonl).`
          : 'Open a folder to see the context Context Ledger builds for it.',
      });
      return;
    }
    try {
      const model = await this.modelFor(state.built);
      // A newer build may have arrived while this one was read.
      if (this.s.live.state.kind === 'built' && this.s.live.state.built !== state.built) return;
      this.lastPosted = state.built;
      this.post({ type: 'model', model });
    } catch (error) {
      this.s.logger.error('Preparing the Context Inspector', error);
      this.post({ type: 'empty', reason: `The inspector could not read the build: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  private async modelFor(built: BuiltContext): Promise<InspectorModel> {
    const { result, folder } = built;
    const current = snapshotOfResult(result);
    const known = new Set([...result.items.map((i) => i.id), ...result.excluded.map((e) => e.id)]);
    const { history, included, titles, pinned } = await this.s.registry.get(folder).read((store) => {
      const history = historyEntries(store.recentAssemblies(ASSEMBLY_LOG_KEPT));
      const titles: Record<string, string> = {};
      for (const entry of history) {
        for (const id of [...entry.snapshot.included.map((i) => i.id), ...entry.snapshot.excluded.map(([id]) => id)]) {
          if (known.has(id) || id in titles) continue;
          const title = store.getArtifact(id)?.title;
          if (title !== undefined) titles[id] = title;
        }
      }
      const included = result.items.map((item) => {
        const artifact = store.getArtifact(item.id);
        return { id: item.id, title: item.title, tokens: item.tokens, body: artifact?.body ?? '', source: artifact?.source ?? '' };
      });
      const pinned = new Set([...result.items, ...result.excluded].filter((r) => store.getArtifact(r.id)?.pinned === true).map((r) => r.id));
      return { history, included, titles, pinned };
    });
    const [files, counter] = await Promise.all([this.files.read(folder), TokenCounter.load(result.tokenizer)]);
    const agentFiles = agentFilesView({ files, activePaths: built.paths, ledgerTokens: result.tokensUsed, included, count: (text) => counter.count(text) });
    return buildInspectorModel({
      result,
      folderName: folder.name,
      builtAt: built.builtAt,
      trigger: built.trigger,
      paths: built.paths,
      history,
      current,
      titles,
      agentFiles,
      pinned,
    });
  }

  private async receive(raw: unknown): Promise<void> {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.s.logger.warn(`Context Inspector: ignored a malformed message from the webview: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
      return;
    }
    try {
      await this.handle(message);
    } catch (error) {
      if (error instanceof vscode.CancellationError) return;
      await showError(this.s.logger, 'Context Inspector', error);
    }
  }

  private folder(): vscode.WorkspaceFolder | undefined {
    return this.lastPosted?.folder ?? this.s.contexts.currentFolder();
  }

  private async handle(message: WebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        await this.refresh();
        return;
      case 'refresh':
        this.s.live.schedule(0);
        return;
      case 'openArtifact': {
        const folder = this.folder();
        if (!folder) return;
        const target = await this.s.registry.get(folder).read((store) => {
          const artifact = store.getArtifact(message.id);
          if (!artifact) return undefined;
          const latest = store.latestOfChain(artifact.chainId);
          return latest?.id === artifact.id ? this.s.documents.uriFor(folder, artifact) : this.s.documents.versionUriFor(folder, artifact);
        });
        if (!target) {
          this.post({ type: 'notice', text: `"${message.id}" is no longer in the ledger.` });
          return;
        }
        await vscode.window.showTextDocument(target, { preview: true, viewColumn: vscode.ViewColumn.Beside });
        return;
      }
      case 'openFile': {
        const folder = this.folder();
        if (!folder) return;
        await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, message.path), { preview: true, viewColumn: vscode.ViewColumn.Beside });
        return;
      }
      case 'pin': {
        const folder = this.folder();
        if (!folder) return;
        const after = await this.s.registry.get(folder).write((store) => store.setPinned(message.id, message.pinned), 'artifacts');
        this.s.artifactTree.refresh();
        this.post({ type: 'notice', text: message.pinned ? `Pinned "${after.title}": it is always in the context now.` : `Unpinned "${after.title}": it competes on its score again.` });
        return;
      }
      case 'feedback': {
        const folder = this.folder();
        if (!folder) return;
        await this.s.registry.get(folder).write((store) => store.recordFeedback(message.id, message.verdict), 'feedback');
        this.s.artifactTree.refresh();
        this.post({ type: 'notice', text: `Marked ${message.verdict === 'useful' ? 'useful' : 'not useful'}: it ranks ${message.verdict === 'useful' ? 'higher' : 'lower'} from now on.` });
        return;
      }
      case 'tryBudget': {
        const base = this.lastPosted;
        if (!base) return;
        const trial = await this.s.contexts.build(base.folder, { trigger: 'preview', log: false, budget: message.budget, now: base.builtAt });
        const titles: Record<string, string> = {};
        for (const r of [...base.result.items, ...base.result.excluded, ...trial.result.items, ...trial.result.excluded]) titles[r.id] = r.title;
        const diff = diffSnapshots(snapshotOfResult(base.result), snapshotOfResult(trial.result), titles);
        this.post({ type: 'trial', budget: message.budget, tokensUsed: trial.result.tokensUsed, diff });
        return;
      }
      case 'setBudget': {
        if (message.budget < MIN_BUDGET_SETTING) {
          this.post({ type: 'notice', text: `The budget setting must be at least ${MIN_BUDGET_SETTING} tokens.` });
          return;
        }
        const folder = this.folder();
        const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder?.uri);
        const where = config.inspect<number>(SETTINGS.budget);
        // Change the budget where it is set, so the new value is the one that takes effect.
        const target =
          where?.workspaceFolderValue !== undefined
            ? vscode.ConfigurationTarget.WorkspaceFolder
            : where?.workspaceValue !== undefined
              ? vscode.ConfigurationTarget.Workspace
              : vscode.ConfigurationTarget.Global;
        await config.update(SETTINGS.budget, message.budget, target);
        this.post({ type: 'notice', text: `The budget is now ${message.budget.toLocaleString('en-US')} tokens.` });
        return;
      }
    }
  }
}

/** Opens (or reveals) the one inspector panel, and restores it after a reload (./index.ts registers it as the panel's serializer). */
export class InspectorController extends DisposableBase implements vscode.WebviewPanelSerializer {
  private current: InspectorPanel | undefined;

  constructor(
    private readonly s: Services,
    private readonly files: AgentFileReader,
  ) {
    super();
  }

  open(): void {
    if (this.current) {
      this.current.reveal();
      void this.current.refresh();
      return;
    }
    const panel = vscode.window.createWebviewPanel(INSPECTOR_VIEW_TYPE, 'Context Inspector', vscode.ViewColumn.Active, {});
    this.adopt(panel);
  }

  deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    this.current?.panel.dispose();
    this.adopt(panel);
    return Promise.resolve();
  }

  private adopt(panel: vscode.WebviewPanel): void {
    const inspector = new InspectorPanel(panel, this.s, this.files, () => {
      if (this.current === inspector) this.current = undefined;
    });
    this.current = inspector;
  }

  override dispose(): void {
    this.current?.panel.dispose();
    super.dispose();
  }
}

