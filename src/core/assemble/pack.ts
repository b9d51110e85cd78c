import type { SectionKey } from './render';

/** 0 = left out, 1 = title line, 2 = preview, 3 = full text. */
export type Level = 0 | 1 | 2 | 3;

export interface PackEntry {
  key: string;
  /** Estimated worth of the full text; lower levels are worth `levelValue` of it. */
  value: number;
  /** Tie-breaks: more recent first, then id. */
  updatedMs: number;
  /** Section a preview or full text goes to (title lines go to 'noted'). */
  section: SectionKey;
  /** Which levels this entry may take (index 1..3). */
  allowed: readonly [boolean, boolean, boolean, boolean];
  /** Tokens of the entry's block at `level` including its separator; `exact` false may return a lower bound. */
  cost(level: 1 | 2 | 3, exact: boolean): number;
  /** Whether `cost(level, false)` is already exact (cheap to know). */
  isExact(level: 1 | 2 | 3): boolean;
  level: Level;
}

export interface PackState {
  /** Tokens still free in the whole budget. */
  remaining: number;
  /** Entries per section, for section-heading costs. */
  sectionCounts: Map<SectionKey, number>;
  headerCost: (section: SectionKey) => number;
  levelValue: readonly [number, number, number, number];
}

/** Takes a shown entry out of the document: its tokens (and its section's count) go back to the budget. */
export function takeOut(entry: PackEntry, state: PackState): void {
  const section = entry.level === 1 ? 'noted' : entry.section;
  state.remaining += entry.cost(entry.level as 1 | 2 | 3, true);
  state.sectionCounts.set(section, (state.sectionCounts.get(section) ?? 1) - 1);
  entry.level = 0;
}

function sectionOf(entry: PackEntry, level: Level): SectionKey | undefined {
  if (level === 0) return undefined;
  return level === 1 ? 'noted' : entry.section;
}

interface Jump {
  entry: PackEntry;
  to: Level;
  density: number;
  gain: number;
  delta: number;
  exact: boolean;
}

function jumpCost(entry: PackEntry, to: 1 | 2 | 3, state: PackState, exact: boolean): { delta: number; exact: boolean } {
  const from = entry.level;
  const isExact = exact || entry.isExact(to);
  let delta = entry.cost(to, isExact) - (from === 0 ? 0 : entry.cost(from, true));
  const target = sectionOf(entry, to)!;
  const current = sectionOf(entry, from);
  if (target !== current && (state.sectionCounts.get(target) ?? 0) === 0) delta += state.headerCost(target);
  return { delta, exact: isExact };
}

/** The most value per token among the levels above the entry's, among those that can still fit. */
function bestJump(entry: PackEntry, state: PackState, limit: number, exactFor?: Level): Jump | undefined {
  let best: Jump | undefined;
  const fromValue = state.levelValue[entry.level] * entry.value;
  for (let to = (entry.level + 1) as 1 | 2 | 3; to <= 3; to++) {
    if (!entry.allowed[to]) continue;
    const gain = state.levelValue[to] * entry.value - fromValue;
    if (gain <= 0) continue;
    const { delta, exact } = jumpCost(entry, to, state, to === exactFor);
    if (delta > limit) continue;
    const density = gain / Math.max(delta, 0.5);
    if (!best || density > best.density || (density === best.density && to < best.to)) best = { entry, to, density, gain, delta, exact };
  }
  return best;
}

function before(a: Jump, b: Jump): boolean {
  if (a.density !== b.density) return a.density > b.density;
  if (a.entry.value !== b.entry.value) return a.entry.value > b.entry.value;
  if (a.entry.updatedMs !== b.entry.updatedMs) return a.entry.updatedMs > b.entry.updatedMs;
  if (a.entry.key !== b.entry.key) return a.entry.key < b.entry.key;
  return a.to < b.to;
}

class Heap {
  private readonly items: Jump[] = [];
  get size(): number {
    return this.items.length;
  }
  push(jump: Jump): void {
    const items = this.items;
    items.push(jump);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }
  pop(): Jump | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
  peek(): Jump | undefined {
    return this.items[0];
  }
}

/**
 * Spends at most `cap` tokens (and never more than the state's remaining budget) raising
 * entries a level at a time, best value per token first: the greedy for a multiple-choice
 * knapsack. A step that does not fit is skipped and filling goes on. Costs start as lower
 * bounds and are counted exactly only when a step reaches the top, so a large corpus costs
 * exact token counts only for what is nearly taken. Returns the tokens spent.
 */
export function packGreedy(entries: readonly PackEntry[], state: PackState, cap: number): number {
  let spent = 0;
  const limit = (): number => Math.min(cap - spent, state.remaining);
  const heap = new Heap();
  for (const entry of entries) {
    const jump = bestJump(entry, state, limit());
    if (jump) heap.push(jump);
  }
  while (heap.size > 0 && limit() > 0) {
    const top = heap.pop()!;
    const entry = top.entry;
    if (entry.level >= top.to) continue;
    // Re-evaluate with the exact cost of the target and the section headings as they are now.
    const fresh = bestJump(entry, state, limit(), top.to);
    if (!fresh) continue;
    const next = heap.peek();
    if (!fresh.exact || fresh.to !== top.to || (next && before(next, fresh))) {
      heap.push(fresh);
      continue;
    }
    const from = entry.level;
    const oldSection = sectionOf(entry, from);
    const newSection = sectionOf(entry, fresh.to)!;
    if (oldSection !== newSection) {
      if (oldSection) state.sectionCounts.set(oldSection, (state.sectionCounts.get(oldSection) ?? 1) - 1);
      state.sectionCounts.set(newSection, (state.sectionCounts.get(newSection) ?? 0) + 1);
    }
    entry.level = fresh.to;
    spent += fresh.delta;
    state.remaining -= fresh.delta;
    const again = bestJump(entry, state, limit());
    if (again) heap.push(again);
  }
  return spent;
}
