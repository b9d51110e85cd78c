import type { Artifact } from '../model';
import { FIELDS, TermExtractor } from './docTerms';
import { forEachTerm, pathInPlayTerms } from './text';

export { INDEX_BODY_CHARS } from './docTerms';

type Field = (typeof FIELDS)[number];

export interface IndexParams {
  fieldWeights: Record<Field, number>;
  fieldB: Record<Field, number>;
  k1: number;
}

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

  /**
   * `extractor`: reads each document's terms (from the term vectors kept in the ledger) and
   * keeps them for the next index of the same ledger; without one every text is scanned.
   */
  static build(docs: readonly Artifact[], params: IndexParams, extractor: TermExtractor = new TermExtractor()): SearchIndex {
    // Flat typed arrays: this runs over every term of every document (17 MB of text for
    // 10,000 artifacts). The documents' terms are joined in document order, each numbered in
    // the index when first met, so the same documents give the same index, read or reused.
    const F = FIELDS.length;
    const n = docs.length;
    const docTerms = extractor.extract(docs);
    const termNames: string[] = [];
    const indexOf = new Int32Array(extractor.names.length).fill(-1);
    const lengths = FIELDS.map(() => new Float64Array(n));
    const docStart = new Int32Array(n + 1);
    let pairs = 0;
    for (let d = 0; d < n; d++) {
      const { start, end, lengths: own } = docTerms[d]!;
      docStart[d] = pairs;
      pairs += end - start;
      for (let f = 0; f < F; f++) lengths[f]![d] = own[f]!;
    }
    const pairTerm = new Int32Array(pairs);
    // Documents read together, in order (a cold build's), already lie as the index lays them out: their counts are used as they are.
    const chunk = n > 0 ? docTerms[0]!.chunk : undefined;
    const inPlace = chunk !== undefined && chunk.counts.length === pairs * F && docTerms.every((t, d) => t.chunk === chunk && t.start === docStart[d]);
    const pairTf = inPlace ? chunk.counts : new Int32Array(pairs * F);
    for (let d = 0; d < n; d++) {
      const { chunk: own, start, end } = docTerms[d]!;
      const terms = own.terms;
      let pair = docStart[d]!;
      for (let i = start; i < end; i++, pair++) {
        const number = terms[i]!;
        let id = indexOf[number]!;
        if (id < 0) {
          id = termNames.length;
          indexOf[number] = id;
          termNames.push(extractor.names[number]!);
        }
        pairTerm[pair] = id;
      }
      if (!inPlace) pairTf.set(own.counts.subarray(start * F, end * F), docStart[d]! * F);
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
    for (let d = 0; d < n; d++) {
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
    for (let d = 0; d < n; d++) {
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
