/**
 * `context-ledger mcp`: the agent tools (src/core/agentTools.ts) as a Model Context
 * Protocol server on stdio, for agents outside VS Code (Claude Code, Cline, Cursor, ...).
 *
 * Standard output carries protocol messages only: everything else goes to stderr.
 * Reads see the freshest file on disk; writes go through LedgerFile.write (locked,
 * atomic), and everything an agent writes is stamped unreviewed (channel "mcp").
 */
import * as path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AGENT_TOOLS, type AgentToolEnv, findAgentTool, type LedgerAccess, toolJsonSchema } from '../core/agentTools';
import { UserError } from '../core/model';
import { defaultDatabasePath } from '../node/files';
import { type LedgerFile } from '../node/ledgerFile';
import { readWorkspaceSetting } from '../node/workspaceSettings';
import { stringOption } from './args';
import { type Command, openLedger } from './commands';

declare const CONTEXT_LEDGER_VERSION: string | undefined;
const VERSION = typeof CONTEXT_LEDGER_VERSION === 'string' ? CONTEXT_LEDGER_VERSION : 'dev';

function log(text: string): void {
  process.stderr.write(`context-ledger mcp: ${text}\n`);
}

/** Store access for the tools over one open ledger file. */
export function ledgerAccess(ledger: LedgerFile): LedgerAccess {
  return {
    async read(fn) {
      ledger.refresh();
      return await fn(ledger.store);
    },
    write: (fn) => ledger.write(fn),
  };
}

/**
 * Whether build_context includes or holds agent-written knowledge nobody approved: the
 * flag, else the workspace's own VS Code setting (so Claude Code in a repository set to
 * "hold" is held back too, exactly like Copilot in the editor), else include.
 */
export function unreviewedPolicy(flag: string | undefined, cwd: string): { policy: 'include' | 'hold'; from: string } {
  if (flag !== undefined) {
    if (flag !== 'include' && flag !== 'hold') throw new UserError(`--unreviewed must be "include" or "hold", not "${flag}".`, 'For example --unreviewed hold.');
    return { policy: flag, from: '--unreviewed' };
  }
  const found = defaultDatabasePath(cwd);
  const root = found.found ? path.dirname(path.dirname(found.file)) : cwd;
  const setting = readWorkspaceSetting(root, 'contextLedger.agent.unreviewed');
  if (setting === 'include' || setting === 'hold') return { policy: setting, from: path.join(root, '.vscode', 'settings.json') };
  return { policy: 'include', from: 'default' };
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Builds the (unconnected) MCP server over `env`; `env.agent` is filled in from the client's name once known. */
export function createMcpServer(env: AgentToolEnv): Server {
  // The low-level Server, so that validation and error text are the tools' own (formatIssues), not the SDK's.
  const server = new Server(
    { name: 'context-ledger', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Project knowledge (decisions, patterns, module notes, conventions) from the Context Ledger. Call build_context at the start of a task; ' +
        'record what you learn with create_artifact. Knowledge written by agents is marked unreviewed until a person approves it.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: AGENT_TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolJsonSchema(tool) as { type: 'object'; [key: string]: unknown },
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = findAgentTool(name);
    if (!tool) {
      return {
        content: [{ type: 'text', text: `There is no tool "${name}". The tools are: ${AGENT_TOOLS.map((t) => t.name).join(', ')}.` }],
        isError: true,
      };
    }
    const agent = env.agent ?? server.getClientVersion()?.name;
    try {
      const result = await tool.run({ ...env, ...(agent ? { agent } : {}) }, args ?? {});
      return {
        content: [{ type: 'text', text: result.text }],
        ...(result.isError ? { isError: true } : {}),
        ...(result.data ? { structuredContent: result.data } : {}),
      };
    } catch (error) {
      // A bug or a file problem: the agent gets a short error, the details go to stderr, the server keeps running.
      log(`${name} failed: ${errorText(error)}`);
      const message = error instanceof Error ? error.message : String(error);
      return { content: [{ type: 'text', text: `${name} failed inside the ledger: ${message}. Nothing was changed; you may retry once.` }], isError: true };
    }
  });

  return server;
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the ledger to AI agents as a Model Context Protocol server on stdio.',
  usage: 'context-ledger mcp [--db <file>] [--unreviewed include|hold]',
  options: {
    unreviewed: {
      type: 'string',
      value: 'include|hold',
      description:
        'Agent-written knowledge nobody approved: include it in build_context under an "unreviewed" marker, or hold it back. ' +
        'Default: the workspace\'s contextLedger.agent.unreviewed in .vscode/settings.json, else include.',
    },
  },
  positionals: [0, 0],
  details:
    'Offers build_context, get_artifact, search_artifacts, create_artifact, propose_version and propose_supersession. ' +
    'Knowledge written through it is marked unreviewed; see `context-ledger inbox`. Logs go to stderr.',
  async run(context) {
    // Standard output belongs to the protocol: anything else that prints goes to stderr.
    console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(' '));
    const unreviewed = unreviewedPolicy(stringOption(context.options, 'unreviewed'), context.cwd);
    const ledger = await openLedger(context, true);
    const env: AgentToolEnv = {
      ledger: ledgerAccess(ledger),
      channel: 'mcp',
      workspaceRoot: path.resolve(context.cwd).replace(/\\/g, '/'),
      assembleOptions: { unreviewed: unreviewed.policy },
    };
    const server = createMcpServer(env);
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.stdin.once('close', () => resolve());
    });
    await server.connect(transport);
    log(`serving ${ledger.file} on stdio; unreviewed knowledge: ${unreviewed.policy} (${unreviewed.from})`);
    await closed;
    await server.close().catch(() => undefined);
    ledger.close();
    return 0;
  },
};
