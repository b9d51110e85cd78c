/**
 * A tool's answer as an MCP `tools/call` result. What a client receives is what its model
 * may see, and clients differ in what they hand over: Claude Code gives its model a result's
 * structuredContent (as JSON) in place of its text when there is one. So build_context's
 * answer is one text part and nothing else — no structured copy, no link per item (the text
 * names every item it holds as ledger://) — and the whole serialized result fits the budget
 * the agent asked for, whichever part a client shows.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type AgentTool, type AgentToolResult, buildContextTool, toolOutputJsonSchema } from '../../core/agentTools';

/** Whether a tool's result carries structuredContent (and the tool an outputSchema). */
function structured(tool: Pick<AgentTool, 'name'>): boolean {
  return tool.name !== buildContextTool.name;
}

/** The MCP outputSchema of a tool, when it has one. */
export function mcpOutputSchema(tool: AgentTool): { type: 'object'; [key: string]: unknown } | undefined {
  return structured(tool) ? (toolOutputJsonSchema(tool) as { type: 'object' }) : undefined;
}

/** The tools/call result for a tool's answer. */
export function mcpToolResult(toolName: string, result: AgentToolResult): CallToolResult {
  return {
    content: [{ type: 'text', text: result.text }],
    ...(result.isError ? { isError: true } : {}),
    ...(result.data && !result.isError && structured({ name: toolName }) ? { structuredContent: result.data } : {}),
  };
}

/** The answer as a raw client receives it, for build_context to fit within the budget. */
export function serializedBuildContext(result: AgentToolResult): string {
  return JSON.stringify(mcpToolResult(buildContextTool.name, result));
}
