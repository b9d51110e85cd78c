/** The real-agent test harness: see test/agents/README.md. */
export { startScriptedModel, requestText } from './modelServer';
export type { Turn, Dialect, ScriptedModel, RecordedRequest } from './modelServer';
export { REPO_ROOT, CLI_PATH, CLAUDE_CODE_VERSION, CODEX_VERSION, GEMINI_CLI_VERSION, COPILOT_CLI_VERSION, claudeBinary, codexBinary, geminiScript, copilotBinary, createWorkspace, commitAll, runClaude, runCodex, runGemini, runCopilot } from './agents';
export type { Workspace, WorkspaceOptions, AgentRun, AgentOptions } from './agents';
export { ledgerCli, PATIENT_HOOKS, occurrences } from './ledger';
