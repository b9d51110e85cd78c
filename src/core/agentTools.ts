/**
 * The agent tools: one definition each, shared by every surface an agent reaches the
 * ledger through (the MCP server, VS Code language-model tools, the chat participant).
 * A surface supplies store access and who is calling; the tool validates its input,
 * does the work and answers with text written for a model to read.
 */
import { z } from 'zod';
import { type AgentTool } from './tools/tool';
import { buildContextTool } from './tools/buildContext';
import { getArtifactTool } from './tools/getArtifact';
import { searchArtifactsTool } from './tools/searchArtifacts';
import { createArtifactTool, proposeVersionTool, proposeSupersessionTool } from './tools/writeTools';
import { explainTool, whichTool } from './tools/explainWhich';

export { type LedgerAccess, type AgentToolEnv, type AgentToolResult, type AgentToolAnnotations, type AgentTool, MAX_AGENT_BODY_CHARS, MAX_TITLE_CHARS, MAX_SUMMARY_CHARS, MAX_TAGS, MAX_TAG_CHARS, MAX_PATHS, MAX_PATH_CHARS, MAX_TASK_CHARS, MIN_BUDGET, AGENT_ARTIFACT_TYPES, formatIssues } from './tools/tool';
export { workspaceRelative } from './tools/toolSupport';
export { CancelledError, buildContextTool } from './tools/buildContext';
export { ARTIFACT_PAGE_CHARS, getArtifactTool, artifactResource } from './tools/getArtifact';
export { searchArtifactsTool } from './tools/searchArtifacts';
export { type CreateArtifactInput, recordAgentArtifact, createArtifactTool, proposeVersionTool, proposeSupersessionTool } from './tools/writeTools';
export { explainTool, whichTool } from './tools/explainWhich';

// ------------------------------------------------------------------ the set

/** Every agent tool, in the order a surface should list them. */
export const AGENT_TOOLS: readonly AgentTool[] = [
  buildContextTool,
  getArtifactTool,
  searchArtifactsTool,
  createArtifactTool,
  proposeVersionTool,
  proposeSupersessionTool,
];

/** The MCP server's tools: the agent tools, and `explain` and `which`, which agents outside VS Code ask for (the editor has its own commands). */
export const MCP_TOOLS: readonly AgentTool[] = [...AGENT_TOOLS, explainTool, whichTool];

export function findAgentTool(name: string, tools: readonly AgentTool[] = AGENT_TOOLS): AgentTool | undefined {
  return tools.find((tool) => tool.name === name || tool.lmName === name);
}

/** The input schema as JSON Schema, e.g. for `contributes.languageModelTools[].inputSchema`. */
export function toolJsonSchema(tool: AgentTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The output schema as JSON Schema (MCP `outputSchema`: what `structuredContent` holds). */
export function toolOutputJsonSchema(tool: AgentTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.outputSchema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
