/** The real-agent test harness: see test/agents/README.md. */
export { startScriptedModel, requestText } from './modelServer';
export type { Turn, ScriptedModel, RecordedRequest, MessagesRequest, ContentBlock } from './modelServer';
export { REPO_ROOT, CLI_PATH, CLAUDE_CODE_VERSION, claudeBinary, createWorkspace, runClaude } from './agents';
export type { Workspace, WorkspaceOptions, AgentRun, ClaudeOptions } from './agents';
