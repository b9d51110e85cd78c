/**
 * A hook session: what the ledger already gave one agent session (so each prompt and each
 * write adds only what is new), the files it worked on, and its last prompt (the task a
 * write belongs to). Kept per agent session id by src/node/hooks/hookState.ts.
 */
import { STANDING_RULE_TYPES, type Artifact } from '../model';
import type { AssembleRequest, AssembleResult } from '../assemble/types';
import type { HookEvent, HookPayload } from './agents';

export interface HookSession {
  version: 1;
  /** Chain id → the event that gave it (its latest version counts as given). */
  given: Record<string, HookEvent>;
  /** Workspace-relative files in play: git's changed files at the start, then every file written. */
  files: string[];
  lastPrompt?: string;
  updatedAt: string;
}

/** At most this many files in play: a branch of thousands of changed files says little about the task at hand. */
export const MAX_SESSION_FILES = 50;

export function newSession(now: Date): HookSession {
  return { version: 1, given: {}, files: [], updatedAt: now.toISOString() };
}

/** A stored session, checked; undefined when it is not one (a corrupt file starts a new session). */
export function parseSession(raw: unknown): HookSession | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const s = raw as Partial<HookSession>;
  if (s.version !== 1 || s.given === null || typeof s.given !== 'object' || Array.isArray(s.given) || !Array.isArray(s.files)) return undefined;
  const given: Record<string, HookEvent> = {};
  for (const [chain, event] of Object.entries(s.given)) if (typeof event === 'string') given[chain] = event;
  return {
    version: 1,
    given,
    files: s.files.filter((f): f is string => typeof f === 'string').slice(0, MAX_SESSION_FILES),
    ...(typeof s.lastPrompt === 'string' ? { lastPrompt: s.lastPrompt } : {}),
    updatedAt: typeof s.updatedAt === 'string' ? s.updatedAt : new Date(0).toISOString(),
  };
}

/** The session without what the agent no longer holds: what `events` gave (their context lasted one turn). */
export function forgetTurnContext(session: HookSession, events: readonly HookEvent[]): HookSession {
  if (events.length === 0) return session;
  const given = Object.fromEntries(Object.entries(session.given).filter(([, event]) => !events.includes(event)));
  return { ...session, given };
}

/** Default budgets in tokens per event (docs/hooks.md says how they were chosen). */
export const DEFAULT_HOOK_BUDGETS: Readonly<Record<HookEvent, number>> = {
  'session-start': 1500,
  prompt: 2000,
  'pre-write': 800,
  'post-compact': 1500,
};

/** The longest prompt text taken as the task's title; the rest is its description. */
const TITLE_CHARS = 300;
const DESCRIPTION_CHARS = 4000;

function taskOf(prompt: string): AssembleRequest['task'] {
  const text = prompt.trim();
  return text.length <= TITLE_CHARS ? { title: text, labels: [] } : { title: text.slice(0, TITLE_CHARS), description: text.slice(TITLE_CHARS, DESCRIPTION_CHARS), labels: [] };
}

export interface HookBuildInput {
  event: HookEvent;
  payload: HookPayload;
  session: HookSession;
  budget: number;
  /** The file a write is about to change, workspace-relative (pre-write only). */
  file?: string;
  /** git's changed files, workspace-relative (session start only). */
  changedFiles?: readonly string[];
  /** The time the answer is built for (undefined: the current time). */
  now?: Date;
  /** What the agent loads on its own (see nativelyLoaded). */
  native: (artifact: Artifact) => string | undefined;
}

/**
 * The one request a hook event builds with `assembleContext`: its task, its files, and what
 * it leaves out because the reader has it (the agent's own loading, this session's earlier
 * answers) or because the event is not about it (a write hears only of its file's knowledge;
 * after compaction, only rules and pins are given again). No task brief, workflow or
 * instructions layer: the agent has its prompt, and the budget buys knowledge.
 */
export function hookRequest(input: HookBuildInput): AssembleRequest {
  const { event, session, native } = input;
  // Asked of every artifact at every build: a Map, not the stored record (a lookup of a missing key walks its prototype).
  const givenAt = new Map(Object.entries(session.given));
  const given = (a: Artifact): string | undefined => {
    const event = givenAt.get(a.chainId);
    return event === undefined ? undefined : `given at ${event} in this session`;
  };
  const lastPrompt = input.payload.prompt ?? session.lastPrompt;
  let paths: string[] = [...session.files];
  let leaveOut: (a: Artifact) => string | undefined = (a) => native(a) ?? given(a);
  let unmatchedPathArtifacts: 'rules' | 'exclude' = 'rules';
  switch (event) {
    case 'session-start':
      paths = [...new Set([...(input.changedFiles ?? []), ...session.files])].slice(0, MAX_SESSION_FILES);
      break;
    case 'prompt':
      break;
    case 'pre-write':
      paths = input.file === undefined ? [] : [input.file];
      unmatchedPathArtifacts = 'exclude';
      leaveOut = (a) => native(a) ?? given(a) ?? (a.scope === 'path' ? undefined : 'not scoped to the file being written');
      break;
    case 'post-compact':
      // The compaction summarised away what was given: rules and pins count as not given.
      leaveOut = (a) => native(a) ?? (a.pinned || STANDING_RULE_TYPES.has(a.type) ? undefined : 'after compaction only rules and pins are given again');
      break;
  }
  return {
    budget: input.budget,
    paths,
    ...(lastPrompt !== undefined && event !== 'session-start' ? { task: taskOf(lastPrompt) } : {}),
    trigger: `hook:${event}`,
    ...(input.now !== undefined ? { now: input.now } : {}),
    log: false,
    leaveOut,
    options: { includeTaskBrief: false, includeWorkflow: false, includeInstructions: false, unmatchedPathArtifacts },
  };
}

/** The session after an answer: what it gave is given, the written file is in play, the prompt is the task. */
export function afterAnswer(input: HookBuildInput, result: AssembleResult | undefined, now: Date): HookSession {
  const given = input.event === 'post-compact' ? {} : { ...input.session.given };
  for (const item of result?.items ?? []) given[item.chainId] = input.event;
  const files = [...input.session.files];
  if (input.event === 'session-start') for (const f of input.changedFiles ?? []) if (!files.includes(f)) files.push(f);
  if (input.file !== undefined) {
    const at = files.indexOf(input.file);
    if (at >= 0) files.splice(at, 1);
    files.unshift(input.file);
  }
  return {
    version: 1,
    given,
    files: files.slice(0, MAX_SESSION_FILES),
    ...(input.payload.prompt !== undefined ? { lastPrompt: input.payload.prompt.slice(0, DESCRIPTION_CHARS) } : input.session.lastPrompt !== undefined ? { lastPrompt: input.session.lastPrompt } : {}),
    updatedAt: now.toISOString(),
  };
}
