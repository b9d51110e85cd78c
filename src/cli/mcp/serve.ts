/**
 * The MCP server's main thread (see ./index.ts): it speaks the protocol through the SDK's
 * serving entries (./server.ts over ./stdio.ts or ./http.ts) and hands every call to the
 * ledger's thread (./worker.ts). Loaded only in the main thread, so the ledger's thread never
 * loads the SDK.
 */
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { stringOption } from '../args';
import type { CommandContext } from '../commandContext';
import { type HttpPlace, parseHttpPlace, serveHttp } from './http';
import { assertExpandedDb, assertLedgerFile, ledgerFromRoots, locateLedger, unreviewedPolicy } from './ledger';
import { createMcpServer, type McpServices, ServedLedger } from './server';
import { BoundedStdioTransport } from './stdio';
import { LedgerWatch } from './watch';
import type { LedgerBackend, Served } from './calls';
import { errorText, log, setLogSink } from './log';
import type { Takeover } from './relay';
import { LedgerWorker } from './worker';

/** How long the client may take to list its roots. */
const ROOTS_TIMEOUT_MS = 5000;

/**
 * With no ledger where the server started, the client's roots (its open folders) may hold
 * one: asked once the session is up, and again when the client says its roots changed.
 */
function followRoots(server: Server, worker: LedgerBackend, ledger: ServedLedger, opened: (served: Served) => void): void {
  const search = async () => {
    if (ledger.served || !server.getClientCapabilities()?.roots) return;
    const { roots } = await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
    const place = ledgerFromRoots(roots.map((r) => r.uri));
    if (!place) {
      log(`no ledger in the client's roots (${roots.map((r) => r.uri).join(', ') || 'none'})`);
      return;
    }
    const reply = await worker.request({ type: 'open', place }).done;
    if (reply.error !== undefined) {
      log(`the ledger at ${place.file} could not be opened: ${reply.error}`);
      return;
    }
    opened(reply.result as Served);
  };
  const start = () => ledger.settle(search().catch((error: unknown) => log(`roots: ${errorText(error)}`)));
  server.oninitialized = start;
  server.setNotificationHandler('notifications/roots/list_changed', () => start());
}

/** Where a stdio session reads and writes: the process's own stdio, or a relayed client's (./remoteServe.ts, ./relay.ts). */
export interface StdioPlace {
  input: Readable;
  output: Writable;
  /** Whether this process's log lines go to the client (a process serving several clients sends them to none). */
  logToClient: boolean;
}

/**
 * Serves on stdio until the client closes it. The SDK's entry picks the connection's era
 * from its first message and pins one server instance for it; a 2025-era instance also
 * carries the server's log lines (`notifications/message`) and asks for the client's roots.
 */
export async function serveOnStdio(services: McpServices, opened: (served: Served) => void, io: StdioPlace = { input: process.stdin, output: process.stdout, logToClient: true }): Promise<void> {
  const { worker, ledger, watch } = services;
  const transport = new BoundedStdioTransport(io.input, io.output, undefined, log);
  transport.observe = (message) => watch.observe(message);
  const handle = serveStdio(
    ({ era }) => {
      const server = createMcpServer(services, era === 'legacy' && !ledger.served);
      const stop = watch.notify({ listChanged: () => server.sendResourceListChanged(), updated: (uri) => server.sendResourceUpdated({ uri }) });
      server.onclose = stop;
      if (era === 'legacy' && io.logToClient) {
        // What the server says on stderr reaches a client that listens for log messages too (2025-11-25).
        setLogSink((text, level) => void server.sendLoggingMessage({ level, logger: 'context-ledger', data: text }).catch(() => undefined));
        if (!ledger.served) followRoots(server, worker, ledger, (served) => {
          opened(served);
          void server.sendResourceListChanged().catch(() => undefined);
        });
      }
      return server;
    },
    { transport, onerror: (error) => log(`protocol: ${errorText(error)}`) },
  );
  await transport.done;
  await handle.close().catch(() => undefined);
}

/** Serves over HTTP until the process is told to stop (SIGINT, SIGTERM). */
async function serveOverHttp(services: McpServices, place: HttpPlace): Promise<void> {
  const serving = await serveHttp(place, () => createMcpServer(services), (message) => services.watch.observe(message), log);
  const stopNotifying = services.watch.notify(serving.notifier);
  log(`listening on ${serving.url} (loopback only)`, 'info');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopNotifying();
  await serving.close();
}

/** Serves until the client closes stdio (or, over HTTP, until the process is told to stop). */
export async function serveMcp(context: CommandContext, takeover?: Takeover): Promise<number> {
  // Checked here too, before the worker opens it, so a bad flag or file never starts a server.
  const db = stringOption(context.options, 'db');
  assertExpandedDb(db);
  const httpOption = stringOption(context.options, 'http');
  const place = httpOption === undefined ? undefined : parseHttpPlace(httpOption);
  const located = locateLedger(context.cwd, db);
  if ('place' in located) {
    unreviewedPolicy(stringOption(context.options, 'unreviewed'), located.place.workspace);
    assertLedgerFile(located.place.file);
  } else unreviewedPolicy(stringOption(context.options, 'unreviewed'), context.cwd);
  const worker: LedgerBackend = new LedgerWorker(process.argv.slice(2));
  let ledger: ServedLedger;
  try {
    ledger = new ServedLedger(await worker.ready);
  } catch (error) {
    await worker.close().catch(() => undefined);
    throw error;
  }
  const watch = new LedgerWatch(worker);
  const serve = (served: Served, how: string) => {
    ledger.served = served;
    watch.watch(served.file);
    log(`serving ${served.file} (workspace ${served.workspace}, ${how}); unreviewed knowledge: ${served.policy} (${served.from})`, 'info');
  };
  if (ledger.served) serve(ledger.served, place ? 'over HTTP' : 'on stdio');
  else log(ledger.missing);
  const services: McpServices = { worker, ledger, watch };
  try {
    if (place) await serveOverHttp(services, place);
    else await serveOnStdio(services, (served) => serve(served, "found in the client's roots"), takeover && { ...takeover, logToClient: true });
  } finally {
    watch.close();
    await worker.close();
  }
  return 0;
}
