/**
 * Stage summaries: when a task leaves a stage, what that stage produced is recorded as a
 * `stage_summary` task event, so the next stage's context (workflow memory, L4) starts
 * from it instead of from nothing. Pure over the store: every way of changing a task's
 * stage (CLI `task stage`, the extension's Change Stage command) calls `moveTaskToStage`.
 */
import { type Artifact, type Task, type TaskEvent, UserError } from './model';
import type { LedgerStore } from './store';

/** Longest deliverable excerpt kept in the event; the narrative clips further to its budget. */
const EXCERPT_CHARS = 1200;
/** Bounds on what one summary lists, so a long stage cannot grow the event without limit. */
const MAX_LISTED = 50;

export interface StageSummaryArtifact {
  id: string;
  title: string;
  type: string;
}

export interface StageSummary {
  stage: string;
  /** The stage it moved to. */
  to: string;
  /** When the stage was entered (or the task created) and left. */
  since: string;
  until: string;
  /** The stage's main output (e.g. the plan artifact), with the start of its text. */
  deliverable?: StageSummaryArtifact & { excerpt: string };
  decisions: StageSummaryArtifact[];
  artifactsCreated: StageSummaryArtifact[];
  commits: string[];
  filesChanged: string[];
}

/** Which artifact types count as a stage's deliverable, best first. */
const DELIVERABLE_TYPES: Readonly<Record<string, readonly string[]>> = {
  plan: ['plan', 'adr', 'decision'],
  design: ['adr', 'decision', 'plan'],
  develop: ['module_memory', 'pattern', 'learning'],
  review: ['convention', 'pattern', 'decision', 'learning'],
  test: ['learning', 'note'],
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function stageStart(task: Task, events: readonly TaskEvent[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'stage_entered' && e.payload.stage === task.stage) return e.at;
  }
  return task.createdAt;
}

function brief(a: Artifact): StageSummaryArtifact {
  return { id: a.id, title: a.title, type: a.type };
}

/** What the task's current stage produced, from its events, its artifacts and the files edited meanwhile. */
export function summarizeStage(store: LedgerStore, taskId: string, to: string): StageSummary {
  const task = store.requireTask(taskId);
  const events = store.taskEvents(taskId);
  const since = stageStart(task, events);
  const until = store.clock.now().toISOString();
  const inStage = events.filter((e) => e.at >= since);
  const createdIds = new Set(inStage.filter((e) => e.kind === 'artifact_created').map((e) => text(e.payload.id)).filter((id): id is string => id !== undefined));
  const created = store
    .listArtifacts()
    .filter((a) => a.createdAt >= since && (a.taskId === taskId || createdIds.has(a.id) || createdIds.has(a.chainId)) && a.status !== 'archived')
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  const wanted = DELIVERABLE_TYPES[task.stage.trim().toLowerCase()] ?? [];
  let deliverable: Artifact | undefined;
  for (const type of wanted) {
    deliverable = [...created].reverse().find((a) => a.type === type);
    if (deliverable) break;
  }
  const commits: string[] = [];
  const files: string[] = [];
  for (const e of inStage) {
    if (e.kind === 'commit') {
      const sha = text(e.payload.sha) ?? text(e.payload.hash) ?? text(e.payload.commit);
      const message = text(e.payload.message) ?? text(e.payload.subject);
      if (sha || message) commits.push([sha?.slice(0, 8), message?.split('\n', 1)[0]].filter(Boolean).join(' '));
      // Commits recorded from git carry their files: what the stage changed, even in files never opened here.
      if (Array.isArray(e.payload.files)) for (const f of e.payload.files) if (typeof f === 'string' && f !== '' && !files.includes(f)) files.push(f);
    } else if (e.kind === 'file_touched') {
      const path = text(e.payload.path) ?? text(e.payload.file);
      if (path && !files.includes(path)) files.push(path);
    }
  }
  for (const f of store.fileActivity()) {
    const changed = [f.lastEditedAt, f.lastSavedAt].some((t) => t !== null && t !== undefined && t >= since);
    if (changed && !files.includes(f.path)) files.push(f.path);
  }
  return {
    stage: task.stage,
    to,
    since,
    until,
    ...(deliverable ? { deliverable: { ...brief(deliverable), excerpt: deliverable.body.trim().slice(0, EXCERPT_CHARS) } } : {}),
    decisions: created.filter((a) => a.type === 'decision' || a.type === 'adr').slice(-MAX_LISTED).map(brief),
    artifactsCreated: created.slice(-MAX_LISTED).map(brief),
    commits: commits.slice(-MAX_LISTED),
    filesChanged: files.slice(-MAX_LISTED),
  };
}

/**
 * Moves a task to `stage`, first recording a summary of the stage it leaves; one
 * transaction, so a summary never exists without the move or the move without it.
 * Moving to the stage it is already in changes nothing.
 */
export function moveTaskToStage(store: LedgerStore, taskId: string, stage: string): { task: Task; summary?: StageSummary } {
  const task = store.requireTask(taskId);
  const next = stage.trim();
  if (next === '') throw new UserError('A stage needs a name.', 'For example: plan, develop, review or test.');
  if (task.stage === next) return { task };
  return store.transaction(() => {
    const summary = summarizeStage(store, taskId, next);
    store.addTaskEvent(taskId, 'stage_summary', summary as unknown as Record<string, unknown>);
    return { task: store.setTaskStage(taskId, next), summary };
  });
}
