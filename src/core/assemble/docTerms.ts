import type { Artifact } from '../model';
import { forEachTerm, pathTerms } from './text';
import type { TermVectors } from './termVectors';

/** Field order in the index: a document's counts are `FIELDS.length` per term, in this order. */
export const FIELDS = ['title', 'tags', 'paths', 'body'] as const;
const F = FIELDS.length;

/**
 * Bodies past this many characters are indexed by their head only: the topic of a
 * document shows early, and one pasted megabyte must not dominate index time.
 */
export const INDEX_BODY_CHARS = 64 * 1024;

/**
 * One document's search terms: its distinct terms (numbers in the extractor's vocabulary),
 * in the order the document first uses them, with their counts per field, and the length of
 * each field in terms. Stored in a flat chunk shared with the other documents read at the
 * same time: entries `start` .. `end - 1` of `chunk.terms`, counts at `i * F + field`.
 */
export interface DocTerms {
  chunk: { terms: Int32Array; counts: Int32Array };
  start: number;
  end: number;
  lengths: readonly number[];
}

/** What a document's terms are made of: a title, tags and paths are scanned, a body read from its kept vector. */
function docKey(a: Artifact): string {
  return `${a.contentHash}\u0000${a.title}\u0000${a.tags.join('\u0001')}\u0000${a.paths.join('\u0001')}\u0000${a.summary ?? ''}`;
}

/**
 * Reads documents into terms, and keeps them for the next index of the same ledger: after a
 * pull or a teammate's edit, the hook server's next index reads the changed documents only
 * and reuses every other one's terms, which are the same for the same text. Terms are numbered
 * in a vocabulary of its own (not the index's), so reused terms are joined into a new index
 * with array look-ups, no string hashing.
 */
export class TermExtractor {
  private readonly vocabulary = new Map<string, number>();
  readonly names: string[] = [];
  /** The documents of the last index and their terms (keyed only when the next index asks: a CLI process builds one). */
  private last: { docs: readonly Artifact[]; terms: DocTerms[] } | undefined;
  /** The kept vectors' dictionary numbers to vocabulary numbers (-1: not met yet). */
  private fromDictionary = new Int32Array(0);
  private dictionary: readonly string[] | undefined;

  constructor(private readonly vectors?: TermVectors) {}

  /** The vocabulary's number for `term`. */
  private number(term: string): number {
    let n = this.vocabulary.get(term);
    if (n === undefined) {
      n = this.names.length;
      this.vocabulary.set(term, n);
      this.names.push(term);
    }
    return n;
  }

  /**
   * The terms of every document, in order: kept ones reused, the rest read (from their kept
   * vectors, else scanned, and their vectors kept). Documents not among these are forgotten.
   */
  extract(docs: readonly Artifact[]): DocTerms[] {
    const out = new Array<DocTerms>(docs.length);
    let missing: number[];
    if (this.last === undefined) missing = docs.map((_, d) => d);
    else {
      const kept = new Map<string, DocTerms>();
      this.last.docs.forEach((a, d) => kept.set(docKey(a), this.last!.terms[d]!));
      missing = [];
      for (let d = 0; d < docs.length; d++) {
        const known = kept.get(docKey(docs[d]!));
        if (known) out[d] = known;
        else missing.push(d);
      }
    }
    if (missing.length > 0) this.read(docs, missing, out);
    this.last = { docs, terms: out };
    return out;
  }

  private read(docs: readonly Artifact[], which: readonly number[], out: DocTerms[]): void {
    const vectors = this.vectors;
    if (vectors && vectors.dictionary !== this.dictionary) {
      // Another dictionary (the store read it again): its numbers are met anew.
      this.dictionary = vectors.dictionary;
      this.fromDictionary = new Int32Array(0);
    }
    // Sized for what the kept vectors hold (each pair takes two bytes or more) and a few dozen
    // terms of title, tags and paths each: growing a cold index's arrays copied them three times.
    let expected = 0;
    if (vectors) for (const d of which) expected += (vectors.storedBytes(docs[d]!.contentHash) >> 1) + 32;
    let terms = new Int32Array(Math.max(expected, which.length > 1000 ? 1 << 18 : 1 << 10));
    let counts = new Int32Array(terms.length * F);
    let pairs = 0;
    // The document that last met each vocabulary term, and the term's pair in it.
    let seenIn = new Int32Array(Math.max(4096, this.names.length * 2)).fill(-1);
    let pairOf = new Int32Array(seenIn.length);
    let doc = 0;
    let field = 0;
    let lengths = [0, 0, 0, 0];
    const add = (n: number, times: number): void => {
      if (n >= seenIn.length) {
        seenIn = grownTo(seenIn, Math.max(n + 1, seenIn.length * 2), -1);
        pairOf = grownTo(pairOf, seenIn.length);
      }
      let pair: number;
      if (seenIn[n] !== doc) {
        seenIn[n] = doc;
        pair = pairs++;
        if (pair >= terms.length) {
          terms = grownTo(terms, terms.length * 2);
          counts = grownTo(counts, counts.length * 2);
        }
        pairOf[n] = pair;
        terms[pair] = n;
      } else pair = pairOf[n]!;
      counts[pair * F + field]! += times;
      lengths[field]! += times;
    };
    const emit = (term: string): void => add(this.number(term), 1);
    const stored = (dictionaryNumber: number, times: number): void => {
      if (dictionaryNumber >= this.fromDictionary.length) {
        this.fromDictionary = grownTo(this.fromDictionary, Math.max(dictionaryNumber + 1, this.dictionary!.length), -1);
      }
      let n = this.fromDictionary[dictionaryNumber]!;
      if (n < 0) {
        n = this.number(this.dictionary![dictionaryNumber]!);
        this.fromDictionary[dictionaryNumber] = n;
      }
      add(n, times);
    };
    // A body's terms and counts, when it is scanned, for its term vector.
    const bodyTerms = new Map<string, number>();
    const collect = (term: string): void => {
      bodyTerms.set(term, (bodyTerms.get(term) ?? 0) + 1);
      emit(term);
    };
    const starts: number[] = [];
    const allLengths: number[][] = [];
    for (const d of which) {
      const a = docs[d]!;
      doc = d;
      starts.push(pairs);
      lengths = [0, 0, 0, 0];
      allLengths.push(lengths);
      field = 0;
      forEachTerm(a.title, emit);
      field = 1;
      for (const tag of a.tags) forEachTerm(tag, emit);
      field = 2;
      for (const p of a.paths) for (const t of pathTerms(p)) emit(t);
      field = 3;
      if (a.summary) forEachTerm(a.summary, emit);
      const body = a.body.length > INDEX_BODY_CHARS ? a.body.slice(0, INDEX_BODY_CHARS) : a.body;
      const decoded = vectors ? vectors.decode(a.contentHash, body.length) : -1;
      if (decoded >= 0) {
        const values = vectors!.values;
        for (let i = 0; i < decoded; i += 2) stored(values[i]!, values[i + 1]!);
      } else if (!vectors) forEachTerm(body, emit);
      else {
        bodyTerms.clear();
        forEachTerm(body, collect);
        vectors.write(a.contentHash, body.length, [...bodyTerms.keys()], [...bodyTerms.values()]);
        // Writing may have added terms to the dictionary: their numbers are met next time.
      }
    }
    const chunk = { terms: terms.subarray(0, pairs), counts: counts.subarray(0, pairs * F) };
    which.forEach((d, i) => {
      out[d] = { chunk, start: starts[i]!, end: i + 1 < starts.length ? starts[i + 1]! : pairs, lengths: allLengths[i]! };
    });
  }
}

/** `a`'s entries in a new array of `length`, the entries past them `fill`. */
function grownTo(a: Int32Array, length: number, fill = 0): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(length);
  if (fill !== 0) grown.fill(fill, a.length);
  grown.set(a);
  return grown;
}
