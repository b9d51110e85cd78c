/**
 * Ids the interop commands share with package.json, declared once and vscode-free so a
 * unit test can compare them with the manifest.
 */

export const INTEROP_COMMANDS = {
  importKnowledge: 'contextLedger.importKnowledge',
  exportAgentRules: 'contextLedger.exportAgentRules',
  syncMirror: 'contextLedger.syncMirror',
  whichRules: 'contextLedger.whichRules',
} as const;

/** The commands that read or write files the workspace controls: trusted workspaces only. */
export const TRUSTED_ONLY: readonly string[] = [INTEROP_COMMANDS.importKnowledge, INTEROP_COMMANDS.exportAgentRules, INTEROP_COMMANDS.syncMirror];

/** Read-only "which rules apply" reports. */
export const WHICH_SCHEME = 'context-ledger-which';
