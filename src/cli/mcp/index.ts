/**
 * `context-ledger mcp`: the agent tools (src/core/agentTools.ts) as a Model Context
 * Protocol server on stdio (or Streamable HTTP on 127.0.0.1 with --http), for agents
 * outside VS Code (Claude Code, Gemini CLI, Cline, Cursor, ...). Both protocol eras are
 * served: 2025-11-25 (and older) after `initialize`, 2026-07-28 per request.
 *
 * The main thread speaks the protocol (./server.ts over ./stdio.ts or ./http.ts, through
 * the SDK's serving entries), a worker owns the ledger (./worker.ts). Standard output
 * carries protocol messages only: everything else goes to stderr. Reads see the freshest
 * file on disk; writes go through LedgerFile.write (locked, atomic), and everything an
 * agent writes is stamped unreviewed (channel "mcp").
 */
import { isMainThread, workerData } from 'node:worker_threads';
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { stringOption } from '../args';
import type { Command } from '../commandContext';
import { type HttpPlace, parseHttpPlace, serveHttp } from './http';
import { assertExpandedDb, assertLedgerFile, ledgerFromRoots, locateLedger, unreviewedPolicy } from './ledger';
import { ARTIFACT_TEMPLATE, createMcpServer, type McpServices, ServedLedger } from './server';
import { BoundedStdioTransport } from './stdio';
import { LedgerWatch } from './watch';
import { errorText, LedgerWorker, log, runWorker, type Served, setLogSink, type WorkerSetup } from './worker';

/** How long the client may take to list its roots. */
const ROOTS_TIMEOUT_MS = 5000;

/**
 * With no ledger where the server started, the client's roots (its open folders) may hold
 * one: asked once the session is up, and again when the client says its roots changed.
 */
function followRoots(server: Server, worker: LedgerWorker, ledger: ServedLedger, opened: (served: Served) => void): void {
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

/**
 * Serves on stdio until the client closes it. The SDK's entry picks the connection's era
 * from its first message and pins one server instance for it; a 2025-era instance also
 * carries the server's log lines (`notifications/message`) and asks for the client's roots.
 */
async function serveOnStdio(services: McpServices, opened: (served: Served) => void): Promise<void> {
  const { worker, ledger, watch } = services;
  const transport = new BoundedStdioTransport(process.stdin, process.stdout, undefined, log);
  transport.observe = (message) => watch.observe(message);
  const handle = serveStdio(
    ({ era }) => {
      const server = createMcpServer(services, era === 'legacy' && !ledger.served);
      const stop = watch.notify({ listChanged: () => server.sendResourceListChanged(), updated: (uri) => server.sendResourceUpdated({ uri }) });
      server.onclose = stop;
      if (era === 'legacy') {
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
    `Resources: ${ARTIFACT_TEMPLATE}. Prompts: context, remember, explain. ` +
    'Knowledge written through it is marked unreviewed; see `context-ledger inbox`. The workspace is the folder holding the ledger. ' +
    'With no ledger there, it creates none: it says so in every answer and looks in the client\'s roots. ' +
    'Speaks MCP 2026-07-28 (no handshake) and 2025-11-25 on the same server. Logs go to stderr. See docs/mcp.md.',
  async run(context) {
    // Standard output belongs to the protocol: anything else that prints goes to stderr.
    console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(' '));
    if (!isMainThread && (workerData as Partial<WorkerSetup> | undefined)?.mcpWorker) return runWorker(context, workerData as WorkerSetup);

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
    const worker = new LedgerWorker(process.argv.slice(2));
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
      else await serveOnStdio(services, (served) => serve(served, "found in the client's roots"));
    } finally {
      watch.close();
      await worker.close();
    }
    return 0;
  },
};
