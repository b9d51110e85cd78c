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
interface Posting {
  docs: Int32Array;
  weights: Float64Array;
}

/** Every (document, term) pair of an index with what weighing it takes; see `SearchIndex.posting`. */
interface Pairs {
  params: IndexParams;
  weights: readonly number[];
  /** Each document's length normalisation per field (document-major). */
  norms: Float64Array;
  /** Each pair's count per field. */
  pairTf: Int32Array;
  pairDoc: Int32Array;
  /** Term t's pairs are termPairs[termStart[t] .. termStart[t + 1] - 1], in document order. */
  termStart: Int32Array;
  termPairs: Int32Array;
  /** In the order first met. */
  termNames: readonly string[];
}

export class SearchIndex {
  private readonly termNumbers = new Map<string, number>();
  private readonly weighed: Array<Posting | null | undefined>;

  private constructor(
    readonly size: number,
    private readonly pairs: Pairs,
  ) {
    pairs.termNames.forEach((term, t) => this.termNumbers.set(term, t));
    this.weighed = new Array<Posting | null | undefined>(pairs.termNames.length);
  }

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
    const bs = FIELDS.map((f) => params.fieldB[f]);
    const norms = new Float64Array(n * F);
    for (let d = 0; d < n; d++) for (let f = 0; f < F; f++) norms[d * F + f] = 1 - bs[f]! + (bs[f]! * lengths[f]![d]!) / avg[f]!;
    // Each term's pairs, in document order: its postings are weighed when first asked for.
    const termStart = new Int32Array(termNames.length + 1);
    for (let i = 0; i < pairs; i++) termStart[pairTerm[i]! + 1]!++;
    for (let t = 0; t < termNames.length; t++) termStart[t + 1]! += termStart[t]!;
    const filled = termStart.slice(0, termNames.length);
    const termPairs = new Int32Array(pairs);
    const pairDoc = new Int32Array(pairs);
    for (let d = 0; d < n; d++) {
      for (let i = docStart[d]!; i < docStart[d + 1]!; i++) {
        termPairs[filled[pairTerm[i]!]!++] = i;
        pairDoc[i] = d;
      }
    }
    return new SearchIndex(n, { params, weights: FIELDS.map((f) => params.fieldWeights[f]), norms, pairTf, pairDoc, termStart, termPairs, termNames });
  }

  /**
   * A term's postings (documents ascending, final weights; null: in no document's weighed
   * fields), weighed on first use: a build's query asks for a few dozen of the index's terms.
   */
  private posting(t: number): Posting | null {
    let posting = this.weighed[t];
    if (posting !== undefined) return posting;
    const { params, weights, norms, pairTf, pairDoc, termStart, termPairs } = this.pairs;
    const F = FIELDS.length;
    const from = termStart[t]!;
    const to = termStart[t + 1]!;
    const docs = new Int32Array(to - from);
    const pseudos = new Float64Array(to - from);
    let df = 0;
    for (let k = from; k < to; k++) {
      const i = termPairs[k]!;
      const d = pairDoc[i]!;
      let pseudo = 0;
      for (let f = 0; f < F; f++) {
        const count = pairTf[i * F + f]!;
        if (count > 0) pseudo += (weights[f]! * count) / norms[d * F + f]!;
      }
      if (pseudo <= 0) continue;
      docs[df] = d;
      pseudos[df++] = pseudo;
    }
    if (df === 0) posting = null;
    else {
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
      const weighted = new Float64Array(df);
      for (let j = 0; j < df; j++) weighted[j] = ((pseudos[j]! * (params.k1 + 1)) / (params.k1 + pseudos[j]!)) * idf;
      posting = { docs: docs.subarray(0, df), weights: weighted };
    }
    this.weighed[t] = posting;
    return posting;
  }

  private postingOf(term: string): Posting | null {
    const t = this.termNumbers.get(term);
    return t === undefined ? null : this.posting(t);
  }

  /** BM25F score of every document for weighted query terms. */
  score(query: ReadonlyMap<string, number>): Float64Array {
    const scores = new Float64Array(this.size);
    for (const [term, weight] of query) {
      const posting = this.postingOf(term);
      if (!posting) continue;
      const { docs, weights } = posting;
      for (let i = 0; i < docs.length; i++) scores[docs[i]!]! += weight * weights[i]!;
    }
    return scores;
  }

  /** Every term's postings (documents ascending, final weights), in the order terms were first seen. */
  forEachPosting(visit: (term: string, docs: Int32Array, weights: Float64Array) => void): void {
    const names = this.pairs.termNames;
    for (let t = 0; t < names.length; t++) {
      const posting = this.posting(t);
      if (posting) visit(names[t]!, posting.docs, posting.weights);
    }
  }

  documentFrequency(term: string): number {
    return this.postingOf(term)?.docs.length ?? 0;
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
