/**
 * The workspace ledger server's side of `context-ledger mcp` on stdio (../hookServer.ts): a
 * connection whose first line is an MCP relay's hello (./relay.ts) carries, from then on, one
 * MCP client's protocol lines, served by the same MCP server as on stdio (./serve.ts) over the
 * ledger the server keeps for the hooks. Loaded on the first such connection only, so a server
 * that answers hooks alone never loads the MCP SDK.
 */
import type * as net from 'node:net';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { answerLedgerRequest, callEnv, type KeptForCalls, type LedgerBackend, type LedgerProgress, type LedgerReply, type LedgerRequest, type Served, userText } from './calls';
import { unreviewedPolicy } from './ledger';
import { errorText } from './log';
import type { McpHello } from './relay';
import { serveOnStdio } from './serve';
import { ServedLedger } from './server';
import { LedgerWatch } from './watch';

/** The ledger server as an MCP connection sees it. */
export interface McpHost {
  workspace: string;
  kept: KeptForCalls;
  /** Each message keeps the server from ending idle; an open connection keeps it too. */
  busy: () => void;
  opened: () => void;
  closed: () => void;
}

/** The kept ledger as the MCP server's backend: its requests in turn, answered in this process. */
class KeptBackend implements LedgerBackend {
  readonly ready: Promise<{ served: Served }>;
  private readonly pending = new Map<number, { resolve: (reply: LedgerReply) => void; onProgress?: (done: number, total: number, message: string) => void }>();
  private readonly cancelled = new Set<number>();
  private queue = Promise.resolve();
  private nextId = 1;

  constructor(
    private readonly kept: KeptForCalls,
    private readonly env: ReturnType<typeof callEnv>,
    served: Served,
    private readonly busy: () => void,
  ) {
    this.ready = Promise.resolve({ served });
  }

  private post = (message: LedgerReply | LedgerProgress): void => {
    const call = this.pending.get(message.id);
    if (message.type === 'progress') return call?.onProgress?.(message.done, message.total, message.message);
    this.pending.delete(message.id);
    this.cancelled.delete(message.id);
    call?.resolve(message);
  };

  request(message: LedgerRequest, onProgress?: (done: number, total: number, message: string) => void): { id: number; done: Promise<LedgerReply> } {
    const id = this.nextId++;
    const done = new Promise<LedgerReply>((resolve) => this.pending.set(id, { resolve, ...(onProgress ? { onProgress } : {}) }));
    this.busy();
    this.queue = this.queue
      .then(async () => {
        if (message.type === 'open') return this.post({ type: 'result', id, result: { file: this.kept.dbFile } });
        await answerLedgerRequest(this.kept, this.env, { ...message, id }, (call) => this.cancelled.has(call), this.post);
      })
      .catch((error: unknown) => this.post({ type: 'result', id, error: errorText(error) }));
    return { id, done };
  }

  cancel(id: number): void {
    if (this.pending.has(id)) this.cancelled.add(id);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Serves one relayed MCP client on `connection` (utf8 strings); `rest` is what came after the hello line. */
export async function serveMcpSession(connection: net.Socket, hello: McpHello, rest: string, host: McpHost): Promise<void> {
  const { file, workspace, unreviewed } = hello.mcp;
  if (path.resolve(workspace) !== path.resolve(host.workspace) || path.resolve(file) !== path.resolve(host.kept.dbFile)) {
    connection.end(`${JSON.stringify({ type: 'startError', message: `this server keeps ${host.kept.dbFile} only` })}\n`);
    return;
  }
  let policy: ReturnType<typeof unreviewedPolicy>;
  try {
    policy = unreviewedPolicy(unreviewed, workspace);
  } catch (error) {
    connection.end(`${JSON.stringify({ type: 'startError', message: userText(error) })}\n`);
    return;
  }
  const served: Served = { file: host.kept.dbFile, workspace: path.resolve(workspace), policy: policy.policy, from: policy.from };
  const worker = new KeptBackend(host.kept, callEnv(host.kept, workspace, policy.policy), served, host.busy);
  const watch = new LedgerWatch(worker);
  watch.watch(served.file);
  const input = new PassThrough();
  if (rest !== '') input.write(Buffer.from(rest, 'utf8'));
  connection.on('data', (chunk: string) => {
    host.busy();
    input.write(Buffer.from(chunk, 'utf8'));
  });
  connection.once('end', () => input.end());
  connection.once('close', () => input.end());
  host.opened();
  connection.write(`${JSON.stringify({ type: 'ready', served })}\n`);
  try {
    await serveOnStdio({ worker, ledger: new ServedLedger({ served }), watch }, () => undefined, { input, output: connection, logToClient: false });
  } finally {
    watch.close();
    host.closed();
    connection.end();
  }
}
