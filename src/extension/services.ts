import type * as vscode from 'vscode';
import type { AutoInjector } from './autoInjector';
import type { ConfigService } from './config';
import type { ContextService } from './contextService';
import type { ExplainDocuments } from './explainDocuments';
import type { FileActivityTracker } from './fileActivityTracker';
import type { GitTracker } from './git';
import type { LedgerDocumentProvider } from './ledgerDocuments';
import type { LedgerRegistry } from './ledgers';
import type { LiveContext } from './liveContext';
import type { Logger } from './logger';
import type { MirrorFollower } from './mirrorFollower';
import type { ArtifactTreeProvider } from './views/artifactTree';
import type { TaskTreeProvider } from './views/taskView';
import type { TrackedFilesProvider } from './views/trackedFilesView';

/** What commands need, built once in activate() and passed in. */
export interface Services {
  context: vscode.ExtensionContext;
  logger: Logger;
  config: ConfigService;
  registry: LedgerRegistry;
  tracker: FileActivityTracker;
  git: GitTracker;
  contexts: ContextService;
  live: LiveContext;
  documents: LedgerDocumentProvider;
  explain: ExplainDocuments;
  autoInject: AutoInjector;
  artifactTree: ArtifactTreeProvider;
  taskTree: TaskTreeProvider;
  filesTree: TrackedFilesProvider;
  mirror: MirrorFollower;
}
