/**
 * `context-ledger mcp`: the agent tools (src/core/agentTools.ts) as a Model Context
 * Protocol server on stdio, for agents outside VS Code (Claude Code, Cline, Cursor, ...).
 *
 * The main thread speaks the protocol (./server.ts over ./stdio.ts), a worker owns the
 * ledger (./worker.ts). Standard output carries protocol messages only: everything else
 * goes to stderr. Reads see the freshest file on disk; writes go through LedgerFile.write
 * (locked, atomic), and everything an agent writes is stamped unreviewed (channel "mcp").
 */
import { isMainThread, workerData } from 'node:worker_threads';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { stringOption } from '../args';
import type { Command } from '../commandContext';
import { assertExpandedDb, assertLedgerFile, ledgerFromRoots, locateLedger, unreviewedPolicy } from './ledger';
import { ARTIFACT_TEMPLATE, createMcpServer, ServedLedger } from './server';
import { BoundedStdioTransport } from './stdio';
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
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => start());
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
        'Agent-written knowledge nobody approved: include it in build_context under an "unreviewed" marker, or hold it back (the reviewed version stays in). ' +
        'Default: the workspace\'s contextLedger.agent.unreviewed in .vscode/settings.json, else include.',
    },
  },
  positionals: [0, 0],
  details:
    'Tools: build_context, get_artifact, search_artifacts, create_artifact, propose_version, propose_supersession, explain, which. ' +
    `Resources: ${ARTIFACT_TEMPLATE}. Prompts: context, remember, explain. ` +
    'Knowledge written through it is marked unreviewed; see `context-ledger inbox`. The workspace is the folder holding the ledger. ' +
    'With no ledger there, it creates none: it says so in every answer and looks in the client\'s roots. Logs go to stderr. See docs/mcp.md.',
  async run(context) {
    // Standard output belongs to the protocol: anything else that prints goes to stderr.
    console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(' '));
    if (!isMainThread && (workerData as Partial<WorkerSetup> | undefined)?.mcpWorker) return runWorker(context, workerData as WorkerSetup);

    // Checked here too, before the worker opens it, so a bad flag or file never starts a server.
    const db = stringOption(context.options, 'db');
    assertExpandedDb(db);
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
    const { server, watch } = createMcpServer(worker, ledger);
    // What the server says on stderr reaches a client that listens for log messages too (2025-11-25).
    setLogSink((text, level) => void server.sendLoggingMessage({ level, logger: 'context-ledger', data: text }).catch(() => undefined));
    const serve = (served: Served, how: string) => {
      ledger.served = served;
      watch.watch(served.file);
      log(`serving ${served.file} (workspace ${served.workspace}, ${how}); unreviewed knowledge: ${served.policy} (${served.from})`, 'info');
    };
    if (ledger.served) serve(ledger.served, 'on stdio');
    else {
      log(ledger.missing);
      followRoots(server, worker, ledger, (served) => {
        serve(served, "found in the client's roots");
        void server.sendResourceListChanged().catch(() => undefined);
      });
    }
    const transport = new BoundedStdioTransport(process.stdin, process.stdout, undefined, log);
    const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    await server.connect(transport);
    await closed;
    watch.close();
    await server.close().catch(() => undefined);
    await worker.close();
    return 0;
  },
};
