/**
 * `context-ledger hook <event> --agent <agent>`: what an agent's hook runs. It reads the
 * agent's payload on stdin and prints the agent's hook output on stdout, and it never blocks
 * or breaks the agent: whatever goes wrong (no ledger, a locked or corrupt one, a slow build,
 * a bad payload) it prints the agent's no-op, exits 0, and says why in the hook log
 * (`context-ledger hook --last`). The work runs in a worker thread so that the clock on this
 * thread can end the process in time even while sql.js computes synchronously.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { HOOK_AGENTS, HOOK_EVENTS, type HookAgent, type HookEvent, isHookAgent, isHookEvent, noOutput, readPayload } from '../core/hooks/agents';
import { UserError } from '../core/model';
import { type HookLogEntry, appendHookLog, readHookLog } from '../node/hooks/hookFiles';
import { stringOption } from './args';
import { type Command, type CommandContext, isJson, printJson } from './commandContext';
import { type HookAnswer, type HookJob, askServer, jobCwd, jobWorkspace, serverEnabled, socketPathFor, startServer } from './hookClient';
import { defaultDatabasePath } from '../node/files';

/** Well under every agent's own hook timeout (Claude Code 60 s, Copilot CLI 30 s, Gemini CLI 60 s). */
export const DEFAULT_HOOK_TIMEOUT_MS = 4000;
/** A payload larger than this is not read whole (a Write's payload carries the file's content). */
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

function timeoutMs(): number {
  const raw = Number(process.env.CONTEXT_LEDGER_HOOK_TIMEOUT_MS);
  return Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_HOOK_TIMEOUT_MS;
}

/** The CLI script this process runs, when it is the bundled CLI (the worker runs the same file). */
function cliScript(): string | undefined {
  const main = require.main?.filename;
  return main !== undefined && path.basename(main) === 'cli.js' ? main : undefined;
}

/** How a model can run this CLI by hand: the same Node and script, by absolute path. */
function showCommand(): string {
  const script = cliScript();
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

async function runHook(context: CommandContext, agent: HookAgent, event: HookEvent): Promise<number> {
  const started = performance.now();
  const base = (outcome: HookLogEntry['outcome'], detail: string): HookLogEntry => ({
    at: new Date().toISOString(),
    agent,
    event,
    outcome,
    ms: Math.round(performance.now() - started),
    detail,
  });
  let workspace: string | undefined = context.cwd;
  let settled = false;
  const finish = (output: string, entry: HookLogEntry, where: string | undefined): void => {
    if (settled) return;
    settled = true;
    if (output !== '') context.out(output);
    appendHookLog(where, entry);
  };
  const bound = timeoutMs();
  const timer = setTimeout(() => {
    finish(noOutput(agent), base('timeout', `no answer within ${bound} ms; the agent went on without the ledger's context`), workspace);
    finishInBackground(context);
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
    const budget = stringOption(context.options, 'budget');
    const job: HookJob = {
      agent,
      event,
      payload,
      cwd: context.cwd,
      showCommand: showCommand(),
      ...(stringOption(context.options, 'db') !== undefined ? { db: stringOption(context.options, 'db') } : {}),
      ...(budget !== undefined ? { budget: parseBudget(budget) } : {}),
    };
    const script = cliScript();
    const answer = (script !== undefined ? await fromServer(script, job) : undefined) ?? (script !== undefined ? await inWorker(script, job) : await (await import('./hookRun.js')).runHookJob(job));
    finish(answer.output === '' ? noOutput(agent) : answer.output, answer.entry, answer.workspace);
  } catch (error) {
    finish(noOutput(agent), base('error', error instanceof Error ? error.message : String(error)), workspace);
  } finally {
    clearTimeout(timer);
  }
  return 0;
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

function parseBudget(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new UserError(`--budget must be a whole number of tokens, not "${raw}".`);
  return value;
}

/**
 * A first hook on a fresh clone of a large ledger may not finish building it in time: a
 * detached `context-ledger list` finishes the build, so the next hook finds it ready.
 */
function finishInBackground(context: CommandContext): void {
  const script = cliScript();
  if (script === undefined) return;
  try {
    const db = stringOption(context.options, 'db');
    spawn(process.execPath, [script, 'list', '--limit', '1', ...(db !== undefined ? ['--db', db] : [])], { cwd: context.cwd, detached: true, stdio: 'ignore' }).unref();
  } catch {
    // Best effort: the next hook builds it otherwise.
  }
}

function showLog(context: CommandContext): void {
  const raw = context.positionals[0];
  if (raw !== undefined && !/^\d+$/.test(raw)) throw new UserError(`\`hook --last\` takes a number of entries, not "${raw}".`);
  const count = raw === undefined ? 20 : Number(raw);
  const { file, entries } = readHookLog(context.cwd, count);
  if (isJson(context)) return printJson(context, { file, entries });
  if (entries.length === 0) {
    context.out(`No hook has run here yet (log: ${file}).`);
    return;
  }
  context.out(`Hook log: ${file}`);
  for (const e of entries) {
    const what = e.outcome === 'added' ? `added ${e.tokens ?? 0} tokens (${e.chars ?? 0} chars): ${(e.items ?? []).join(', ')}` : e.outcome;
    context.out(`${e.at}  ${e.agent} ${e.event}  ${e.ms} ms${e.server === true ? ` (hook server, CPU ${e.cpuMs ?? '?'} ms)` : ''}  ${what}${e.detail ? `  — ${e.detail}` : ''}`);
  }
}

export const hookCommand: Command = {
  name: 'hook',
  summary: "Answer an agent's hook: the ledger's context for this moment of its loop, never blocking it.",
  usage: `context-ledger hook <${HOOK_EVENTS.join('|')}> --agent <${HOOK_AGENTS.join('|')}> [--budget <tokens>]   |   context-ledger hook --last [<n>]`,
  positionals: [0, 1],
  options: {
    agent: { type: 'string', value: HOOK_AGENTS.join('|'), description: 'The agent that runs the hook: its payload and output format.' },
    budget: { type: 'string', value: 'tokens', description: 'Tokens the ledger may add at this event (defaults in docs/hooks.md).' },
    serve: { type: 'boolean', description: 'Run the warm server that answers this workspace’s hooks (started by the first hook; see docs/hooks.md).' },
    last: { type: 'boolean', description: 'Print the newest entries of the hook log (`hook --last [<n>]`, default 20): what each hook added, or why it added nothing.' },
  },
  details: 'Reads the payload on stdin, prints the hook output on stdout, always exits 0. Set up with `context-ledger hooks install <agent>`; the reference is docs/hooks.md.',
  async run(context) {
    if (context.options.serve === true) {
      const script = cliScript();
      if (script === undefined) throw new UserError('The hook server runs from the built CLI (dist/cli.js).');
      return (await import('./hookServer.js')).serveHooks(context, script);
    }
    if (context.options.last === true) {
      showLog(context);
      return 0;
    }
    const [event] = context.positionals;
    const agent = stringOption(context.options, 'agent');
    // A person running it by hand gets told; an agent always gets exit 0 (its hook must not fail).
    if (event === undefined || !isHookEvent(event)) throw new UserError(`Name the event: one of ${HOOK_EVENTS.join(', ')}.`, 'For example `context-ledger hook prompt --agent claude-code`.');
    if (agent === undefined || !isHookAgent(agent)) throw new UserError(`--agent must be one of ${HOOK_AGENTS.join(', ')}.`);
    return runHook(context, agent, event);
  },
};
