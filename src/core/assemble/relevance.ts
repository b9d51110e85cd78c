import type { Artifact } from '../model';
import { forEachTerm, pathInPlayTerms, pathTerms } from './text';
import type { TermVectors } from './termVectors';

/** Field order in the index. */
const FIELDS = ['title', 'tags', 'paths', 'body'] as const;
type Field = (typeof FIELDS)[number];

export interface IndexParams {
  fieldWeights: Record<Field, number>;
  fieldB: Record<Field, number>;
  k1: number;
}

/**
 * Bodies past this many characters are indexed by their head only: the topic of a
 * document shows early, and one pasted megabyte must not dominate index time.
 */
export const INDEX_BODY_CHARS = 64 * 1024;

/**
 * A BM25F index over title, tags, paths and body, with every posting's final weight
 * (idf x saturated, length-normalised, field-boosted term frequency) computed once, so a
 * query costs one pass over the postings of its terms.
 */
export class SearchIndex {
  private constructor(
    readonly size: number,
    private readonly postings: Map<string, { docs: Int32Array; weights: Float64Array }>,
  ) {}

  /** `vectors`: term vectors kept from earlier builds, read instead of scanning the text (and added to). */
  static build(docs: readonly Artifact[], params: IndexParams, vectors?: TermVectors): SearchIndex {
    // Flat typed arrays and one reused closure: this runs over every word of every body on
    // a cold build (17 MB for 10,000 artifacts), so per-term and per-document allocations
    // dominated it. Document d's distinct terms are pairs docStart[d] .. docStart[d + 1] - 1.
    const F = FIELDS.length;
    const n = docs.length;
    const termIds = new Map<string, number>();
    const termNames: string[] = [];
    const lengths = FIELDS.map(() => new Float64Array(n));
    const docStart = new Int32Array(n + 1);
    let pairTerm = new Int32Array(1 << 16);
    let pairTf = new Int32Array(F << 16);
    let pairs = 0;
    // The document that last saw each term, and the term's pair in that document.
    let seenIn = new Int32Array(4096).fill(-1);
    let pairOf = new Int32Array(4096);
    let d = 0;
    let field = 0;
    let fieldLengths = lengths[0]!;
    let times = 1;
    const emit = (term: string): void => {
      let id = termIds.get(term);
      if (id === undefined) {
        id = termNames.length;
        termIds.set(term, id);
        termNames.push(term);
        if (id >= seenIn.length) {
          const grownSeen = new Int32Array(seenIn.length * 2).fill(-1);
          grownSeen.set(seenIn);
          seenIn = grownSeen;
          const grownPair = new Int32Array(pairOf.length * 2);
          grownPair.set(pairOf);
          pairOf = grownPair;
        }
      }
      let pair: number;
      if (seenIn[id] !== d) {
        seenIn[id] = d;
        pair = pairs++;
        if (pair >= pairTerm.length) {
          const grownTerm = new Int32Array(pairTerm.length * 2);
          grownTerm.set(pairTerm);
          pairTerm = grownTerm;
          const grownTf = new Int32Array(pairTf.length * 2);
          grownTf.set(pairTf);
          pairTf = grownTf;
        }
        pairOf[id] = pair;
        pairTerm[pair] = id;
      } else pair = pairOf[id]!;
      pairTf[pair * F + field]! += times;
      fieldLengths[d]! += times;
    };
    const inField = (f: number): void => {
      field = f;
      fieldLengths = lengths[f]!;
    };
    const stored = (term: string, count: number): void => {
      times = count;
      emit(term);
    };
    // A body's terms and counts, when it is scanned, for its term vector.
    const bodyTerms = new Map<string, number>();
    const collect = (term: string): void => {
      bodyTerms.set(term, (bodyTerms.get(term) ?? 0) + 1);
      emit(term);
    };
    for (d = 0; d < n; d++) {
      const a = docs[d]!;
      docStart[d] = pairs;
      inField(0);
      forEachTerm(a.title, emit);
      inField(1);
      for (const tag of a.tags) forEachTerm(tag, emit);
      inField(2);
      for (const p of a.paths) for (const t of pathTerms(p)) emit(t);
      inField(3);
      if (a.summary) forEachTerm(a.summary, emit);
      const body = a.body.length > INDEX_BODY_CHARS ? a.body.slice(0, INDEX_BODY_CHARS) : a.body;
      if (!vectors) forEachTerm(body, emit);
      else if (vectors.read(a.contentHash, body.length, stored)) times = 1;
      else {
        bodyTerms.clear();
        forEachTerm(body, collect);
        vectors.write(a.contentHash, body.length, [...bodyTerms.keys()], [...bodyTerms.values()]);
      }
    }
    docStart[n] = pairs;
    const avg = lengths.map((column) => {
      let sum = 0;
      for (let i = 0; i < column.length; i++) sum += column[i]!;
      return n > 0 && sum > 0 ? sum / n : 1;
    });
    const weights = FIELDS.map((f) => params.fieldWeights[f]);
    const bs = FIELDS.map((f) => params.fieldB[f]);
    // First pass: each (document, term) weight before idf, and each term's document frequency.
    const pseudoOf = new Float64Array(pairs);
    const df = new Int32Array(termNames.length);
    const norms = new Float64Array(F);
    for (d = 0; d < n; d++) {
      for (let f = 0; f < F; f++) norms[f] = 1 - bs[f]! + (bs[f]! * lengths[f]![d]!) / avg[f]!;
      for (let i = docStart[d]!; i < docStart[d + 1]!; i++) {
        let pseudo = 0;
        for (let f = 0; f < F; f++) {
          const count = pairTf[i * F + f]!;
          if (count > 0) pseudo += (weights[f]! * count) / norms[f]!;
        }
        pseudoOf[i] = pseudo;
        if (pseudo > 0) df[pairTerm[i]!]!++;
      }
    }
    // Second pass: postings in document order, weights saturated and multiplied by idf.
    // Every term's postings are a slice of one flat array.
    const postingStart = new Int32Array(termNames.length + 1);
    for (let t = 0; t < termNames.length; t++) postingStart[t + 1] = postingStart[t]! + df[t]!;
    const postingDocs = new Int32Array(postingStart[termNames.length]!);
    const postingWeights = new Float64Array(postingDocs.length);
    const filled = postingStart.slice(0, termNames.length);
    const idfs = Float64Array.from(df, (count) => Math.log(1 + (n - count + 0.5) / (count + 0.5)));
    for (d = 0; d < n; d++) {
      for (let i = docStart[d]!; i < docStart[d + 1]!; i++) {
        const pseudo = pseudoOf[i]!;
        if (pseudo <= 0) continue;
        const t = pairTerm[i]!;
        const at = filled[t]!++;
        postingDocs[at] = d;
        postingWeights[at] = ((pseudo * (params.k1 + 1)) / (params.k1 + pseudo)) * idfs[t]!;
      }
    }
    const postings = new Map<string, { docs: Int32Array; weights: Float64Array }>();
    for (let t = 0; t < termNames.length; t++) {
      if (df[t] === 0) continue;
      const from = postingStart[t]!;
      const to = postingStart[t + 1]!;
      postings.set(termNames[t]!, { docs: postingDocs.subarray(from, to), weights: postingWeights.subarray(from, to) });
    }
    return new SearchIndex(n, postings);
  }

  /** BM25F score of every document for weighted query terms. */
  score(query: ReadonlyMap<string, number>): Float64Array {
    const scores = new Float64Array(this.size);
    for (const [term, weight] of query) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const { docs, weights } = posting;
      for (let i = 0; i < docs.length; i++) scores[docs[i]!]! += weight * weights[i]!;
    }
    return scores;
  }

  /** Every term's postings (documents ascending, final weights), in the order terms were first seen. */
  forEachPosting(visit: (term: string, docs: Int32Array, weights: Float64Array) => void): void {
    for (const [term, posting] of this.postings) visit(term, posting.docs, posting.weights);
  }

  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  idf(term: string): number {
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }
}

/** Words of the task (`text`), or the paths in play, each split into its folders, its name and its extension. */
export type QuerySource = { text: string; weight: number } | { paths: readonly string[]; weight: number };

/**
 * Weighted query terms: each source contributes its weight once per distinct term, so
 * a word named in the title and in a path counts for both, but repeating it does not.
 */
export function buildQuery(sources: readonly QuerySource[]): Map<string, number> {
  const query = new Map<string, number>();
  for (const source of sources) {
    if (source.weight <= 0) continue;
    const seen = new Set<string>();
    const collect = (term: string) => seen.add(term);
    if ('paths' in source) for (const path of source.paths) for (const t of pathInPlayTerms(path)) collect(t);
    else forEachTerm(source.text, collect);
    for (const term of seen) query.set(term, (query.get(term) ?? 0) + source.weight);
  }
  return query;
}
