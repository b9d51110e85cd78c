/**
 * Ids the agent features share with package.json, declared once and vscode-free so a
 * unit test can compare them with the manifest.
 */

export const CHAT_PARTICIPANT_ID = 'contextLedger.ledger';
export const CHAT_PARTICIPANT_NAME = 'ledger';

export const CHAT_COMMANDS = {
  context: 'context',
  remember: 'remember',
  search: 'search',
  explain: 'explain',
} as const;

export const MCP_PROVIDER_ID = 'contextLedger.mcp';

export const AGENT_COMMANDS = {
  approve: 'contextLedger.approveArtifact',
  reject: 'contextLedger.rejectArtifact',
  ingestInbox: 'contextLedger.ingestInbox',
  connectAgentHooks: 'contextLedger.connectAgentHooks',
  /** What works without a chat model (VS Code refuses @ledger when there is none). */
  withoutChatModel: 'contextLedger.withoutChatModel',
  /** Run by the chat participant's buttons only (not contributed): saves what /remember proposed. */
  rememberSave: 'contextLedger.rememberSave',
} as const;

export const REVIEW_VIEW_ID = 'contextLedger.review';
export const REVIEW_ITEM_CONTEXT = 'unreviewedArtifact';

/** Setting names relative to `contextLedger.`. */
export const AGENT_SETTINGS = {
  confirmWrites: 'agent.confirmWrites',
  inboxEnabled: 'agent.inbox.enabled',
  mcpProvider: 'agent.mcpServer.enabled',
} as const;

/** `toolReferenceName`s: how a person names a tool in a chat prompt (`#ledgerContext`). */
export const TOOL_REFERENCE_NAMES: Readonly<Record<string, string>> = {
  build_context: 'ledgerContext',
  get_artifact: 'ledgerArtifact',
  search_artifacts: 'ledgerSearch',
  create_artifact: 'ledgerRecord',
  propose_version: 'ledgerRevise',
  propose_supersession: 'ledgerSupersede',
};

export const TOOL_ICONS: Readonly<Record<string, string>> = {
  build_context: '$(book)',
  get_artifact: '$(file-text)',
  search_artifacts: '$(search)',
  create_artifact: '$(add)',
  propose_version: '$(versions)',
  propose_supersession: '$(replace)',
};
