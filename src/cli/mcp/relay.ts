/**
 * `context-ledger mcp` on stdio, as a relay: the process an agent (or VS Code) starts passes
 * the protocol's lines between its stdio and the workspace's ledger server (../hookServer.ts,
 * the one the agent hooks use), which serves them with the same MCP server over the ledger it
 * keeps (./remoteServe.ts). So the process the agent starts holds neither the MCP SDK nor the
 * ledger (about Node's own memory plus the CLI's code), and every MCP server and hook on a
 * workspace shares one ledger in memory. The first one starts the server, as the first hook does.
 *
 * It never makes an MCP server fail: when the server cannot be started or reached, the
 * process serves on its own as before (./serve.ts). When the server goes away later (killed,
 * a failed read), the requests it had not answered get an error, and the process serves the
 * rest of the session on its own, after replaying the client's `initialize` to its own server.
 * `ping` is answered here, so a client's liveness check never waits behind a build.
 */
import * as net from 'node:net';
import * as path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { UserError } from '../../core/model';
import { LEDGER_FILE, LEDGER_FOLDER } from '../../node/files';
import { stringOption } from '../args';
import type { CommandContext } from '../commandContext';
import { cliScript, ensureSocketFolder, serverEnabled, socketPathFor, startServer } from '../hookClient';
import { assertExpandedDb, assertLedgerFile, type LedgerPlace, locateLedger } from './ledger';
import { log } from './log';

/** How long a server just started may take to open the ledger and listen (a large ledger's first open). */
const START_MS = 15_000;
/** How long a listening server may take to say it serves the ledger. */
const HELLO_MS = 10_000;
const RETRY_MS = 100;
/** Lines up to this size are read for what the relay itself answers or remembers; longer ones pass through. */
const INSPECT_BYTES = 64 * 1024;
const REPLAY_ID = 'context-ledger-relay-initialize';

/** What an MCP relay's first line says: which ledger it serves, and its `--unreviewed` flag. */
export interface McpHello {
  mcp: { file: string; workspace: string; unreviewed?: string };
}

/** Where the rest of a session goes when the ledger server went away: this process's own server. */
export interface Takeover {
  /** What the own server reads: the client's `initialize` replayed (its answer dropped), then the client's lines. */
  input: PassThrough;
  /** What the own server writes: to stdout, but for the answer to the replayed `initialize`. */
  output: Writable;
}

function connect(socket: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    let connected = false;
    connection.once('connect', () => {
      connected = true;
      resolve(connection);
    });
    // After connecting, a reset shows as 'close', which the relay handles.
    connection.on('error', () => {
      if (!connected) resolve(undefined);
    });
  });
}

/** The server's first line: `ready`, or why it does not serve this ledger. */
function hello(connection: net.Socket, message: McpHello): Promise<{ rest: Buffer; policy: string } | { error: string }> {
  return new Promise((resolve) => {
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => finish({ error: `no answer in ${HELLO_MS} ms` }), HELLO_MS);
    const finish = (result: { rest: Buffer; policy: string } | { error: string }): void => {
      clearTimeout(timer);
      connection.off('data', onData);
      connection.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf(0x0a);
      if (end < 0) return;
      try {
        const first = JSON.parse(data.subarray(0, end).toString('utf8')) as { type?: string; message?: string; served?: { policy?: string; from?: string } };
        finish(
          first.type === 'ready'
            ? { rest: data.subarray(end + 1), policy: `${first.served?.policy ?? '?'} (${first.served?.from ?? '?'})` }
            : { error: first.message ?? 'the server did not serve the ledger' },
        );
      } catch {
        finish({ error: 'the server answered something else' });
      }
    };
    const onClose = (): void => finish({ error: 'the server closed the connection' });
    connection.on('data', onData);
    connection.on('close', onClose);
    connection.write(`${JSON.stringify(message)}\n`);
  });
}

/** The workspace's ledger server for `place`, started if none runs; undefined when it cannot be had. */
async function ledgerServer(place: LedgerPlace, unreviewed: string | undefined): Promise<{ connection: net.Socket; rest: Buffer; policy: string } | undefined> {
  const script = cliScript();
  if (!serverEnabled() || script === undefined) return undefined;
  // The server keeps the workspace's own ledger: a --db elsewhere is served here, as before.
  if (path.resolve(place.file) !== path.join(path.resolve(place.workspace), LEDGER_FOLDER, LEDGER_FILE)) return undefined;
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
    // A server that ended at once may have lost a race to one that listens.
    if (!connection && exited) connection = await connect(socket);
  }
  if (!connection) {
    log("the workspace's ledger server did not start: this server keeps the ledger itself");
    return undefined;
  }
  const answer = await hello(connection, { mcp: { file: place.file, workspace: place.workspace, ...(unreviewed !== undefined ? { unreviewed } : {}) } });
  if ('error' in answer) {
    connection.destroy();
    log(`the workspace's ledger server did not serve ${place.file} (${answer.error}): this server keeps the ledger itself`);
    return undefined;
  }
  return { connection, ...answer };
}

/** Splits a byte stream into lines, each handed over whole (without its newline). */
function lines(take: (line: Buffer) => void): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  return (chunk) => {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a, from); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      parts.push(chunk.subarray(from, nl));
      take(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      parts = [];
      from = nl + 1;
    }
    if (from < chunk.length) parts.push(chunk.subarray(from));
  };
}

/** A small line's JSON-RPC message, for what the relay reads of it; undefined for anything else. */
function inspect(line: Buffer): { id?: unknown; method?: unknown; jsonrpc?: unknown; params?: unknown } | undefined {
  if (line.length > INSPECT_BYTES) return undefined;
  try {
    const message = JSON.parse(line.toString('utf8')) as { id?: unknown; method?: unknown; jsonrpc?: unknown; params?: unknown } | null;
    return typeof message === 'object' && message !== null && !Array.isArray(message) ? message : undefined;
  } catch {
    return undefined;
  }
}

/** The id at the end of a long answer, as JSON (the SDK writes `{"result":…,"jsonrpc":"2.0","id":…}`). */
const ANSWER_ID = /"id":("(?:[^"\\]|\\.)*"|-?\d+)\}\s*$/;

const isId = (id: unknown): id is string | number => typeof id === 'string' || typeof id === 'number';

/** A well-formed ping request (anything else about it is the server's to answer: ./frames.ts). */
function isPing(message: { id?: unknown; method?: unknown; jsonrpc?: unknown; params?: unknown } | undefined): message is { id: string | number } {
  const params = message?.params;
  return message?.method === 'ping' && message.jsonrpc === '2.0' && isId(message.id) && (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params)));
}

/**
 * Relays stdio to the workspace's ledger server until the client closes stdin (resolves
 * `done`), or until the server goes away (resolves the takeover: the own server serves the
 * rest). Undefined when there is no server to relay to: serve on your own.
 */
export async function relayMcp(context: CommandContext): Promise<{ done: true } | { takeover: Takeover } | undefined> {
  if (context.options.http !== undefined) return undefined;
  const db = stringOption(context.options, 'db');
  assertExpandedDb(db);
  const unreviewed = stringOption(context.options, 'unreviewed');
  if (unreviewed !== undefined && unreviewed !== 'include' && unreviewed !== 'hold') {
    throw new UserError(`--unreviewed must be "include" or "hold", not "${unreviewed}".`, 'For example --unreviewed hold.');
  }
  const located = locateLedger(context.cwd, db);
  if (!('place' in located)) return undefined; // the client's roots may name one: served on its own, as before
  assertLedgerFile(located.place.file);
  const server = await ledgerServer(located.place, unreviewed);
  if (!server) return undefined;
  const { connection } = server;
  log(`serving ${located.place.file} (workspace ${located.place.workspace}, on stdio); unreviewed knowledge: ${server.policy}; the ledger is kept by the workspace's ledger server`, 'info');

  const stdout = process.stdout;
  const write = (line: Buffer | string): void => void stdout.write(typeof line === 'string' ? `${line}\n` : Buffer.concat([line, Buffer.from('\n')]));
  /** The client's requests the server has not answered yet (by JSON id), and its handshake for a replay. */
  const unanswered = new Set<string>();
  const handshake: string[] = [];
  let lost = false;

  return new Promise((resolve) => {
    const fromClient = lines((line) => {
      const message = inspect(line);
      if (isPing(message)) {
        write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
        return;
      }
      if (message?.method === 'initialize' || message?.method === 'notifications/initialized') handshake.push(line.toString('utf8'));
      if (message && typeof message.method === 'string' && isId(message.id)) unanswered.add(JSON.stringify(message.id));
      if (lost) takeover?.input.write(Buffer.concat([line, Buffer.from('\n')]));
      else connection.write(Buffer.concat([line, Buffer.from('\n')]));
    });
    const fromServer = lines((line) => {
      const message = inspect(line);
      // A long answer is not parsed here: its id is the last member the server writes.
      const id = message ? (message.method === undefined && isId(message.id) ? JSON.stringify(message.id) : undefined) : ANSWER_ID.exec(line.subarray(-512).toString('utf8'))?.[1];
      if (id !== undefined) unanswered.delete(id);
      write(line);
    });
    let takeover: Takeover | undefined;
    const onStdin = (chunk: Buffer): void => fromClient(chunk);
    const onEnd = (): void => {
      if (lost) takeover?.input.end();
      else {
        connection.end();
        resolve({ done: true });
      }
    };
    process.stdin.on('data', onStdin);
    process.stdin.once('end', onEnd);
    connection.on('data', fromServer);
    connection.on('error', () => undefined);
    connection.once('close', () => {
      if (process.stdin.readableEnded) return resolve({ done: true });
      lost = true;
      log("the workspace's ledger server stopped: this server keeps the ledger itself for the rest of the session");
      for (const id of unanswered) {
        write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(id) as unknown, error: { code: -32603, message: "The workspace's ledger server stopped before it answered; nothing more is known of this request. Ask again." } }));
      }
      unanswered.clear();
      const input = new PassThrough();
      const output = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          // The answer to the replayed initialize is the own server's, not the client's.
          if (!chunk.includes(`"id":${JSON.stringify(REPLAY_ID)}`)) stdout.write(chunk);
          callback();
        },
      });
      for (const line of handshake) {
        const message = JSON.parse(line) as { id?: unknown };
        input.write(`${JSON.stringify(message.id === undefined ? message : { ...message, id: REPLAY_ID })}\n`);
      }
      takeover = { input, output };
      resolve({ takeover });
    });
    if (server.rest.length > 0) fromServer(server.rest);
  });
}

export function isMcpHello(value: unknown): value is McpHello {
  const mcp = (value as { mcp?: Record<string, unknown> } | null)?.mcp;
  return typeof mcp === 'object' && mcp !== null && typeof mcp.file === 'string' && typeof mcp.workspace === 'string' && (mcp.unreviewed === undefined || typeof mcp.unreviewed === 'string');
}
