import * as vscode from 'vscode';
import { registerAgentFeatures } from './agent';
import { registerHooksOffer } from './agent/hooksOffer';
import { AutoInjector } from './autoInjector';
import { MirrorFollower } from './mirrorFollower';
import { KnowledgeWatcher } from './knowledgeWatcher';
import { BudgetStatusBar } from './budgetStatusBar';
import { ConfigService } from './config';
import { ContextService } from './contextService';
import { startCpuProfileIfAsked, writeHeapSnapshotLaterIfAsked } from './devProfile';
import { artifactCommands } from './commands/artifactCommands';
import { registerCommandTables } from './commands/common';
import { contextCommands } from './commands/contextCommands';
import { ledgerCommands } from './commands/ledgerCommands';
import { taskCommands } from './commands/taskCommands';
import { ExplainDocuments } from './explainDocuments';
import { FileActivityTracker } from './fileActivityTracker';
import { GitTracker } from './git';
import { CONTEXT_KEYS } from './ids';
import { registerInspector } from './inspector';
import { registerInteropFeatures } from './interop';
import { LedgerDocumentProvider } from './ledgerDocuments';
import { LedgerRegistry } from './ledgers';
import { LiveContext } from './liveContext';
import { Logger } from './logger';
import type { Services } from './services';
import { ArtifactTreeProvider } from './views/artifactTree';
import { TaskTreeProvider } from './views/taskView';
import { TrackedFilesProvider } from './views/trackedFilesView';
import { TerminalFailures } from './sources/terminalLogs';

/**
 * Builds the services (cheap: the database and the tokenizer load lazily, on first use),
 * registers the commands and views, then hands over to the agent and interop features.
 */
export function activate(context: vscode.ExtensionContext): Services {
  const started = performance.now();
  const profiled = startCpuProfileIfAsked();
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
  const mirror = own(new MirrorFollower(registry, logger));
  const artifactTree = own(new ArtifactTreeProvider(registry, config, logger, git, mirror));
  const taskTree = own(new TaskTreeProvider(registry, logger));
  const filesTree = own(new TrackedFilesProvider(registry, config, tracker, logger));
  own(new BudgetStatusBar(live, config));
  const built = performance.now();

  own(git.onDidChange(() => live.schedule()));
  // A command that just failed is new evidence for the meter and the auto-inject file.
  own(terminals.onDidRecordFailure(() => live.schedule()));
  const knowledge = own(new KnowledgeWatcher(registry, config, logger));

  const services: Services = { context, logger, config, registry, tracker, git, contexts, live, documents, explain, autoInject, artifactTree, taskTree, filesTree, mirror };

  registerCommandTables(context, services, [contextCommands(services), artifactCommands(services), taskCommands(services), ledgerCommands(services)]);
  updateContextKeys(registry);
  own(registry.onDidChange(() => updateContextKeys(registry)));
  own({ dispose: () => void tracker.flush() });

  const registered = performance.now();
  registerAgentFeatures(context, services);
  context.subscriptions.push(...registerHooksOffer(services));
  registerInteropFeatures(context, services);
  registerInspector(context, services);

  mirror.start();
  knowledge.start();
  live.schedule(0);
  logMemoryAfterFirstBuild(live, logger);
  profiled(logger);
  const ms = (from: number, to: number): string => (to - from).toFixed(1);
  const done = performance.now();
  // Where activation goes, for the start-up bench (test/bench/startup.mjs) and a slow start reported from a user's log.
  logger.info(`Activated in ${ms(started, done)} ms (services and views ${ms(started, built)}, commands ${ms(built, registered)}, chat, tools, interop and inspector ${ms(registered, done)})`);
  return services;
}

export function deactivate(): void {}

/**
 * The extension host's memory once the first context is built (the ledger open, the
 * tokenizer loaded if a count was missing): the start-up bench reads this line to say where
 * the memory goes (the JavaScript heap, or sql.js's memory, which counts as external).
 */
function logMemoryAfterFirstBuild(live: LiveContext, logger: Logger): void {
  const once = live.onDidUpdate((state) => {
    if (state.kind !== 'built') return;
    once.dispose();
    const mb = (bytes: number): string => (bytes / 1048576).toFixed(0);
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    logger.info(`Memory after the first build: resident ${mb(rss)} MB, heap ${mb(heapUsed)} of ${mb(heapTotal)} MB, external ${mb(external)} MB (array buffers ${mb(arrayBuffers)} MB)`);
    writeHeapSnapshotLaterIfAsked(logger);
  });
}

function updateContextKeys(registry: LedgerRegistry): void {
  void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.hasLedger, registry.foldersWithLedger().length > 0);
  void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.multiRoot, registry.folders().length > 1);
}
