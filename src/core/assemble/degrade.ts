import type { Build } from './blocks';
import type { CompressedBlock } from './compressLeftover';
import type { Level, PackEntry } from './pack';
import type { Packing } from './packing';
import { type Extras, renderContext } from './renderContext';

export interface Fitted {
  text: string;
  /** The whole text counted: never above the budget. */
  tokensUsed: number;
  extras: Extras;
}

/** One level down (skipping levels the entry may not take); returns the tokens that saves by estimate. */
function stepDown(entry: PackEntry, compressed: Map<PackEntry, CompressedBlock>): number {
  compressed.delete(entry);
  const from = entry.level as 1 | 2 | 3;
  let to = (from - 1) as Level;
  while (to > 0 && !entry.allowed[to]) to = (to - 1) as Level;
  const saved = entry.cost(from, true) - (to === 0 ? 0 : entry.cost(to, true));
  entry.level = to;
  return Math.max(1, saved);
}

/**
 * The rendering, final count and degradation stages: renders the document, counts it whole
 * (block costs do not add up exactly: joins and headings), and while it is over budget
 * degrades in this order until it fits: compressions, the least valuable knowledge a level
 * at a time, recording instructions, workflow memory, rules and pins, the task brief.
 */
export function fitBudget(build: Build, packing: Packing, compressed: Map<PackEntry, CompressedBlock>): Fitted {
  const { budget, allEntries, liveEntries, entryOf, fixedEntries, brief, briefCost } = packing;
  const { counter } = build;
  const extras: Extras = { workflow: packing.workflow.text !== '', instructions: packing.instructions.text !== '' };
  // Entries are already in value order within each list; order the shown ones globally for degrading.
  const degradable = (): PackEntry[] =>
    [...allEntries, ...liveEntries]
      .filter((e) => e.level > 0 && entryOf.get(e)?.layer !== 'fixed')
      .sort((a, b) => a.value - b.value || a.updatedMs - b.updatedMs || (a.key < b.key ? 1 : -1));
  let text = renderContext(build, packing, compressed, extras);
  let tokensUsed = counter.count(text);
  let guard = 0;
  while (tokensUsed > budget) {
    if (++guard > 100_000) throw new Error('assembleContext: could not fit the budget (bug)');
    let excess = tokensUsed - budget;
    // Compressions only spent what the packing left over: they go first, least valuable first.
    for (const entry of [...compressed.keys()].sort((a, b) => a.value - b.value)) {
      if (excess <= 0) break;
      excess -= Math.max(1, compressed.get(entry)!.tokens - entry.cost(2, true));
      compressed.delete(entry);
    }
    for (const entry of degradable()) {
      while (excess > 0 && entry.level > 0) excess -= stepDown(entry, compressed);
      if (excess <= 0) break;
    }
    if (excess > 0 && extras.instructions) {
      extras.instructions = false;
      excess -= packing.instructions.cost;
    }
    if (excess > 0 && extras.workflow) {
      extras.workflow = false;
      excess -= packing.workflow.cost;
    }
    if (excess > 0) {
      const fixedShown = fixedEntries.filter((e) => e.level > 0).sort((a, b) => a.value - b.value || a.updatedMs - b.updatedMs);
      for (const entry of fixedShown) {
        while (excess > 0 && entry.level > 0) excess -= stepDown(entry, compressed);
        if (excess <= 0) break;
      }
    }
    if (excess > 0 && brief.level === 3) {
      brief.level = 1;
      excess -= briefCost.full - briefCost.title;
    }
    if (excess > 0 && brief.level === 1) brief.level = 0;
    text = renderContext(build, packing, compressed, extras);
    tokensUsed = counter.count(text);
    if (text === '') break;
  }
  if (tokensUsed > budget) throw new Error(`assembleContext: ${tokensUsed} tokens over a budget of ${budget} (bug)`);
  return { text, tokensUsed, extras };
}
