/**
 * Which workspace paths are "in play" for the context: the files in front of the user
 * and the files they recently worked on (recency-weighted, decaying). vscode-free so it
 * can be unit-tested.
 */
import type { FileActivity } from '../core/model';

export interface ActivityWeights {
  open: number;
  edit: number;
  save: number;
}

export const DEFAULT_ACTIVITY_WEIGHTS: ActivityWeights = { open: 1, edit: 2, save: 3 };

/**
 * How much recent work on a file counts now: each kind's count, weighted by how long
 * ago its last event was (halving every `halfLifeHours`). Counts are damped (log) so a
 * file edited 500 times does not drown the one opened a minute ago.
 */
export function activityScore(activity: FileActivity, now: Date, halfLifeHours: number, weights: ActivityWeights = DEFAULT_ACTIVITY_WEIGHTS): number {
  const decay = (at: string | null): number => {
    if (!at) return 0;
    const ageHours = Math.max(0, now.getTime() - Date.parse(at)) / 3_600_000;
    return Number.isFinite(ageHours) ? Math.pow(0.5, ageHours / Math.max(halfLifeHours, 1e-6)) : 0;
  };
  return (
    weights.open * Math.log2(1 + activity.opens) * decay(activity.lastOpenedAt) +
    weights.edit * Math.log2(1 + activity.edits) * decay(activity.lastEditedAt) +
    weights.save * Math.log2(1 + activity.saves) * decay(activity.lastSavedAt)
  );
}

export interface RankedActivity {
  activity: FileActivity;
  score: number;
}

/** File activity, most relevant now first; ties by path. */
export function rankActivity(activity: readonly FileActivity[], now: Date, halfLifeHours: number): RankedActivity[] {
  return activity
    .map((a) => ({ activity: a, score: activityScore(a, now, halfLifeHours) }))
    .sort((a, b) => b.score - a.score || (a.activity.path < b.activity.path ? -1 : a.activity.path > b.activity.path ? 1 : 0));
}

export interface ActivePathInput {
  /** Workspace-relative paths of visible editors, the active one first. */
  visible: readonly string[];
  /** Other open tabs (workspace-relative). */
  open: readonly string[];
  /** Files the current git branch changed (committed or not). */
  branch?: readonly string[];
  activity: readonly FileActivity[];
  now: Date;
  halfLifeHours: number;
  /** At most this many paths from recent activity (beyond the open ones). */
  maxRecent?: number;
  /** Activity below this score is too old to count. */
  minScore?: number;
}

/**
 * The active paths, most important first and without duplicates: visible editors, then
 * recently worked-on files, then the files the branch changed, then other open tabs.
 * (Paths the task names are added by the assembler itself.)
 */
export function activePaths(input: ActivePathInput): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (path: string): void => {
    if (path && !seen.has(path)) {
      seen.add(path);
      out.push(path);
    }
  };
  input.visible.forEach(add);
  const minScore = input.minScore ?? 0.05;
  rankActivity(input.activity, input.now, input.halfLifeHours)
    .filter((r) => r.score >= minScore)
    .slice(0, input.maxRecent ?? 8)
    .forEach((r) => add(r.activity.path));
  // What the branch changed is the work in progress, even when nobody opened it lately.
  (input.branch ?? []).forEach(add);
  input.open.forEach(add);
  return out;
}

/** Folder glob a module memory for `relPath` should cover: `src/payments/**` for `src/payments/webhooks.ts`. */
export function folderGlob(relPath: string): string {
  const parts = relPath.replace(/\\/g, '/').split('/');
  parts.pop();
  return parts.length === 0 ? '**' : `${parts.join('/')}/**`;
}

export type ActivityKind = 'open' | 'edit' | 'save';

export interface ActivityEvent {
  path: string;
  kind: ActivityKind;
  /** ISO time. */
  at: string;
}

/** Stored activity plus events not yet written, as the store will hold them after the next flush. */
export function mergeActivity(stored: readonly FileActivity[], events: readonly ActivityEvent[]): FileActivity[] {
  const byPath = new Map(stored.map((a) => [a.path, { ...a }]));
  for (const event of events) {
    const entry =
      byPath.get(event.path) ??
      { path: event.path, opens: 0, edits: 0, saves: 0, lastOpenedAt: null, lastEditedAt: null, lastSavedAt: null };
    if (event.kind === 'open') {
      entry.opens++;
      entry.lastOpenedAt = later(entry.lastOpenedAt, event.at);
    } else if (event.kind === 'edit') {
      entry.edits++;
      entry.lastEditedAt = later(entry.lastEditedAt, event.at);
    } else {
      entry.saves++;
      entry.lastSavedAt = later(entry.lastSavedAt, event.at);
    }
    byPath.set(event.path, entry);
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function later(a: string | null, b: string): string {
  return a !== null && Date.parse(a) > Date.parse(b) ? a : b;
}

/**
 * Keeps at most one event per (path, kind) within `windowMs`: a burst of keystrokes is
 * one edit, re-focusing a tab every few seconds is one open. Returns whether to record.
 */
export class ActivityThrottle {
  private readonly last = new Map<string, number>();

  constructor(private readonly windowMs: Readonly<Record<ActivityKind, number>>) {}

  shouldRecord(path: string, kind: ActivityKind, nowMs: number): boolean {
    const key = `${kind}\u0000${path}`;
    const previous = this.last.get(key);
    if (previous !== undefined && nowMs - previous < this.windowMs[kind]) return false;
    this.last.set(key, nowMs);
    if (this.last.size > 5000) this.last.clear();
    return true;
  }
}
