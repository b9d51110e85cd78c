/**
 * The assembly log as a timeline, and the diff of two builds: what came in, what went
 * out, what changed mode, and why. Log rows come from the database and may be from an
 * older schema or hand-edited, so they are read defensively.
 */
import type { AssembleResult, ExclusionReason } from '../assemble/types';
import { EXCLUSION_LABELS } from './exclusionLabels';

export interface SnapshotItem {
  id: string;
  mode: string;
  layer: string;
  tokens: number;
}

export interface BuildSnapshot {
  included: SnapshotItem[];
  /** [id, reason]; the long tail of below-threshold artifacts is not kept in the log. */
  excluded: Array<[string, string]>;
}

/** A logged build on the timeline: the log row's figures, its columns read as a snapshot. */
export interface HistoryEntry {
  id: number;
  at: string;
  trigger: string;
  budget: number;
  tokensUsed: number;
  tokenizer: string;
  candidates: number;
  snapshot: BuildSnapshot;
}

/** The fields of a store AssemblyLogRow this module reads (structural, so core/store is not imported). */
export type LogRowLike = Omit<HistoryEntry, 'snapshot'> & { included: unknown; excluded: unknown };

export function snapshotOfResult(result: Pick<AssembleResult, 'items' | 'excluded'>): BuildSnapshot {
  return {
    included: result.items.map((i) => ({ id: i.id, mode: i.mode, layer: i.layer, tokens: i.tokens })),
    excluded: result.excluded.filter((e) => e.reason !== 'below-threshold').map((e) => [e.id, e.reason]),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** A log row's included/excluded columns as a snapshot; anything unreadable is dropped, never thrown. */
export function snapshotOfLog(row: Pick<LogRowLike, 'included' | 'excluded'>): BuildSnapshot {
  const included: SnapshotItem[] = [];
  if (Array.isArray(row.included)) {
    for (const raw of row.included) {
      if (!isRecord(raw) || typeof raw.id !== 'string') continue;
      included.push({
        id: raw.id,
        mode: typeof raw.mode === 'string' ? raw.mode : 'full',
        layer: typeof raw.layer === 'string' ? raw.layer : '',
        tokens: finite(raw.tokens),
      });
    }
  }
  const excluded: Array<[string, string]> = [];
  const items = isRecord(row.excluded) ? row.excluded.items : row.excluded;
  if (Array.isArray(items)) {
    for (const raw of items) {
      if (Array.isArray(raw) && typeof raw[0] === 'string') excluded.push([raw[0], typeof raw[1] === 'string' ? raw[1] : 'unknown']);
      else if (isRecord(raw) && typeof raw.id === 'string') excluded.push([raw.id, typeof raw.reason === 'string' ? raw.reason : 'unknown']);
    }
  }
  return { included, excluded };
}

/** Newest first, as the store returns them. */
export function historyEntries(rows: readonly LogRowLike[]): HistoryEntry[] {
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    trigger: row.trigger,
    budget: finite(row.budget),
    tokensUsed: finite(row.tokensUsed),
    tokenizer: row.tokenizer,
    candidates: finite(row.candidates),
    snapshot: snapshotOfLog(row),
  }));
}

export type DiffChange = 'in' | 'out' | 'mode';

export interface DiffEntry {
  id: string;
  title: string;
  change: DiffChange;
  /** Mode (or "left out") in the earlier build. */
  before: string;
  after: string;
  tokensBefore: number;
  tokensAfter: number;
  why: string;
}

export interface BuildDiff {
  entries: DiffEntry[];
  tokensBefore: number;
  tokensAfter: number;
}

function reasonLabel(reason: string): string {
  return EXCLUSION_LABELS[reason as ExclusionReason] ?? reason;
}

/** What differs between two builds, `before` → `after`: came in, went out, changed mode. */
export function diffSnapshots(before: BuildSnapshot, after: BuildSnapshot, titles: Readonly<Record<string, string>> = {}): BuildDiff {
  const was = new Map(before.included.map((i) => [i.id, i]));
  const now = new Map(after.included.map((i) => [i.id, i]));
  const wasOut = new Map(before.excluded);
  const nowOut = new Map(after.excluded);
  const title = (id: string): string => titles[id] ?? id;
  const entries: DiffEntry[] = [];
  for (const item of after.included) {
    const old = was.get(item.id);
    if (!old) {
      const reason = wasOut.get(item.id);
      entries.push({
        id: item.id,
        title: title(item.id),
        change: 'in',
        before: 'left out',
        after: item.mode,
        tokensBefore: 0,
        tokensAfter: item.tokens,
        why: reason ? `was left out before (${reasonLabel(reason)})` : 'new, or below the relevance threshold before',
      });
    } else if (old.mode !== item.mode) {
      const better = rank(item.mode) < rank(old.mode);
      entries.push({
        id: item.id,
        title: title(item.id),
        change: 'mode',
        before: old.mode,
        after: item.mode,
        tokensBefore: old.tokens,
        tokensAfter: item.tokens,
        why: better ? `more room: ${old.mode} → ${item.mode}` : `less room: ${old.mode} → ${item.mode}`,
      });
    }
  }
  for (const item of before.included) {
    if (now.has(item.id)) continue;
    const reason = nowOut.get(item.id);
    entries.push({
      id: item.id,
      title: title(item.id),
      change: 'out',
      before: item.mode,
      after: 'left out',
      tokensBefore: item.tokens,
      tokensAfter: 0,
      why: reason ? reasonLabel(reason) : 'below the relevance threshold now, or no longer in the ledger',
    });
  }
  const order: Record<DiffChange, number> = { in: 0, mode: 1, out: 2 };
  entries.sort((a, b) => order[a.change] - order[b.change] || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  const sum = (s: BuildSnapshot): number => s.included.reduce((n, i) => n + i.tokens, 0);
  return { entries, tokensBefore: sum(before), tokensAfter: sum(after) };
}

function rank(mode: string): number {
  return mode === 'full' ? 0 : mode === 'preview' ? 1 : mode === 'title' ? 2 : 3;
}
