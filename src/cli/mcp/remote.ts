/**
 * The MCP server's ledger in the workspace's ledger server (the one the agent hooks use:
 * ../hookServer.ts, ./remoteServe.ts) instead of a worker thread of its own: the process the
 * agent starts keeps the protocol (the SDK, stdio) and sends each ledger request over the
 * server's socket, so several agents' MCP servers and the hooks on one workspace share one
 * ledger in memory. The first one starts the server, as the first hook does.
 *
 * It never makes an MCP server fail: when the server cannot be started or reached, the MCP
 * server opens its own worker thread as before (./worker.ts); when the server goes away later
 * (killed, a failed refresh), the calls in flight are answered with an error and every later
 * one goes to a worker thread of its own.
 */
import * as net from 'node:net';
import * as path from 'node:path';
import { ensureSocketFolder, serverEnabled, socketPathFor, startServer } from '../hookClient';
import type { LedgerBackend, LedgerProgress, LedgerReply, LedgerRequest, Served } from './calls';
import type { LedgerPlace } from './ledger';
import type { McpHello } from './remoteServe';
import { LedgerWorker, log } from './worker';

/** How long a server just started may take to open the ledger and listen (a large ledger's first open). */
const START_MS = 15_000;
/** How long a listening server may take to say it serves the ledger. */
const HELLO_MS = 10_000;
const RETRY_MS = 100;

/** The bundled CLI this process runs (the server runs the same one); undefined when unbundled (tests of the sources). */
function cliScript(): string | undefined {
  const main = require.main?.filename;
  return main !== undefined && path.basename(main) === 'cli.js' ? main : undefined;
}

function connect(socket: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    connection.once('connect', () => {
      connection.removeAllListeners('error');
      resolve(connection);
    });
    connection.once('error', () => resolve(undefined));
  });
}

/** Waits for the server's first line: `ready` (with the ledger it serves) or `startError`. */
function hello(connection: net.Socket, message: McpHello): Promise<{ served: Served; rest: string } | { error: string }> {
  return new Promise((resolve) => {
    let data = '';
    const timer = setTimeout(() => finish({ error: `no answer in ${HELLO_MS} ms` }), HELLO_MS);
    const finish = (result: { served: Served; rest: string } | { error: string }): void => {
      clearTimeout(timer);
      connection.off('data', onData);
      connection.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: string): void => {
      data += chunk;
      const end = data.indexOf('\n');
      if (end < 0) return;
      try {
        const first = JSON.parse(data.slice(0, end)) as { type?: string; served?: Served; message?: string };
        if (first.type === 'ready' && first.served) finish({ served: first.served, rest: data.slice(end + 1) });
        else finish({ error: first.message ?? 'the server did not serve the ledger' });
      } catch {
        finish({ error: 'the server answered something else' });
      }
    };
    const onClose = (): void => finish({ error: 'the server closed the connection' });
    connection.setEncoding('utf8');
    connection.on('data', onData);
    connection.on('close', onClose);
    connection.write(`${JSON.stringify(message)}\n`);
  });
}

/**
 * The workspace's ledger server for the ledger at `place`, started if none runs; undefined
 * when it is turned off (`CONTEXT_LEDGER_HOOK_SERVER=off`), cannot run (not the bundled CLI,
 * a `--db` other than the workspace's own ledger), or does not answer in time.
 */
export async function remoteLedger(place: LedgerPlace, unreviewed: string | undefined, argv: readonly string[]): Promise<RemoteLedger | undefined> {
  const script = cliScript();
  if (!serverEnabled() || script === undefined) return undefined;
  if (path.resolve(place.file) !== path.join(path.resolve(place.workspace), '.context-ledger', 'ledger.db')) return undefined;
  let socket: string;
  try {
    ensureSocketFolder();
    socket = socketPathFor(place.workspace, script);
  } catch (error) {
    log(`not using the workspace's ledger server: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  let connection = await connect(socket);
  if (!connection) {
    const child = startServer(script, place.workspace);
    let exited = child === undefined;
    child?.once('exit', () => (exited = true));
    const until = Date.now() + START_MS;
    while (!connection && !exited && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      connection = await connect(socket);
    }
    // A server that ended at once (no ledger to keep) may still have lost a race to one that listens.
    if (!connection && exited) connection = await connect(socket);
  }
  if (!connection) {
    log("the workspace's ledger server did not start: this server opens the ledger itself");
    return undefined;
  }
  const answer = await hello(connection, { mcp: { file: place.file, workspace: place.workspace, ...(unreviewed !== undefined ? { unreviewed } : {}) } });
  if ('error' in answer) {
    connection.destroy();
    log(`the workspace's ledger server did not serve ${place.file} (${answer.error}): this server opens the ledger itself`);
    return undefined;
  }
  return new RemoteLedger(connection, answer.served, answer.rest, argv);
}

interface Pending {
  resolve: (reply: LedgerReply) => void;
  onProgress?: (done: number, total: number, message: string) => void;
  /** The id the worker thread gave it, once the call went there. */
  local?: number;
}

/** The workspace's ledger server, from the MCP server's side: the same requests as its worker thread. */
export class RemoteLedger implements LedgerBackend {
  readonly ready: Promise<{ served?: Served }>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private connection: net.Socket | undefined;
  private fallback: LedgerWorker | undefined;
  private closing = false;

  constructor(
    connection: net.Socket,
    served: Served,
    rest: string,
    private readonly argv: readonly string[],
  ) {
    this.connection = connection;
    this.ready = Promise.resolve({ served });
    let data = rest;
    const drain = (): void => {
      let end: number;
      while ((end = data.indexOf('\n')) >= 0) {
        const line = data.slice(0, end);
        data = data.slice(end + 1);
        if (line.trim() !== '') this.take(line);
      }
    };
    connection.on('data', (chunk: string) => {
      data += chunk;
      drain();
    });
    connection.on('error', () => undefined);
    connection.on('close', () => this.lost());
    drain();
  }

  private take(line: string): void {
    let message: LedgerReply | LedgerProgress;
    try {
      message = JSON.parse(line) as LedgerReply | LedgerProgress;
    } catch {
      return;
    }
    const call = this.pending.get(message.id);
    if (!call) return;
    if (message.type === 'progress') return call.onProgress?.(message.done, message.total, message.message);
    this.pending.delete(message.id);
    call.resolve(message);
  }

  /** The server went away: what it was answering is told so; what comes next goes to a worker thread of this process. */
  private lost(): void {
    if (!this.connection) return;
    this.connection = undefined;
    if (this.closing) return;
    log("the workspace's ledger server stopped: this server opens the ledger itself from now on");
    for (const [id, call] of this.pending) {
      if (call.local === undefined) call.resolve({ type: 'result', id, error: "the workspace's ledger server stopped before it answered" });
    }
    this.pending.clear();
  }

  private worker(): LedgerWorker {
    this.fallback ??= new LedgerWorker(this.argv);
    return this.fallback;
  }

  request(message: LedgerRequest, onProgress?: (done: number, total: number, message: string) => void): { id: number; done: Promise<LedgerReply> } {
    const id = this.nextId++;
    const done = new Promise<LedgerReply>((resolve) => this.pending.set(id, { resolve, ...(onProgress ? { onProgress } : {}) }));
    if (this.connection) {
      this.connection.write(`${JSON.stringify({ ...message, id })}\n`);
      return { id, done };
    }
    const worker = this.worker();
    const call = this.pending.get(id)!;
    worker.ready.then(
      () => {
        const local = worker.request(message, onProgress);
        call.local = local.id;
        void local.done.then((reply) => {
          this.pending.delete(id);
          call.resolve({ ...reply, id });
        });
      },
      (error: unknown) => {
        this.pending.delete(id);
        call.resolve({ type: 'result', id, error: error instanceof Error ? error.message : String(error) });
      },
    );
    return { id, done };
  }

  cancel(id: number): void {
    const call = this.pending.get(id);
    if (call?.local !== undefined) this.fallback?.cancel(call.local);
    else this.connection?.write(`${JSON.stringify({ type: 'cancel', id })}\n`);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.connection?.end();
    this.connection = undefined;
    await this.fallback?.close();
  }
}
