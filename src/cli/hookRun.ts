/**
 * One hook answer, start to end: find the workspace and its ledger (a fresh clone builds it
 * from the Markdown mirror, as every command does), read what this agent session was
 * already given, build with the one `assembleContext()` what the agent does not have yet,
 * and shape it as the agent's hook output. Runs in a worker thread (hookCommand.ts keeps
 * the clock on the main thread) or inline.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { assembleContext, redactOutgoing } from '../core/assemble';
import type { AssembleResult } from '../core/assemble/types';
import { CONTEXT_CHAR_LIMIT, type HookAgent, type HookEvent, forgetsAtNextPrompt, hookOutput, writeMoment, writesFile } from '../core/hooks/agents';
import { cappedParts, nativelyLoaded } from '../core/hooks/nativeLoading';
import { DEFAULT_HOOK_BUDGETS, type HookBuildInput, afterAnswer, forgetTurnContext, hookRequest, newSession } from '../core/hooks/session';
import { UserError } from '../core/model';
import { defaultDatabasePath } from '../node/files';
import { type HookLogEntry, pruneHookSessions, readHookSession, writeHookSession } from '../node/hooks/hookFiles';
import { mirrorHasFiles } from '../node/artifactFolder';
import type { LedgerStore } from '../core/store';
import { type CommandContext, openSession } from './commandContext';
import { type HookAnswer, type HookJob, jobCwd, jobWorkspace } from './hookClient';

export type { HookAnswer, HookJob } from './hookClient';

const EVENT_WORDS: Readonly<Record<HookEvent, string>> = {
  'session-start': 'for this session',
  prompt: 'for this prompt',
  'pre-write': 'for the file about to be written',
  'post-compact': 'that still applies after compaction',
};

const AGENT_NAMES: Readonly<Record<HookAgent, string>> = { 'claude-code': 'Claude Code', codex: 'Codex', 'gemini-cli': 'Gemini CLI', 'copilot-cli': 'Copilot CLI' };

/** A workspace-relative path for a file the agent names, or undefined outside the workspace (never followed). */
function insideWorkspace(workspace: string, cwd: string, file: string): string | undefined {
  const relative = path.relative(workspace, path.resolve(cwd, file));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

/** Codex's capped AGENTS.md: the files from the workspace root down to its folder, read in that order. */
function codexLoadedParts(workspace: string, cwdRelative: string): (p: string) => string | undefined {
  const folders = [''];
  const parts = cwdRelative === '' ? [] : cwdRelative.split('/');
  for (let i = 1; i <= parts.length; i++) folders.push(parts.slice(0, i).join('/'));
  const files: Array<{ path: string; text: string }> = [];
  for (const folder of folders) {
    const rel = folder === '' ? 'AGENTS.md' : `${folder}/AGENTS.md`;
    try {
      const abs = path.join(workspace, rel);
      if (fs.lstatSync(abs).isFile()) files.push({ path: rel, text: fs.readFileSync(abs, 'utf8') });
    } catch {
      // No AGENTS.md in this folder.
    }
  }
  const kept = cappedParts(files);
  return (p) => kept.get(p);
}

function header(job: HookJob, result: AssembleResult, file: string | undefined): string {
  // The path is the agent's, but it leaves through the ledger's answer: masked like the rest (a token pasted into a folder name).
  const what = job.event === 'pre-write' && file !== undefined ? `for ${redactOutgoing(file)}, ${writeMoment(job.agent) === 'before' ? 'about to be written' : 'just written'}` : EVENT_WORDS[job.event];
  const lines = [`Project knowledge from Context Ledger ${what} (${result.tokensUsed} tokens; what ${AGENT_NAMES[job.agent]} loads itself and what this session already received are left out).`];
  if (result.items.some((i) => i.mode !== 'full')) lines.push(`An item cut short ends in ledger://artifact/<id>: \`${job.showCommand} show <id>\` prints it whole.`);
  return `${lines.join('\n')}\n\n`;
}

/**
 * Characters of answer per token of budget, as the last answer built from each store came out
 * (the hook server keeps its store): the next build starts at the budget whose text fits the
 * agent's character limit, instead of building at the full budget, finding it too long and
 * building again (a prompt's 2,000 tokens ran past Claude Code's 10,000 characters on every
 * answer at 10,000 artifacts: two whole builds each).
 */
const charsPerBudgetToken = new WeakMap<LedgerStore, number>();

/** A guess that came out shorter than this share of the limit is raised: it was too low for this answer. */
const TOO_SHORT = 0.85;

/**
 * Builds within the budget, then within the agent's character limit: a text over the limit
 * (dense Markdown counts fewer characters to a token) is built again at a budget scaled down to
 * fit. The first budget comes from the store's last answer when that says the full budget would
 * run over; a guess that came out far shorter than the limit is scaled up again, never past the budget.
 */
async function buildWithin(store: LedgerStore, input: HookBuildInput, job: HookJob, file: string | undefined, limit: number) {
  const scaled = (budget: number, chars: number): number => Math.min(input.budget, Math.floor((budget * limit * 0.95) / chars));
  const density = charsPerBudgetToken.get(store);
  let budget = density === undefined ? input.budget : Math.min(input.budget, Math.floor((limit * 0.95) / density));
  let mayRaise = budget < input.budget;
  let fitted: { result: AssembleResult; text: string } | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await assembleContext(store, hookRequest({ ...input, budget }));
    const text = result.items.length === 0 ? '' : `${header(job, result, file)}${result.text.trim()}`;
    if (text !== '') charsPerBudgetToken.set(store, text.length / budget);
    if (text.length > limit) {
      if (fitted !== undefined && fitted.text !== '') return fitted; // raised past the limit: the guess stands
      budget = scaled(budget, text.length);
      mayRaise = false;
      continue;
    }
    if (!mayRaise || text.length >= limit * TOO_SHORT) return { result, text };
    // The guess came out short of the limit: this answer is less dense than the last one.
    const raised = text === '' ? input.budget : scaled(budget, text.length);
    fitted = { result, text };
    mayRaise = false;
    if (raised <= budget) return fitted;
    budget = raised;
  }
  return fitted ?? { result: undefined, text: '' };
}

/** Reads the ledger for one answer: by default opened and closed again (`readOnce`); the hook server passes its kept ledger. */
export type LedgerReader = <T>(context: CommandContext, fn: (store: LedgerStore) => Promise<T>) => Promise<T>;

/**
 * A hook answered without the server opens the ledger, reads, and keeps what the build counted
 * (the token counts of what it rendered; a hook's build logs nothing, so no write saved them):
 * without them every such hook loaded the tokenizer (~0.3 s at 10,000 artifacts) to count the
 * same texts again. Keeping them is best effort and never waits on a writer.
 */
async function readOnce<T>(context: CommandContext, fn: (store: LedgerStore) => Promise<T>): Promise<T> {
  const session = await openSession(context);
  try {
    const value = await session.read(fn);
    await session.saveDerived().catch(() => undefined);
    return value;
  } finally {
    session.close();
  }
}

export async function runHookJob(job: HookJob, read: LedgerReader = readOnce): Promise<HookAnswer> {
  const started = performance.now();
  // The time the answer is built for (recency, the session's times); the log keeps the real time.
  const now = job.now !== undefined ? new Date(job.now) : new Date();
  const agentCwd = jobCwd(job);
  const workspace = jobWorkspace(job);
  const entry = (outcome: HookLogEntry['outcome'], more: Partial<HookLogEntry> = {}): HookLogEntry => ({
    at: new Date().toISOString(),
    agent: job.agent,
    event: job.event,
    outcome,
    ms: Math.round(performance.now() - started),
    ...(job.payload.sessionId !== undefined ? { session: job.payload.sessionId } : {}),
    workspace,
    ...more,
  });
  const notes: string[] = [];
  const file = job.payload.filePath === undefined ? undefined : insideWorkspace(workspace, agentCwd, job.payload.filePath);
  if (job.event === 'pre-write' && !writesFile(job.agent, job.payload.toolName)) {
    return { output: '', workspace, entry: entry('nothing', { detail: `${job.payload.toolName ?? 'the tool'} writes no file` }) };
  }
  if (job.event === 'pre-write' && file === undefined) {
    return { output: '', workspace, entry: entry('nothing', { detail: job.payload.filePath === undefined ? 'no file in the payload' : `${job.payload.filePath} is outside the workspace` }) };
  }
  // No ledger and no mirror to build one from: nothing to open (and no ledger folder to make).
  const found = job.db === undefined ? defaultDatabasePath(agentCwd) : undefined;
  if (found !== undefined && !found.found && !mirrorHasFiles(found.file)) {
    return { output: '', workspace, entry: entry('no-ledger', { detail: `No ledger from ${agentCwd} up: run \`context-ledger import-folder\` (or \`init\`) in the project.` }) };
  }
  const sessionId = job.payload.sessionId;
  const stored = (sessionId !== undefined ? readHookSession(workspace, job.agent, sessionId) : undefined) ?? newSession(now);
  const session = job.event === 'prompt' ? forgetTurnContext(stored, forgetsAtNextPrompt(job.agent)) : stored;
  const cwdRelative = insideWorkspace(workspace, agentCwd, '.') ?? '';
  const changedFiles = job.event === 'session-start' ? await import('../node/git.js').then((g) => g.branchFiles(workspace)).catch(() => []) : undefined;
  const paths = [...session.files, ...(file !== undefined ? [file] : []), ...(changedFiles ?? [])];
  const input: HookBuildInput = {
    event: job.event,
    payload: job.payload,
    session,
    budget: job.budget ?? DEFAULT_HOOK_BUDGETS[job.event],
    ...(job.now !== undefined ? { now } : {}),
    ...(file !== undefined ? { file } : {}),
    ...(changedFiles !== undefined ? { changedFiles } : {}),
    native: nativelyLoaded({ agent: job.agent, cwd: cwdRelative, paths, ...(job.agent === 'codex' ? { loadedPart: codexLoadedParts(workspace, cwdRelative) } : {}) }),
  };
  const context: CommandContext = { options: job.db !== undefined ? { db: job.db } : {}, positionals: [], cwd: agentCwd, out: () => undefined, err: (text: string) => void notes.push(text) };
  const built = await read(context, (store) => buildWithin(store, input, job, file, CONTEXT_CHAR_LIMIT[job.agent]));
  if (sessionId !== undefined) {
    writeHookSession(workspace, job.agent, sessionId, afterAnswer(input, built.result, now));
    if (job.event === 'session-start') pruneHookSessions(workspace, now);
  }
  const detail = notes.length > 0 ? notes.join(' ') : undefined;
  if (built.text === '') return { output: '', workspace, entry: entry('nothing', detail !== undefined ? { detail } : {}) };
  return {
    output: hookOutput(job.agent, job.event, built.text),
    workspace,
    entry: entry('added', { tokens: built.result?.tokensUsed ?? 0, chars: built.text.length, items: built.result?.items.map((i) => i.id) ?? [], ...(detail !== undefined ? { detail } : {}) }),
  };
}

/** The worker thread's side: run the job it was given, post the answer. */
export function runHookWorker(): void {
  if (isMainThread || !parentPort) return;
  const port = parentPort;
  const job = (workerData as { contextLedgerHook: HookJob }).contextLedgerHook;
  runHookJob(job).then(
    (answer) => port.postMessage({ answer }),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? `${error.message}${error instanceof UserError && error.hint ? ` ${error.hint}` : ''}` : String(error) }),
  );
}
