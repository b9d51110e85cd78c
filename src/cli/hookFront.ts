/**
 * One hook run as the agent waits on it: read the payload, ask the workspace's warm server
 * (hookServer.ts), else answer in a worker thread (hookRun.ts) and start a server for the next
 * hooks; print the agent's output and log what happened. It never blocks or breaks the agent:
 * whatever goes wrong (no ledger, a locked or corrupt one, a slow build, a bad payload) it
 * prints the agent's no-op, exits 0, and says why in the hook log (`context-ledger hook --last`).
 * The clock runs on this thread while the work runs in the worker, so it ends the process in
 * time even while sql.js computes synchronously.
 *
 * Light on purpose: both the CLI's `hook` command and the hook client (hookMain.ts, dist/hook.cjs,
 * what installed hooks run) use it, and the client loads nothing else when the server answers
 * (what only the first hook of a workspace needs is required where it is used: each module costs
 * the waiting agent a few ms).
 */
import type * as ChildProcess from 'node:child_process';
import type * as V8 from 'node:v8';
import type * as WorkerThreads from 'node:worker_threads';
import { type HookAgent, type HookEvent, noOutput, readPayload } from '../core/hooks/agents';
import { UserError } from '../core/model';
import { defaultDatabasePath } from '../node/files';
import { type HookLogEntry, appendHookLog } from '../node/hooks/hookFiles';
import { type HookAnswer, type HookJob, askServer, jobCwd, jobWorkspace, serverEnabled, socketPathFor, startServer } from './hookClient';

/** Well under every agent's own hook timeout (Claude Code 60 s, Copilot CLI 30 s, Gemini CLI 60 s). */
export const DEFAULT_HOOK_TIMEOUT_MS = 4000;
/** A payload larger than this is not read whole (a Write's payload carries the file's content). */
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export interface HookRun {
  agent: HookAgent;
  event: HookEvent;
  cwd: string;
  /** `--budget`, as typed (checked here: a bad one is logged, the agent gets its no-op). */
  budget?: string;
  /** `--now`, as typed (checked here). */
  now?: string;
  db?: string;
  /** The bundled CLI (dist/cli.js) the worker, the server and a background build run; undefined when unbundled (tests). */
  script: string | undefined;
  out(text: string): void;
  /** Answers on this thread: only where there is no bundled CLI to run a worker from. */
  inline(job: HookJob): Promise<HookAnswer>;
}

function timeoutMs(): number {
  const raw = Number(process.env.CONTEXT_LEDGER_HOOK_TIMEOUT_MS);
  return Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_HOOK_TIMEOUT_MS;
}

/** How a model can run this CLI by hand: the same Node and script, by absolute path. */
function showCommand(script: string | undefined): string {
  return script === undefined ? 'context-ledger' : `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`;
}

function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) {
        reject(new UserError(`The hook payload is over ${MAX_PAYLOAD_BYTES} bytes.`));
        process.stdin.destroy();
        return;
      }
      chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

function inWorker(script: string, job: HookJob): Promise<HookAnswer> {
  // A hook's run lives for about a second: V8's optimising compiler for sql.js seldom pays back (see main.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('node:v8') as typeof V8).setFlagsFromString('--liftoff-only');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Worker } = require('node:worker_threads') as typeof WorkerThreads;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { contextLedgerHook: job }, stdout: true, stderr: true });
    worker.once('message', (message: { answer?: HookAnswer; error?: string }) => {
      if (message.answer) resolve(message.answer);
      else reject(new Error(message.error ?? 'the hook worker gave no answer'));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the hook worker stopped (exit ${code}) without an answer`)));
  });
}

function parseNow(raw: string): string {
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw new UserError(`--now is not a date: "${raw}".`);
  return new Date(time).toISOString();
}

function parseBudget(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new UserError(`--budget must be a whole number of tokens, not "${raw}".`);
  return value;
}

/**
 * The workspace's warm server answers when it runs (hookServer.ts); when none does, the hook
 * answers itself and starts one for the next hooks. Only where there is a ledger to keep.
 */
async function fromServer(script: string, job: HookJob): Promise<HookAnswer | undefined> {
  if (!serverEnabled() || job.db !== undefined || !defaultDatabasePath(jobCwd(job)).found) return undefined;
  const workspace = jobWorkspace(job);
  const socket = socketPathFor(workspace, script);
  // A server's error is the answer (logged, the agent's no-op): the server ends on it, and the next hook starts afresh.
  const answer = await askServer(socket, job);
  if (answer !== undefined) return answer;
  startServer(script, workspace);
  return undefined;
}

/**
 * A first hook on a fresh clone of a large ledger may not finish building it in time: a
 * detached `context-ledger list` finishes the build, so the next hook finds it ready.
 */
function finishInBackground(run: HookRun): void {
  if (run.script === undefined) return;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('node:child_process') as typeof ChildProcess).spawn(process.execPath, [run.script, 'list', '--limit', '1', ...(run.db !== undefined ? ['--db', run.db] : [])], { cwd: run.cwd, detached: true, stdio: 'ignore' }).unref();
  } catch {
    // Best effort: the next hook builds it otherwise.
  }
}

/** Runs the hook; always resolves to 0 (an agent's hook must not fail). */
export async function runHook(run: HookRun): Promise<number> {
  const { agent, event } = run;
  // Date, not performance: the latter's module is loaded on first use, a cost for every hook.
  const started = Date.now();
  const base = (outcome: HookLogEntry['outcome'], detail: string): HookLogEntry => ({
    at: new Date().toISOString(),
    agent,
    event,
    outcome,
    ms: Date.now() - started,
    detail,
  });
  let workspace: string | undefined = run.cwd;
  let settled = false;
  const finish = (output: string, entry: HookLogEntry, where: string | undefined): void => {
    if (settled) return;
    settled = true;
    if (output !== '') run.out(output);
    appendHookLog(where, entry);
  };
  const bound = timeoutMs();
  const timer = setTimeout(() => {
    finish(noOutput(agent), base('timeout', `no answer within ${bound} ms; the agent went on without the ledger's context`), workspace);
    finishInBackground(run);
    // The worker may be deep in a synchronous build: the process ends without waiting for it.
    process.exit(0);
  }, bound);
  try {
    const raw = await readStdin();
    let parsed: unknown = {};
    if (raw.trim() !== '') {
      try {
        parsed = JSON.parse(raw);
      } catch (error) {
        finish(noOutput(agent), base('bad-payload', `stdin is not JSON: ${(error as Error).message}`), workspace);
        return 0;
      }
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      finish(noOutput(agent), base('bad-payload', 'stdin is JSON but not an object: not a hook payload'), workspace);
      return 0;
    }
    const payload = readPayload(parsed);
    if (payload.cwd !== undefined) workspace = payload.cwd;
    const job: HookJob = {
      agent,
      event,
      payload,
      cwd: run.cwd,
      showCommand: showCommand(run.script),
      ...(run.db !== undefined ? { db: run.db } : {}),
      ...(run.budget !== undefined ? { budget: parseBudget(run.budget) } : {}),
      ...(run.now !== undefined ? { now: parseNow(run.now) } : {}),
    };
    const { script } = run;
    const answer = script !== undefined ? ((await fromServer(script, job)) ?? (await inWorker(script, job))) : await run.inline(job);
    finish(answer.output === '' ? noOutput(agent) : answer.output, answer.entry, answer.workspace);
  } catch (error) {
    finish(noOutput(agent), base('error', error instanceof Error ? error.message : String(error)), workspace);
  } finally {
    clearTimeout(timer);
  }
  return 0;
}
