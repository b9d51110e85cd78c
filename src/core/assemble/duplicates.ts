import { INDEX_BODY_CHARS } from './relevance';

/**
 * Word 3-grams of a text, hashed: two artifacts that say the same thing (the same
 * decision recorded twice, imported from two files, re-wrapped at another width) share
 * nearly all of them, whatever the line breaks, case and punctuation.
 */
export interface Fingerprint {
  shingles: Set<number>;
  /**
   * The smallest shingles, as many as two texts at the duplicate threshold must have at
   * least one of in common (prefix filtering): only texts sharing one are compared.
   */
  prefix: number[];
  /** The words, for bodies too short to have enough shingles ('' otherwise). */
  words: string;
}

/**
 * Shared 3-grams, as a share of all the 3-grams of the two (Jaccard), from which two texts
 * are one. High on purpose: texts that share a template, or one quoting the other, are not
 * the same knowledge.
 */
export const DUPLICATE_SIMILARITY = 0.9;
/** Below this many 3-grams a text is compared word for word instead. */
const MIN_SHINGLES = 8;

const WORD = /[\p{L}\p{N}]+/gu;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function fingerprint(body: string): Fingerprint {
  const words = (body.length > INDEX_BODY_CHARS ? body.slice(0, INDEX_BODY_CHARS) : body).toLowerCase().match(WORD) ?? [];
  const shingles = new Set<number>();
  for (let i = 0; i + 2 < words.length; i++) shingles.add(fnv1a(`${words[i]} ${words[i + 1]} ${words[i + 2]}`));
  return fingerprintOfShingles(shingles, shingles.size < MIN_SHINGLES ? words.join(' ') : '');
}

export function fingerprintOfShingles(shingles: Set<number>, words: string): Fingerprint {
  const short = shingles.size < MIN_SHINGLES;
  // Jaccard >= s needs |A ∩ B| >= s|A|, so the |A| - ceil(s|A|) + 1 smallest of A meet B's
  // (the epsilon keeps rounding on the side of a longer prefix).
  const prefixLength = short ? 0 : shingles.size - Math.ceil(DUPLICATE_SIMILARITY * shingles.size - 1e-9) + 1;
  const prefix = short ? [] : [...shingles].sort((x, y) => x - y).slice(0, prefixLength);
  return { shingles, prefix, words: short ? words : '' };
}

/**
 * Whether two artifacts say the same, whatever their wrapping, case and punctuation. A short
 * body ("TODO", "See ADR-3") says too little to be a duplicate on its own: its title has to
 * match too.
 */
export function sameText(a: Fingerprint, b: Fingerprint, titleA: string, titleB: string): boolean {
  if (a.shingles.size < MIN_SHINGLES || b.shingles.size < MIN_SHINGLES) {
    return a.words !== '' && a.words === b.words && foldTitle(titleA) === foldTitle(titleB);
  }
  const [small, large] = a.shingles.size <= b.shingles.size ? [a.shingles, b.shingles] : [b.shingles, a.shingles];
  // |A ∩ B| / |A ∪ B| >= s  <=>  |A ∩ B| >= s (|A| + |B|) / (1 + s); stop as soon as it cannot be reached.
  const needed = (DUPLICATE_SIMILARITY * (small.size + large.size)) / (1 + DUPLICATE_SIMILARITY);
  if (small.size < needed) return false;
  let missing = 0;
  const allowedMissing = small.size - needed;
  for (const s of small) if (!large.has(s) && ++missing > allowedMissing) return false;
  return true;
}

/**
 * The artifacts kept so far, indexed so that finding the first one a text duplicates costs
 * a few look-ups rather than a comparison with each (a 10,000-artifact build shows hundreds).
 */
export class DuplicateFinder<K> {
  private readonly kept: Array<{ key: K; print: Fingerprint; title: string }> = [];
  private readonly byPrefix = new Map<number, number[]>();
  private readonly shortByWords = new Map<string, number>();

  /** The first kept artifact (in the order they were kept) that says what this one says. */
  find(print: Fingerprint, title: string): K | undefined {
    if (print.shingles.size < MIN_SHINGLES) {
      if (print.words === '') return undefined;
      const at = this.shortByWords.get(shortKey(print, title));
      return at === undefined ? undefined : this.kept[at]!.key;
    }
    const tried = new Set<number>();
    const candidates: number[] = [];
    for (const shingle of print.prefix) {
      for (const at of this.byPrefix.get(shingle) ?? []) {
        if (!tried.has(at)) {
          tried.add(at);
          candidates.push(at);
        }
      }
    }
    candidates.sort((x, y) => x - y);
    for (const at of candidates) {
      const k = this.kept[at]!;
      if (sameText(k.print, print, k.title, title)) return k.key;
    }
    return undefined;
  }

  keep(key: K, print: Fingerprint, title: string): void {
    const at = this.kept.length;
    this.kept.push({ key, print, title });
    if (print.shingles.size < MIN_SHINGLES) {
      const key = shortKey(print, title);
      if (print.words !== '' && !this.shortByWords.has(key)) this.shortByWords.set(key, at);
      return;
    }
    for (const shingle of print.prefix) {
      const list = this.byPrefix.get(shingle);
      if (list) list.push(at);
      else this.byPrefix.set(shingle, [at]);
    }
  }
}

/** Short bodies are the same only word for word and with the same title (see `sameText`). */
function shortKey(print: Fingerprint, title: string): string {
  return `${print.words}\u0000${foldTitle(title)}`;
}

function foldTitle(title: string): string {
  return (title.toLowerCase().match(WORD) ?? []).join(' ');
}

/** Fingerprints by content hash: a ledger's texts repeat from build to build. */
const memo = new Map<string, Fingerprint>();
const MEMO_LIMIT = 20_000;

export function fingerprintOf(contentHash: string, body: string): Fingerprint {
  let known = memo.get(contentHash);
  if (!known) {
    known = fingerprint(body);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(contentHash, known);
  }
  return known;
}
