import * as vscode from 'vscode';
import { ARTIFACT_TYPES, type Artifact, artifactUrn } from '../core/model';
import type { LedgerStore } from '../core/store';
import { registerAgentFeatures } from './agent';
import { TYPE_DESCRIPTIONS, TYPE_ICONS, TYPE_LABELS } from './artifactTreeModel';
import { AutoInjector } from './autoInjector';
import { MirrorFollower } from './mirrorFollower';
import { formatTokens } from './budgetMeter';
import { BudgetStatusBar } from './budgetStatusBar';
import { ConfigService } from './config';
import { type BuiltContext, ContextService } from './contextService';
import { registerArtifactCommands } from './commands/artifactCommands';
import { registerLedgerCommands } from './commands/ledgerCommands';
import { registerTaskCommands } from './commands/taskCommands';
import { guarded } from './errors';
import { ExplainDocuments } from './explainDocuments';
import { FileActivityTracker } from './fileActivityTracker';
import { GitTracker } from './git';
import { COMMANDS, CONTEXT_KEYS } from './ids';
import { registerInspector } from './inspector';
import { registerInteropFeatures } from './interop';
import { INTEROP_COMMANDS } from './interop/ids';
import { LedgerDocumentProvider } from './ledgerDocuments';
import { type LedgerChangeKind, LedgerRegistry } from './ledgers';
import { LiveContext } from './liveContext';
import { Logger } from './logger';
import type { Services } from './services';
import { type ArtifactTreeNode, ArtifactTreeProvider } from './views/artifactTree';
import { TaskTreeProvider } from './views/taskView';
import { TrackedFilesProvider } from './views/trackedFilesView';
import { TerminalFailures } from './sources/terminalLogs';

/**
 * Builds the services (cheap: the database and the tokenizer load lazily, on first use),
 * registers the commands and views, then hands over to the agent and interop features.
 */
export function activate(context: vscode.ExtensionContext): Services {
  const started = performance.now();
  const own = <T extends vscode.Disposable>(d: T): T => {
    context.subscriptions.push(d);
    return d;
  };
  const logger = own(new Logger());
  const config = own(new ConfigService());
  const registry = own(new LedgerRegistry(config, logger));
  // The tracker must never track the file auto-inject writes; the injector is built later.
  const late: { autoInject?: AutoInjector } = {};
  const tracker = own(
    new FileActivityTracker(registry, config, logger, (folder) => {
      const rel = late.autoInject?.relativePath(folder);
      return rel ? [rel] : [];
    }),
  );
  const git = own(new GitTracker(registry, logger, context.workspaceState));
  const terminals = own(new TerminalFailures(logger));
  const contexts = new ContextService(registry, config, tracker, logger, git, terminals);
  const live = own(new LiveContext(contexts, registry, config, logger));
  const documents = own(new LedgerDocumentProvider(registry, logger));
  const explain = own(new ExplainDocuments());
  const autoInject = own(new AutoInjector(live, registry, config, logger, context.globalState));
  late.autoInject = autoInject;
  const artifactTree = own(new ArtifactTreeProvider(registry, config, logger, git));
  const taskTree = own(new TaskTreeProvider(registry, logger));
  const filesTree = own(new TrackedFilesProvider(registry, config, tracker, logger));
  own(new BudgetStatusBar(live, config));

  own(git.onDidChange(() => live.schedule()));
  // A command that just failed is new evidence for the meter and the auto-inject file.
  own(terminals.onDidRecordFailure(() => live.schedule()));
  const mirror = own(new MirrorFollower(registry, logger));

  const services: Services = { context, logger, config, registry, tracker, git, contexts, live, documents, explain, autoInject, artifactTree, taskTree, filesTree };

  registerCommands(context, services);
  updateContextKeys(registry);
  own(registry.onDidChange(() => updateContextKeys(registry)));
  own({ dispose: () => void tracker.flush() });

  registerAgentFeatures(context, services);
  registerInteropFeatures(context, services);
  registerInspector(context, services);

  mirror.start();
  live.schedule(0);
  logger.info(`Activated in ${(performance.now() - started).toFixed(1)} ms`);
  return services;
}

export function deactivate(): void {}

function updateContextKeys(registry: LedgerRegistry): void {
  void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.hasLedger, registry.foldersWithLedger().length > 0);
  void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.multiRoot, registry.folders().length > 1);
}

function registerCommands(context: vscode.ExtensionContext, s: Services): void {
  const register = (id: string, what: string, fn: (...args: never[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(s.logger, what, fn as (...args: unknown[]) => unknown)));
  };

  const requireFolder = (): vscode.WorkspaceFolder => {
    const folder = s.contexts.currentFolder();
    if (!folder) throw new vscode.CancellationError();
    return folder;
  };

  register(COMMANDS.buildContext, 'Building the agent context', async () => {
    const folder = s.contexts.currentFolder();
    if (!folder) {
      void vscode.window.showWarningMessage('Context Ledger needs an open folder to build context for.');
      return;
    }
    const built = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Context Ledger: building context…' },
      () => s.contexts.build(folder, { trigger: 'command', log: true }),
    );
    if (built.result.candidates === 0) {
      // A first build on a new workspace: "0 artifacts" alone would read as a fault.
      const add = 'Add Artifact';
      const importKnowledge = 'Import Knowledge…';
      const message = `Context Ledger: the ledger of ${folder.name} holds no knowledge yet, so there is no context to copy. Add what the team knows, or import the rules and decision records it keeps.`;
      void vscode.window.showInformationMessage(message, add, importKnowledge).then((pick) => {
        if (pick === add) void vscode.commands.executeCommand(COMMANDS.addArtifact);
        if (pick === importKnowledge) void vscode.commands.executeCommand(INTEROP_COMMANDS.importKnowledge);
      });
      return;
    }
    const markdown = built.result.text;
    await vscode.env.clipboard.writeText(markdown);
    const where = (await sendToChat(markdown)) ? 'put it in the chat' : (await s.explain.showContext(built), 'opened it beside');
    const message = `Context Ledger: copied the context (${usage(built)}, ${built.result.items.length} artifacts) and ${where}.`;
    void vscode.window.showInformationMessage(message, 'Show details').then((pick) => {
      if (pick) void vscode.commands.executeCommand(COMMANDS.openInspector);
    });
  });

  register(COMMANDS.previewContext, 'Previewing the agent context', async () => {
    const folder = requireFolder();
    const built = await s.contexts.build(folder, { trigger: 'preview', log: false });
    await s.explain.showContext(built);
  });

  register(COMMANDS.showDetails, 'Showing the context details', async () => {
    const folder = requireFolder();
    const built = s.contexts.lastBuilt(folder) ?? (await s.contexts.build(folder, { trigger: 'preview', log: false }));
    await s.explain.show(built);
  });

  register(COMMANDS.openArtifact, 'Opening the artifact', async (node?: ArtifactTreeNode) => {
    if (!node || (node.kind !== 'artifact' && node.kind !== 'version')) return;
    const uri = node.kind === 'version' ? s.documents.versionUriFor(node.folder, node.artifact) : s.documents.uriFor(node.folder, node.artifact);
    await vscode.window.showTextDocument(uri, { preview: true });
  });

  register(COMMANDS.copyUrn, 'Copying the URN', async (node?: ArtifactTreeNode) => {
    if (!node || (node.kind !== 'artifact' && node.kind !== 'version')) return;
    const urn = artifactUrn(node.artifact.id);
    await vscode.env.clipboard.writeText(urn);
    void vscode.window.setStatusBarMessage(`Copied ${urn}`, 3000);
  });

  /** The latest-version artifact node a tree item command was invoked on (older versions are not acted on). */
  const artifactNode = (node?: ArtifactTreeNode): Extract<ArtifactTreeNode, { kind: 'artifact' }> | undefined =>
    node?.kind === 'artifact' ? node : undefined;

  /** Writes through the folder's ledger (locked, atomic) and refreshes the tree. */
  const writeFor = async <T>(node: Extract<ArtifactTreeNode, { kind: 'artifact' }>, kind: LedgerChangeKind, fn: (store: LedgerStore, artifact: Artifact) => T): Promise<T> => {
    const result = await s.registry.get(node.folder).write((store) => fn(store, node.artifact), kind);
    s.artifactTree.refresh();
    return result;
  };

  const setPinned = (pinned: boolean) => async (arg?: ArtifactTreeNode) => {
    const node = artifactNode(arg);
    if (!node) return;
    const after = await writeFor(node, 'artifacts', (store, a) => store.setPinned(a.id, pinned));
    vscode.window.setStatusBarMessage(`Context Ledger: ${pinned ? 'pinned' : 'unpinned'} "${after.title}"`, 3000);
  };
  register(COMMANDS.pin, 'Pinning the artifact', setPinned(true));
  register(COMMANDS.unpin, 'Unpinning the artifact', setPinned(false));

  register(COMMANDS.archive, 'Archiving the artifact', async (arg?: ArtifactTreeNode) => {
    const node = artifactNode(arg);
    if (!node) return;
    const after = await writeFor(node, 'artifacts', (store, a) => store.archive(a.id));
    vscode.window.setStatusBarMessage(`Context Ledger: archived "${after.title}"`, 3000);
  });

  register(COMMANDS.deleteArtifact, 'Deleting the artifact', async (arg?: ArtifactTreeNode) => {
    const node = artifactNode(arg);
    if (!node) return;
    const a = node.artifact;
    const versions = a.version > 1 ? ` and all ${a.version} of its versions` : '';
    const pick = await vscode.window.showWarningMessage(
      `Delete "${a.title}"${versions}?`,
      { modal: true, detail: `The ${TYPE_LABELS[a.type].one.toLowerCase()} is removed from the ledger for good. This cannot be undone; archive it instead to keep it out of the context.` },
      'Delete',
    );
    if (pick !== 'Delete') return;
    await writeFor(node, 'artifacts', (store, artifact) => store.deleteArtifact(artifact.id));
    vscode.window.setStatusBarMessage(`Context Ledger: deleted "${a.title}"`, 3000);
  });

  const feedback = (verdict: 'useful' | 'not_useful') => async (arg?: ArtifactTreeNode) => {
    const node = artifactNode(arg);
    if (!node) return;
    await writeFor(node, 'feedback', (store, a) => store.recordFeedback(a.id, verdict));
    vscode.window.setStatusBarMessage(`Context Ledger: marked "${node.artifact.title}" ${verdict === 'useful' ? 'useful' : 'not useful'}`, 3000);
  };
  register(COMMANDS.markUseful, 'Recording feedback', feedback('useful'));
  register(COMMANDS.markNotUseful, 'Recording feedback', feedback('not_useful'));

  register(COMMANDS.addArtifact, 'Adding an artifact', async (arg?: ArtifactTreeNode) => {
    const folder = arg && 'folder' in arg ? arg.folder : requireFolder();
    const type = await vscode.window.showQuickPick(
      ARTIFACT_TYPES.map((t) => ({ label: TYPE_LABELS[t].one, description: TYPE_DESCRIPTIONS[t], iconPath: new vscode.ThemeIcon(TYPE_ICONS[t]), type: t })),
      { title: 'Context Ledger: add artifact', placeHolder: 'What kind of artifact?' },
    );
    if (!type) return;
    const title = await vscode.window.showInputBox({
      title: `Context Ledger: add ${TYPE_LABELS[type.type].one.toLowerCase()}`,
      prompt: 'A short title',
      validateInput: (value) => (value.trim() ? undefined : 'The title cannot be empty.'),
    });
    if (title === undefined) return;
    // A draft document: the first save adds it to the ledger (through the registry write path).
    const uri = s.documents.draftUri(folder, { title: title.trim(), type: type.type, scope: 'global', paths: [], tags: [], taskId: null, summary: null, body: '' });
    await vscode.window.showTextDocument(uri, { preview: false });
  });

  register(COMMANDS.refresh, 'Refreshing', async () => {
    await Promise.all(s.registry.folders().map((folder) => s.git.refresh(folder)));
    s.artifactTree.refresh();
    s.taskTree.refresh();
    s.filesTree.refresh();
    s.live.schedule(0);
  });

  register(COMMANDS.showLog, 'Showing the log', () => s.logger.show());

  registerArtifactCommands(register, s);
  registerTaskCommands(register, s);
  registerLedgerCommands(register, s);
}

function usage(built: BuiltContext): string {
  const { tokensUsed, budget, tokenizer } = built.result;
  return `${tokensUsed} of ${budget} tokens (${formatTokens(tokensUsed)}/${formatTokens(budget)}, ${tokenizer})`;
}

/** Puts the context into the chat panel when there is one (feature-detected); false when there is none. */
async function sendToChat(markdown: string): Promise<boolean> {
  const commands = await vscode.commands.getCommands(true);
  if (!commands.includes('workbench.action.chat.open')) return false;
  // A chat command can exist without any chat provider (e.g. code-server without Copilot).
  const hasModels = typeof vscode.lm?.selectChatModels === 'function' && (await vscode.lm.selectChatModels().then((m) => m.length > 0, () => false));
  if (!hasModels) return false;
  try {
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: markdown, isPartialQuery: true });
    return true;
  } catch {
    return false;
  }
}
