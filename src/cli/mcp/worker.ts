/**
 * The ledger's thread. The main thread speaks the protocol and nothing else, so a `ping`, a
 * cancellation or a second request is read at once however long a build takes; this worker
 * (the same CLI command, started again in a worker) owns the ledger: it keeps the store and
 * its search index warm between calls and runs every tool, one call at a time.
 */
import * as path from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';
import { UserError } from '../../core/model';
import { stringOption } from '../args';
import type { CommandContext } from '../commandContext';
import {
  answerLedgerRequest,
  callEnv,
  type KeptForCalls,
  type LedgerBackend,
  type LedgerMessage,
  type LedgerProgress,
  type LedgerReply,
  type LedgerRequest,
  type Served,
  userText,
} from './calls';
import type { LedgerAccess } from '../../core/agentTools';
import { LedgerSession } from '../../node/session';
import { assertLedgerFile, type LedgerPlace, locateLedger, unreviewedPolicy } from './ledger';
import { errorText, log } from './log';

/**
 * Opens the served ledger as every front end does, through the one ledger session: never
 * creating an empty one, but building it from the artifact files of a fresh clone.
 */
async function openServedLedger(place: LedgerPlace, say: (text: string) => void): Promise<LedgerSession> {
  assertLedgerFile(place.file);
  return LedgerSession.open({ cwd: place.workspace, dbFile: place.file, create: false, say });
}

/** Store access for the tools: the session's reads (after following the files) and its one write path. */
function ledgerAccess(session: LedgerSession): LedgerAccess {
  return { read: (fn) => session.read(fn), write: (fn) => session.write(fn) };
}

export type { ArtifactSummary, Served } from './calls';


/** Cancelled call ids, shared with the worker: it can read them in the middle of a synchronous build. */
const CANCEL_SLOTS = 64;

export interface WorkerSetup {
  mcpWorker: true;
  cancelled: SharedArrayBuffer;
}

type ToWorker = LedgerMessage | { type: 'close' };

export type WorkerReply = LedgerReply;

type FromWorker = { type: 'ready'; served?: Served; missing?: string } | { type: 'startError'; message: string } | LedgerProgress | LedgerReply;

function isCancelled(shared: Int32Array, id: number): boolean {
  for (let i = 1; i <= CANCEL_SLOTS; i++) if (Atomics.load(shared, i) === id) return true;
  return false;
}

export async function runWorker(context: CommandContext, setup: WorkerSetup): Promise<number> {
  const port = parentPort!;
  const post = (message: FromWorker) => port.postMessage(message);
  const shared = new Int32Array(setup.cancelled);
  const flag = stringOption(context.options, 'unreviewed');
  let ledger: LedgerSession | undefined;
  let kept: KeptForCalls | undefined;
  let env: ReturnType<typeof callEnv> | undefined;

  const open = async (place: LedgerPlace): Promise<Served> => {
    const unreviewed = unreviewedPolicy(flag, place.workspace);
    // The session follows the files before every read: a fresh clone's artifact files, a pull, a teammate's edit.
    const opened = await openServedLedger(place, log);
    ledger = opened;
    kept = { dbFile: opened.dbFile, access: ledgerAccess(opened), refresh: () => opened.refresh() };
    env = callEnv(kept, place.workspace, unreviewed.policy);
    return { file: opened.dbFile, workspace: path.resolve(place.workspace), policy: unreviewed.policy, from: unreviewed.from };
  };

  try {
    // The workspace is where the ledger is, not where the server was started.
    const located = locateLedger(context.cwd, stringOption(context.options, 'db'));
    if ('place' in located) post({ type: 'ready', served: await open(located.place) });
    else post({ type: 'ready', missing: located.missing });
  } catch (error) {
    post({ type: 'startError', message: userText(error) });
    return 1;
  }

  const handle = async (message: ToWorker): Promise<void> => {
    if (message.type === 'close') {
      ledger?.close();
      port.close();
      return;
    }
    const { id } = message;
    if (message.type === 'open') {
      if (ledger) return post({ type: 'result', id, result: { file: ledger.dbFile } });
      try {
        return post({ type: 'result', id, result: await open(message.place) });
      } catch (error) {
        return post({ type: 'result', id, error: userText(error) });
      }
    }
    if (!env || !kept) return post({ type: 'result', id, error: 'no ledger is open' });
    await answerLedgerRequest(kept, env, message, (call) => isCancelled(shared, call), post);
  };
  // One call at a time, in arrival order: a later call waits for the one before it.
  let queue = Promise.resolve();
  port.on('message', (message: ToWorker) => {
    queue = queue
      .then(() => handle(message))
      .catch((error: unknown) => {
        log(`worker: ${errorText(error)}`);
        if (message.type !== 'close') post({ type: 'result', id: message.id, error: errorText(error) });
      });
  });
  return 0;
}

/** The worker from the main thread's side: calls in, results and progress out. */
export class LedgerWorker implements LedgerBackend {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: WorkerReply) => void; onProgress?: (done: number, total: number, message: string) => void }>();
  private readonly cancelledIds: Int32Array;
  private nextId = 1;
  private cancelCount = 0;
  readonly ready: Promise<{ served?: Served; missing?: string }>;

  constructor(argv: readonly string[]) {
    const cancelled = new SharedArrayBuffer(4 * (CANCEL_SLOTS + 1));
    this.cancelledIds = new Int32Array(cancelled);
    const setup: WorkerSetup = { mcpWorker: true, cancelled };
    // The CLI script this process runs, run again as the `mcp` command inside the worker (see `run`).
    this.worker = new Worker(process.argv[1]!, { argv: [...argv], workerData: setup, stdout: true });
    // The worker's standard output is not the protocol's: anything printed there goes to stderr.
    this.worker.stdout.pipe(process.stderr);
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') resolve(message);
        else if (message.type === 'startError') reject(new UserError(message.message));
        else if (message.type === 'progress') this.pending.get(message.id)?.onProgress?.(message.done, message.total, message.message);
        else {
          const call = this.pending.get(message.id);
          this.pending.delete(message.id);
          call?.resolve(message);
        }
      });
      this.worker.on('error', (error) => {
        log(`worker failed: ${errorText(error)}`);
        reject(error);
      });
      this.worker.on('exit', (code) => {
        for (const [id, call] of this.pending) call.resolve({ type: 'result', id, error: `the ledger worker stopped (exit code ${code})` });
        this.pending.clear();
      });
    });
  }

  request(message: LedgerRequest, onProgress?: (done: number, total: number, message: string) => void): { id: number; done: Promise<WorkerReply> } {
    const id = this.nextId++;
    const done = new Promise<WorkerReply>((resolve) => this.pending.set(id, { resolve, ...(onProgress ? { onProgress } : {}) }));
    this.worker.postMessage({ ...message, id });
    return { id, done };
  }

  cancel(id: number): void {
    Atomics.store(this.cancelledIds, 1 + (this.cancelCount++ % CANCEL_SLOTS), id);
  }

  async close(): Promise<void> {
    this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
    await Promise.race([exited, timeout]);
    await this.worker.terminate();
  }
}
