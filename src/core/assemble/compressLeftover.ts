import type * as Compress from '../compress';
import { type Build, rendered } from './blocks';
import type { PackEntry } from './pack';
import type { Packing } from './packing';
import { compressedBlock } from './render';
import { shownBySections } from './sectionCandidates';
import type { ResultItem } from './types';

/** Compressing must gain at least this many tokens over the preview to be worth it. */
const MIN_COMPRESSION_GAIN = 24;
/** A compression that keeps more than this share of the full block is not worth showing instead of it. */
const MAX_COMPRESSED_SHARE = 0.8;

export interface CompressedBlock {
  block: string;
  tokens: number;
  how: NonNullable<ResultItem['compression']>;
}

/**
 * The compression stage: an artifact whose full text did not fit is shown compressed
 * instead of as a preview when the budget the packing left over has room, the most
 * valuable first. Only what is left over is spent, so compressing one artifact never
 * pushes another out of full text.
 */
export function compressLeftover(build: Build, packing: Packing, queryText: string): Map<PackEntry, CompressedBlock> {
  const { state, entryOf, allEntries } = packing;
  const { counter } = build;
  const compressed = new Map<PackEntry, CompressedBlock>();
  // An artifact shown by its sections already gives the parts that matter, whole.
  const bySections = shownBySections(allEntries, entryOf);
  const previews =
    state.remaining >= MIN_COMPRESSION_GAIN ? allEntries.filter((e) => e.level === 2 && e.allowed[3] && entryOf.get(e)!.layer !== 'fixed' && !bySections.has(entryOf.get(e)!)) : [];
  if (previews.length === 0) return compressed;
  // Loaded on first use, synchronously (this part must not yield): the compressors bring
  // the Markdown lexer, which builds that never compress should not load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { compressText, taskTerms } = require('../compress') as typeof Compress;
  const query = taskTerms(queryText);
  previews.sort((a, b) => b.value - a.value);
  for (const entry of previews) {
    if (state.remaining < MIN_COMPRESSION_GAIN) break;
    const c = entryOf.get(entry)!;
    const { title, memo } = rendered(build, c.artifact);
    const previewCost = entry.cost(2, true);
    const fullCost = entry.cost(3, true);
    if (fullCost - previewCost < 2 * MIN_COMPRESSION_GAIN) continue;
    const bodyTokens = counter.countWithHash(memo.body, memo.bodyHash);
    for (const level of ['medium', 'heavy'] as const) {
      const body = compressText({ text: memo.body, kind: 'markdown', query }, level).trim();
      if (body === '') break;
      const how = { level, ratio: Math.round((counter.count(body) / Math.max(1, bodyTokens)) * 1000) / 1000, tokensBefore: bodyTokens };
      const block = compressedBlock(c.artifact, title, body, how);
      const tokens = counter.count(block) + 2;
      if (tokens > fullCost * MAX_COMPRESSED_SHARE) continue;
      const delta = tokens - previewCost;
      if (delta < MIN_COMPRESSION_GAIN) break;
      if (delta > state.remaining) continue;
      compressed.set(entry, { block, tokens, how });
      state.remaining -= delta;
      break;
    }
  }
  return compressed;
}
