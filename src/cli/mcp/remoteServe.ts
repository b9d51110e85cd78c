/**
 * The workspace ledger server's side of an MCP server (../hookServer.ts): a connection whose
 * first line is an MCP hello carries, from then on, the ledger requests of one MCP server
 * (./remote.ts sends them), answered by ./calls.ts over the ledger the server keeps for the
 * hooks. So every MCP server and every hook on a workspace reads one ledger in memory, and
 * every write goes through its one session. The MCP server itself (the SDK, stdio) stays in
 * the process the agent started; only the ledger's work comes here.
 *
 * The lines are JSON: the hello `{"mcp":{"file","workspace","unreviewed"?}}`, then requests
 * (./calls.ts `LedgerMessage`, or `{"type":"cancel","id"}`); back come `ready` (or
 * `startError`), then results and progress.
 */
import type * as net from 'node:net';
import * as path from 'node:path';
import { answerLedgerRequest, callEnv, errorText, type KeptForCalls, type LedgerMessage, type LedgerProgress, type LedgerReply, userText } from './calls';
import { unreviewedPolicy } from './ledger';

/** What an MCP server's first line says: which ledger it serves, and its `--unreviewed` flag. */
export interface McpHello {
  mcp: { file: string; workspace: string; unreviewed?: string };
}

export function isMcpHello(value: unknown): value is McpHello {
  const mcp = (value as { mcp?: Record<string, unknown> } | null)?.mcp;
  return typeof mcp === 'object' && mcp !== null && typeof mcp.file === 'string' && typeof mcp.workspace === 'string' && (mcp.unreviewed === undefined || typeof mcp.unreviewed === 'string');
}

/** A line longer than this is not a request this server's clients send: the connection is dropped. */
const MAX_LINE = 64 * 1024 * 1024;

/** The ledger server as an MCP connection sees it. */
export interface McpHost {
  workspace: string;
  kept: KeptForCalls;
  /** Each request keeps the server from ending idle; a connection open keeps it too. */
  busy(): void;
  opened(): void;
  closed(): void;
}

/** Serves one MCP server's ledger requests on `connection`; `rest` is what came after its hello line. */
export function serveMcpConnection(connection: net.Socket, hello: McpHello, rest: string, host: McpHost): void {
  const send = (message: unknown): void => {
    if (!connection.destroyed) connection.write(`${JSON.stringify(message)}\n`);
  };
  const { file, workspace, unreviewed } = hello.mcp;
  if (path.resolve(workspace) !== path.resolve(host.workspace) || path.resolve(file) !== path.resolve(host.kept.dbFile)) {
    connection.end(`${JSON.stringify({ type: 'startError', message: `this server keeps ${host.kept.dbFile} only` })}\n`);
    return;
  }
  let env: ReturnType<typeof callEnv>;
  let policy: ReturnType<typeof unreviewedPolicy>;
  try {
    policy = unreviewedPolicy(unreviewed, workspace);
    env = callEnv(host.kept, workspace, policy.policy);
  } catch (error) {
    connection.end(`${JSON.stringify({ type: 'startError', message: userText(error) })}\n`);
    return;
  }
  host.opened();
  connection.once('close', () => host.closed());
  send({ type: 'ready', served: { file: host.kept.dbFile, workspace: path.resolve(workspace), policy: policy.policy, from: policy.from } });

  const cancelled = new Set<number>();
  const post = (message: LedgerReply | LedgerProgress): void => {
    if (message.type === 'result') cancelled.delete(message.id);
    send(message);
  };
  // One request at a time per MCP server, in order; the kept ledger serializes them with the hooks'.
  let queue = Promise.resolve();
  const take = (line: string): void => {
    let message: LedgerMessage | { type: 'cancel'; id: number };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      connection.destroy();
      return;
    }
    if (message.type === 'cancel') {
      // Read at once, not queued: the call it names is still waiting, or being built.
      cancelled.add(message.id);
      return;
    }
    host.busy();
    const request = message;
    queue = queue
      .then(async () => {
        if (request.type === 'open') return post({ type: 'result', id: request.id, result: { file: host.kept.dbFile } });
        await answerLedgerRequest(host.kept, env, request, (id) => cancelled.has(id), post);
      })
      .catch((error: unknown) => post({ type: 'result', id: request.id, error: errorText(error) }));
  };
  let data = rest;
  const drain = (): void => {
    let end: number;
    while ((end = data.indexOf('\n')) >= 0) {
      const line = data.slice(0, end);
      data = data.slice(end + 1);
      if (line.trim() !== '') take(line);
    }
    if (data.length > MAX_LINE) connection.destroy();
  };
  connection.on('data', (chunk: string) => {
    data += chunk;
    drain();
  });
  drain();
}
