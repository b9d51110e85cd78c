/**
 * A tool's answer as an MCP `tools/call` result. What a client receives is what its model
 * may see, so build_context's answer is one text and a small structured summary (no second
 * copy of the text, no link per item: the text names every item it holds as ledger://),
 * and the whole serialized result fits the budget the agent asked for.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type AgentTool, type AgentToolResult, buildContextTool, toolOutputJsonSchema } from '../../core/agentTools';

/** build_context's structuredContent: the budget's account, not the knowledge (that is the text). */
const BUILD_CONTEXT_SUMMARY = buildContextTool.outputSchema.pick({ budget: true, tokensUsed: true, tokenizer: true, unreviewedPolicy: true, notes: true, logId: true });

/** The MCP outputSchema of a tool. */
export function mcpOutputSchema(tool: AgentTool): { type: 'object'; [key: string]: unknown } {
  if (tool.name !== buildContextTool.name) return toolOutputJsonSchema(tool) as { type: 'object' };
  const schema = z.toJSONSchema(BUILD_CONTEXT_SUMMARY, { io: 'output', unrepresentable: 'any' }) as { type: 'object'; [key: string]: unknown };
  delete schema.$schema;
  return schema;
}

function structured(toolName: string, data: Record<string, unknown>): Record<string, unknown> {
  if (toolName !== buildContextTool.name) return data;
  const summary: Record<string, unknown> = {};
  for (const key of Object.keys(BUILD_CONTEXT_SUMMARY.shape)) if (data[key] !== undefined) summary[key] = data[key];
  return summary;
}

/** The tools/call result for a tool's answer. */
export function mcpToolResult(toolName: string, result: AgentToolResult): CallToolResult {
  return {
    content: [{ type: 'text', text: result.text }],
    ...(result.isError ? { isError: true } : {}),
    ...(result.data && !result.isError ? { structuredContent: structured(toolName, result.data) } : {}),
  };
}

/** The answer as a raw client receives it, for build_context to fit within the budget. */
export function serializedBuildContext(result: AgentToolResult): string {
  return JSON.stringify(mcpToolResult(buildContextTool.name, result));
}
