/**
 * Which command file registers which command, declared vscode-free so a unit test can
 * compare the tables with package.json. Each file's table is typed by its list here, so
 * the compiler keeps a table's keys and its list the same.
 */
import { AGENT_COMMANDS } from '../agent/ids';
import { COMMANDS } from '../ids';
import { INTEROP_COMMANDS } from '../interop/ids';

/** contextCommands.ts: build, preview and explain the context; refresh the views; show the log. */
export const CONTEXT_COMMAND_IDS = [COMMANDS.buildContext, COMMANDS.previewContext, COMMANDS.showDetails, COMMANDS.refresh, COMMANDS.showLog] as const;

/** artifactCommands.ts: add, open, version, pin, archive, delete, rate and filter artifacts. */
export const ARTIFACT_COMMAND_IDS = [
  COMMANDS.addArtifact,
  COMMANDS.openArtifact,
  COMMANDS.copyUrn,
  COMMANDS.pin,
  COMMANDS.unpin,
  COMMANDS.archive,
  COMMANDS.deleteArtifact,
  COMMANDS.markUseful,
  COMMANDS.markNotUseful,
  COMMANDS.newVersion,
  COMMANDS.supersede,
  COMMANDS.restore,
  COMMANDS.resolveConflict,
  COMMANDS.filterArtifacts,
  COMMANDS.searchArtifacts,
  COMMANDS.clearArtifactFilter,
] as const;

/** taskCommands.ts: the task view's tasks and module memories. */
export const TASK_COMMAND_IDS = [
  COMMANDS.createTask,
  COMMANDS.setActiveTask,
  COMMANDS.clearActiveTask,
  COMMANDS.setTaskStage,
  COMMANDS.addModuleMemory,
  COMMANDS.addModuleMemoryForPath,
] as const;

/** ledgerCommands.ts: JSONL import and export, and the database folder. */
export const LEDGER_COMMAND_IDS = [COMMANDS.importJsonl, COMMANDS.exportJsonl, COMMANDS.openDatabaseFolder] as const;

/** Every command the command files register, by file (registerCommandTables registers them all). */
export const COMMAND_TABLE_IDS = {
  context: CONTEXT_COMMAND_IDS,
  artifact: ARTIFACT_COMMAND_IDS,
  task: TASK_COMMAND_IDS,
  ledger: LEDGER_COMMAND_IDS,
} as const;

/**
 * Commands registered beside their feature, which holds the state they act on, by the
 * file that registers them.
 */
export const FEATURE_COMMAND_IDS = {
  'inspector/index.ts': [COMMANDS.openInspector],
  'interop/index.ts': Object.values(INTEROP_COMMANDS),
  'agent/index.ts': [AGENT_COMMANDS.ingestInbox, AGENT_COMMANDS.rememberSave],
  'agent/reviewView.ts': [AGENT_COMMANDS.approve, AGENT_COMMANDS.reject],
  'agent/withoutChatModel.ts': [AGENT_COMMANDS.withoutChatModel],
  'agent/hooksOffer.ts': [AGENT_COMMANDS.connectAgentHooks],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** Registered but not contributed: run by the chat participant's buttons only. */
const INTERNAL = [AGENT_COMMANDS.rememberSave] as const;
export const INTERNAL_COMMAND_IDS: readonly string[] = INTERNAL;

/** Every command the extension registers (the tables and the feature files). */
export type RegisteredCommandId =
  | (typeof COMMAND_TABLE_IDS)[keyof typeof COMMAND_TABLE_IDS][number]
  | (typeof FEATURE_COMMAND_IDS)[keyof typeof FEATURE_COMMAND_IDS][number];

/** The registered commands the manifest offers: what commandContributions.ts must describe, each. */
export type ContributedCommandId = Exclude<RegisteredCommandId, (typeof INTERNAL)[number]>;
