/**
 * Every id the extension shares with package.json: commands, views, context keys,
 * settings, URI schemes. Declared once here, vscode-free, so a unit test can compare
 * them with the manifest.
 */

export const EXTENSION_ID = 'context-ledger.context-ledger';
export const CATEGORY = 'Context Ledger';

export const COMMANDS = {
  buildContext: 'contextLedger.buildContext',
  previewContext: 'contextLedger.previewContext',
  showDetails: 'contextLedger.showDetails',
  openInspector: 'contextLedger.openInspector',
  addArtifact: 'contextLedger.addArtifact',
  addModuleMemory: 'contextLedger.addModuleMemory',
  addModuleMemoryForPath: 'contextLedger.addModuleMemoryForPath',
  openArtifact: 'contextLedger.openArtifact',
  newVersion: 'contextLedger.newVersion',
  supersede: 'contextLedger.supersede',
  archive: 'contextLedger.archive',
  restore: 'contextLedger.restore',
  resolveConflict: 'contextLedger.resolveConflict',
  deleteArtifact: 'contextLedger.deleteArtifact',
  pin: 'contextLedger.pin',
  unpin: 'contextLedger.unpin',
  copyUrn: 'contextLedger.copyUrn',
  markUseful: 'contextLedger.markUseful',
  markNotUseful: 'contextLedger.markNotUseful',
  filterArtifacts: 'contextLedger.filterArtifacts',
  searchArtifacts: 'contextLedger.searchArtifacts',
  clearArtifactFilter: 'contextLedger.clearArtifactFilter',
  refresh: 'contextLedger.refresh',
  createTask: 'contextLedger.createTask',
  setActiveTask: 'contextLedger.setActiveTask',
  setTaskStage: 'contextLedger.setTaskStage',
  clearActiveTask: 'contextLedger.clearActiveTask',
  importJsonl: 'contextLedger.importJsonl',
  exportJsonl: 'contextLedger.exportJsonl',
  openDatabaseFolder: 'contextLedger.openDatabaseFolder',
  showLog: 'contextLedger.showLog',
  toggleAutoInject: 'contextLedger.toggleAutoInject',
} as const;
export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
export const COMMAND_IDS: readonly CommandId[] = Object.values(COMMANDS);

export const VIEW_CONTAINER = 'contextLedger';

export const VIEWS = {
  artifacts: 'contextLedger.artifacts',
  task: 'contextLedger.task',
  files: 'contextLedger.files',
} as const;
export type ViewId = (typeof VIEWS)[keyof typeof VIEWS];

/** The Context Inspector webview panel (its serializer restores it after a reload). */
export const INSPECTOR_VIEW_TYPE = 'contextLedger.inspector';

/** `when`-clause keys the extension sets with `setContext`. */
export const CONTEXT_KEYS = {
  hasLedger: 'contextLedger.hasLedger',
  hasArtifacts: 'contextLedger.hasArtifacts',
  /** Set once the Artifacts view has read the ledger: until then it says "Loading", not "no artifacts". */
  artifactsLoaded: 'contextLedger.artifactsLoaded',
  hasActiveTask: 'contextLedger.hasActiveTask',
  artifactsFiltered: 'contextLedger.artifactsFiltered',
  multiRoot: 'contextLedger.multiRoot',
} as const;

/** `contextValue`s of tree items, matched by `viewItem` in menus. */
export const TREE_ITEM_KINDS = {
  artifact: 'artifact',
  artifactPinned: 'artifact.pinned',
  artifactArchived: 'artifact.archived',
  artifactSuperseded: 'artifact.superseded',
  version: 'artifactVersion',
  /** The "Resolve…" row under an artifact in conflict (not `artifact…`: the artifact menus match that prefix). */
  conflict: 'mirrorConflict',
  group: 'group',
  folder: 'folder',
  taskField: 'taskField',
  taskTitle: 'taskField.title',
  taskStage: 'taskField.stage',
  trackedFile: 'trackedFile',
  trackedFileCovered: 'trackedFile.covered',
} as const;

export const SETTINGS_SECTION = 'contextLedger';

/** Setting names relative to `contextLedger.`. */
export const SETTINGS = {
  budget: 'budget',
  tokenizer: 'tokenizer',
  scopeSplit: 'scopeSplit',
  typePriority: 'typePriority',
  weights: 'weights',
  recencyHalfLifeDays: 'recencyHalfLifeDays',
  previews: 'previews',
  meaning: 'meaning',
  autoInjectEnabled: 'autoInject.enabled',
  autoInjectPath: 'autoInject.path',
  autoInjectCommit: 'autoInject.commit',
  trackingEnabled: 'tracking.enabled',
  trackingExclude: 'tracking.exclude',
  trackingHalfLifeHours: 'tracking.halfLifeHours',
  databasePath: 'databasePath',
  importWatch: 'import.watch',
  statusBarEnabled: 'statusBar.enabled',
  agentUnreviewed: 'agent.unreviewed',
  stages: 'stages',
  sourcesEnabled: 'sources.enabled',
  sourcesProfile: 'sources.profile',
  sourcesCode: 'sources.code',
  sourcesDiagnostics: 'sources.diagnostics',
  sourcesLogs: 'sources.logs',
  sourcesLogFiles: 'sources.logFiles',
  sourcesDocs: 'sources.docs',
  sourcesDeployment: 'sources.deployment',
  sourcesGit: 'sources.git',
} as const;
export type SettingName = (typeof SETTINGS)[keyof typeof SETTINGS];

/** The editable artifact documents (`ledger://<folder>/<id>/<slug>.md`); saving makes a new version. */
export const LEDGER_SCHEME = 'ledger';
/** Read-only explain documents. */
export const EXPLAIN_SCHEME = 'context-ledger-explain';

/** globalState keys. */
export const STATE_KEYS = {
  autoInjectNoticeShown: 'contextLedger.autoInjectNoticeShown',
  foreignInstructionsWarned: 'contextLedger.foreignInstructionsWarned',
} as const;
