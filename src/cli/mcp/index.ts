/**
 * `context-ledger mcp`: the agent tools (src/core/agentTools.ts) as a Model Context
 * Protocol server on stdio (or Streamable HTTP on 127.0.0.1 with --http), for agents
 * outside VS Code (Claude Code, Gemini CLI, Cline, Cursor, ...). Both protocol eras are
 * served: 2025-11-25 (and older) after `initialize`, 2026-07-28 per request.
 *
 * On stdio with the workspace's own ledger, this process relays the protocol to the
 * workspace's ledger server, which serves it over the ledger it keeps for every MCP server and
 * hook of the workspace (./relay.ts). Otherwise, or when that server cannot be had, the main
 * thread speaks the protocol (./server.ts over ./stdio.ts or ./http.ts, through the SDK's
 * serving entries) and a worker owns the ledger (./worker.ts). Standard output
 * carries protocol messages only: everything else goes to stderr. Reads see the freshest
 * file on disk; writes go through LedgerFile.write (locked, atomic), and everything an
 * agent writes is stamped unreviewed (channel "mcp").
 */
import { isMainThread, workerData } from 'node:worker_threads';
import { URN_PREFIX } from '../../core/model';
import type { Command } from '../commandContext';
import { log } from './log';
import type { WorkerSetup } from './worker';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the ledger to AI agents as a Model Context Protocol server on stdio (or HTTP on 127.0.0.1).',
  usage: 'context-ledger mcp [--db <file>] [--unreviewed include|hold] [--http <port>]',
  options: {
    http: {
      type: 'string',
      value: 'port',
      description:
        'Serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0: a free port, printed on stderr). Loopback only: 127.0.0.1:<port> and localhost:<port> are accepted, other hosts refused.',
    },
    unreviewed: {
      type: 'string',
      value: 'include|hold',
      description:
        'Agent-written knowledge nobody approved: include it in build_context under an "unreviewed" marker, or hold it back (the reviewed version stays in). ' +
        'Default: the workspace\'s contextLedger.agent.unreviewed in .vscode/settings.json, else include.',
    },
  },
  positionals: [0, 0],
  details:
    'Tools: build_context, get_artifact, search_artifacts, create_artifact, propose_version, propose_supersession, explain, which. ' +
    `Resources: ${URN_PREFIX}{id}. Prompts: context, remember, explain. ` +
    'Knowledge written through it is marked unreviewed; see `context-ledger inbox`. The workspace is the folder holding the ledger. ' +
    'With no ledger there, it creates none: it says so in every answer and looks in the client\'s roots. ' +
    'Speaks MCP 2026-07-28 (no handshake) and 2025-11-25 on the same server. Logs go to stderr. See docs/mcp.md.',
  async run(context) {
    // Standard output belongs to the protocol: anything else that prints goes to stderr.
    console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(' '));
    // The ledger's thread runs the same command: it loads the ledger's side only, never the MCP SDK.
    if (!isMainThread && (workerData as Partial<WorkerSetup> | undefined)?.mcpWorker) return (await import('./worker.js')).runWorker(context, workerData as WorkerSetup);
    // On stdio, the workspace's ledger server serves when it can (./relay.ts): this process then loads neither the SDK nor the ledger.
    const relayed = await (await import('./relay.js')).relayMcp(context);
    if (relayed && 'done' in relayed) return 0;
    return (await import('./serve.js')).serveMcp(context, relayed?.takeover);
  },
};
