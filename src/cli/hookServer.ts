/**
 * The workspace's ledger server: one background process per workspace that keeps its ledger
 * open for the agent hooks and the MCP servers on stdio (their relays: ./mcp/relay.ts, served by
 * ./mcp/remoteServe.ts), so every front end of the workspace reads one ledger in memory, and a
 * hook answers in the time of a warm build instead of opening sql.js, reading the
 * database and indexing every artifact again for each prompt and each write (about a second
 * at 10,000 artifacts; npm run bench). The first hook of a workspace starts it and answers
 * on its own; the next ones ask it over a socket only its user can open. It brings the ledger
 * up to date before an answer when a file it follows changed (another process's write, the
 * Markdown mirror, a knowledge file; told by file events: ledgerWatch.ts), answers one
 * hook or MCP request at a time, and ends after 20 idle minutes (not while an MCP client is
 * connected), when its ledger goes away, or when the CLI
 * that started it is rebuilt (the socket's name carries the CLI's path and time).
 * `CONTEXT_LEDGER_HOOK_SERVER=off` turns it off: every hook then opens the ledger itself.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { assembleContext } from '../core/assemble';
import { appendHookLog } from '../node/hooks/hookFiles';
import type { LedgerStore } from '../core/store';
import { type LedgerWatch, watchLedger } from '../node/hooks/ledgerWatch';
import type { LedgerSession } from '../node/session';
import { type CommandContext, openSession } from './commandContext';
import { type HookJob, askServer, ensureSocketFolder, jobWorkspace, socketPathFor } from './hookClient';
import { runHookJob } from './hookRun';
import type { McpHost } from './mcp/remoteServe';
import { isMcpHello } from './mcp/relay';

const IDLE_MS = 20 * 60 * 1000;
/** How often the server checks that its ledger is still there. */
const CHECK_MS = 30 * 1000;
/** A connection that sends no whole job in this time is dropped. */
const READ_MS = 2000;

function idleMs(): number {
  const raw = Number(process.env.CONTEXT_LEDGER_HOOK_SERVER_IDLE_MS);
  return Number.isFinite(raw) && raw > 0 ? raw : IDLE_MS;
}

async function listen(server: net.Server, socket: string, job: HookJob): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket, () => {
          server.off('error', reject);
          resolve();
        });
      });
      if (process.platform !== 'win32') fs.chmodSync(socket, 0o600);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      // Another server listens already (two first hooks at once): it serves; this one ends.
      if ((await askServer(socket, job).catch(() => null)) !== undefined) return false;
      fs.rmSync(socket, { force: true }); // left by a server that was killed
    }
  }
  return false;
}

interface KeptLedger {
  readonly file: string;
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T>;
  /** Through the session's one write path, in turn with the reads. */
  write<T>(fn: (store: LedgerStore) => T): Promise<T>;
  /** Reads in what the watch saw change, now; true when the ledger changed. */
  refresh(): Promise<boolean>;
  /** The ms the last read spent bringing the ledger up to date first (undefined: it did not need to). */
  readonly lastRefreshMs: number | undefined;
  close(): void;
}

/** How long after a file event the server reads the change in on its own, so the next hook need not wait for it. */
const BACKGROUND_REFRESH_MS = 300;

/**
 * The ledger kept open: its session's refresh (a stamp of every file it follows) runs only when
 * the watch saw a change, so an answer otherwise reads the index as the last refresh left it.
 * A change is read in shortly after it happens (a pull, a teammate's edit), before the next hook
 * asks; a background refresh that finds nothing new (the refresh's own writes to the database)
 * schedules no other until a hook has been answered, so the server never keeps itself busy.
 * One refresh or read at a time: none swaps the store under another.
 */
async function keepLedger(context: CommandContext): Promise<KeptLedger> {
  const session: LedgerSession = await openSession(context, false);
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
  let failed = false;
  let quiet = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRefreshMs: number | undefined;
  const refreshIfChanged = async (): Promise<{ ms: number; changed: boolean } | undefined> => {
    if (!watch.changed && !failed) return undefined;
    const started = Date.now();
    // The files the events named (undefined after a failure, or when the watch cannot name them all: every file is looked at).
    const named = failed ? undefined : watch.changedFiles;
    watch.markClean();
    failed = true; // until it succeeds: a refresh that threw leaves the index not to be trusted
    const changed = await session.refresh(named);
    failed = false;
    watch.rewatch(changed ? await session.followedKnowledgeFiles() : undefined);
    return { ms: Date.now() - started, changed };
  };
  const inBackground = (): void => {
    if (quiet || closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      void serial(async () => {
        const refreshed = await refreshIfChanged();
        if (refreshed !== undefined && !refreshed.changed) quiet = true;
      }).catch(() => undefined); // the next hook's read refreshes again and reports it
    }, BACKGROUND_REFRESH_MS);
    timer.unref();
  };
  // Watching from before the first refresh: a change during it is seen at the next answer.
  const watch: LedgerWatch = watchLedger(session.workspace, path.dirname(session.dbFile), await session.followedKnowledgeFiles(), inBackground);
  return {
    file: session.dbFile,
    get lastRefreshMs() {
      return lastRefreshMs;
    },
    read(fn) {
      return serial(async () => {
        // File events that arrived with the job are handled first (a pull just before a prompt).
        await new Promise((resolve) => setImmediate(resolve));
        quiet = false;
        lastRefreshMs = (await refreshIfChanged())?.ms;
        // Refreshed just now if the watch saw a change: the session need not stat every file again.
        return session.readAsIs(fn);
      });
    },
    write(fn) {
      return serial(async () => {
        quiet = false;
        return session.write(fn);
      });
    },
    refresh() {
      return serial(async () => {
        quiet = false;
        return (await refreshIfChanged())?.changed ?? false;
      });
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watch.close();
      session.close();
    },
  };
}

/** `context-ledger hook --serve`, run in the workspace: serves its hooks until idle. */
export async function serveHooks(context: CommandContext, script: string): Promise<number> {
  ensureSocketFolder();
  const workspace = jobWorkspace({ agent: 'claude-code', event: 'session-start', payload: {}, cwd: context.cwd, showCommand: '' });
  const socket = socketPathFor(workspace, script);
  let kept: KeptLedger;
  try {
    kept = await keepLedger({ ...context, err: () => undefined });
  } catch (error) {
    // No ledger to keep (a corrupt one was moved aside by the open, as every command does): hooks answer on their own.
    appendHookLog(workspace, { at: new Date().toISOString(), agent: '-', event: 'server', outcome: 'error', ms: 0, detail: `hook server not started: ${error instanceof Error ? error.message : String(error)}` });
    return 0;
  }
  let queue: Promise<unknown> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  /** MCP servers connected now: the server does not end idle while one is. */
  let mcpConnections = 0;
  const mcpHost: McpHost = {
    workspace,
    kept: { dbFile: kept.file, access: { read: (fn) => kept.read(fn), write: (fn) => kept.write(fn) }, refresh: () => kept.refresh() },
    busy: () => resetIdle(),
    opened: () => void mcpConnections++,
    closed: () => {
      mcpConnections--;
      resetIdle();
    },
  };
  const server = net.createServer((connection) => {
    resetIdle();
    let data = '';
    connection.setEncoding('utf8');
    connection.setTimeout(READ_MS, () => connection.destroy());
    const onData = (chunk: string): void => {
      data += chunk;
      if (!data.includes('\n')) return;
      connection.setTimeout(0);
      connection.off('data', onData);
      let job: HookJob;
      try {
        const first: unknown = JSON.parse(data.slice(0, data.indexOf('\n')));
        // An MCP server's ledger requests: the connection is theirs from now on.
        if (isMcpHello(first)) {
          const rest = data.slice(data.indexOf('\n') + 1);
          // Loaded on the first MCP client only: a server that answers hooks alone never loads the MCP SDK.
          void import('./mcp/remoteServe.js').then((m) => m.serveMcpSession(connection, first, rest, mcpHost)).catch(() => connection.destroy());
          return;
        }
        job = first as HookJob;
      } catch {
        connection.end(`${JSON.stringify({ error: 'not a hook job' })}\n`);
        return;
      }
      if (jobWorkspace(job) !== workspace) {
        connection.end(`${JSON.stringify({ error: `this server answers for ${workspace} only` })}\n`);
        return;
      }
      const answered = queue.then(async () => {
        const cpu = process.cpuUsage();
        const answer = await runHookJob(job, (_ctx, fn) => kept.read(fn));
        const used = process.cpuUsage(cpu);
        const refreshMs = kept.lastRefreshMs;
        return { ...answer, entry: { ...answer.entry, server: true, cpuMs: Math.round((used.user + used.system) / 1000), ...(refreshMs !== undefined ? { refreshMs } : {}) } };
      });
      queue = answered.catch(() => undefined);
      answered.then(
        (answer) => connection.end(`${JSON.stringify({ answer })}\n`),
        (error: unknown) => {
          // A ledger that failed to read (replaced by a corrupt file, moved): this server's copy is not to be trusted further.
          const message = error instanceof Error ? error.message : String(error);
          connection.end(`${JSON.stringify({ error: message })}\n`, () => stop(`a hook failed: ${message}`));
        },
      );
    };
    connection.on('data', onData);
    connection.on('error', () => undefined);
  });
  const stop = (why: string): void => {
    appendHookLog(workspace, { at: new Date().toISOString(), agent: '-', event: 'server', outcome: 'nothing', ms: 0, detail: `hook server stopped: ${why}` });
    server.close();
    kept.close();
    process.exit(0);
  };
  const resetIdle = (): void => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => (mcpConnections > 0 ? resetIdle() : stop('idle')), idleMs());
  };
  if (!(await listen(server, socket, { agent: 'claude-code', event: 'session-start', payload: {}, cwd: workspace, showCommand: '' }))) {
    kept.close();
    return 0;
  }
  resetIdle();
  // Warm: the first build opens the tokenizer and indexes every artifact; hooks that come meanwhile wait for it, then find it done.
  queue = kept.read((store) => assembleContext(store, { budget: 500, log: false, task: { title: 'warm up', labels: [] }, paths: [] })).catch(() => undefined);
  setInterval(() => {
    if (!fs.existsSync(kept.file)) stop('its ledger is gone');
  }, CHECK_MS).unref();
  process.on('SIGTERM', () => stop('terminated'));
  return new Promise<number>(() => undefined);
}
