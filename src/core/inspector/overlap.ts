/**
 * How much of a ledger artifact an always-on agent file already says, by content: both
 * texts become sets of w-shingles (runs of w consecutive search terms), and the share of
 * the artifact's shingles the file also has is the share of its text the agent reads
 * twice. Terms are the assembler's own (lower-cased, stemmed, stop words and punctuation
 * dropped, CJK per character), so a rule re-wrapped, re-cased, re-punctuated or turned
 * into a list item still matches, and a section of AGENTS.md imported as an artifact is
 * found inside the whole file.
 */
import { terms } from '../assemble/text';

/** Three content words in a row: specific enough not to match by chance, short enough for one-line rules. */
export const SHINGLE_WORDS = 3;
/** Text beyond this is not compared, so a huge file costs bounded time. */
export const MAX_COMPARED_CHARS = 1_000_000;
/** An artifact with fewer terms says too little to call a repeat. */
const MIN_TERMS = 4;
/** Fewer shared shingles than this is a coincidence, not a repeat. */
const MIN_SHARED = 2;
/** A repeated passage this long is flagged even when both texts are much longer. */
const LONG_PASSAGE = 30;

export type Shingles = ReadonlySet<string>;

export function shingles(text: string): Shingles {
  const words = terms(text.length > MAX_COMPARED_CHARS ? text.slice(0, MAX_COMPARED_CHARS) : text);
  const out = new Set<string>();
  if (words.length < MIN_TERMS) return out;
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++) out.add(words.slice(i, i + SHINGLE_WORDS).join(' '));
  return out;
}

export interface ContentOverlap {
  /** Shingles both texts have. */
  shared: number;
  /** Share of the artifact's text (0..1) the file also says. */
  share: number;
  /** Jaccard similarity of the two texts (0..1). */
  jaccard: number;
}

/**
 * The overlap of an artifact with a file, or undefined when it is not worth a flag: most
 * of the smaller text repeated in the larger, or a long passage repeated in both.
 */
export function contentOverlap(artifact: Shingles, file: Shingles): ContentOverlap | undefined {
  if (artifact.size === 0 || file.size === 0) return undefined;
  const [small, large] = artifact.size <= file.size ? [artifact, file] : [file, artifact];
  let shared = 0;
  for (const s of small) if (large.has(s)) shared++;
  if (shared < MIN_SHARED) return undefined;
  if (shared / small.size < 0.5 && shared < LONG_PASSAGE) return undefined;
  return { shared, share: shared / artifact.size, jaccard: shared / (artifact.size + file.size - shared) };
}
