import type { Artifact } from '../model';
import { forEachTerm, pathTerms } from './text';

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

interface Posting {
  docs: number[];
  weights: number[];
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

  static build(docs: readonly Artifact[], params: IndexParams): SearchIndex {
    const termIds = new Map<string, number>();
    const termNames: string[] = [];
    const lengths = FIELDS.map(() => new Float64Array(docs.length));
    const docTerms: Array<{ ids: Int32Array; tf: Float64Array[] }> = [];
    const local = new Map<number, number>();
    for (let d = 0; d < docs.length; d++) {
      const a = docs[d]!;
      local.clear();
      const ids: number[] = [];
      const tf: number[][] = FIELDS.map(() => []);
      const add = (field: number) => (term: string) => {
        let id = termIds.get(term);
        if (id === undefined) {
          id = termNames.length;
          termIds.set(term, id);
          termNames.push(term);
        }
        let slot = local.get(id);
        if (slot === undefined) {
          slot = ids.length;
          local.set(id, slot);
          ids.push(id);
          for (const column of tf) column.push(0);
        }
        tf[field]![slot]!++;
        lengths[field]![d]!++;
      };
      forEachTerm(a.title, add(0));
      const addTag = add(1);
      for (const tag of a.tags) forEachTerm(tag, addTag);
      const addPath = add(2);
      for (const p of a.paths) for (const t of pathTerms(p)) addPath(t);
      const addBody = add(3);
      if (a.summary) forEachTerm(a.summary, addBody);
      forEachTerm(a.body.length > INDEX_BODY_CHARS ? a.body.slice(0, INDEX_BODY_CHARS) : a.body, addBody);
      docTerms.push({ ids: Int32Array.from(ids), tf: tf.map((column) => Float64Array.from(column)) });
    }
    const avg = lengths.map((column) => {
      let sum = 0;
      for (const value of column) sum += value;
      return docs.length > 0 && sum > 0 ? sum / docs.length : 1;
    });
    const building: Posting[] = termNames.map(() => ({ docs: [], weights: [] }));
    const weights = FIELDS.map((f) => params.fieldWeights[f]);
    const bs = FIELDS.map((f) => params.fieldB[f]);
    for (let d = 0; d < docTerms.length; d++) {
      const { ids, tf } = docTerms[d]!;
      const norms = FIELDS.map((_, f) => 1 - bs[f]! + (bs[f]! * lengths[f]![d]!) / avg[f]!);
      for (let i = 0; i < ids.length; i++) {
        let pseudo = 0;
        for (let f = 0; f < FIELDS.length; f++) {
          const count = tf[f]![i]!;
          if (count > 0) pseudo += (weights[f]! * count) / norms[f]!;
        }
        if (pseudo <= 0) continue;
        const posting = building[ids[i]!]!;
        posting.docs.push(d);
        posting.weights.push((pseudo * (params.k1 + 1)) / (params.k1 + pseudo));
      }
    }
    const n = docs.length;
    const postings = new Map<string, { docs: Int32Array; weights: Float64Array }>();
    for (let t = 0; t < termNames.length; t++) {
      const posting = building[t]!;
      const df = posting.docs.length;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const w = Float64Array.from(posting.weights, (x) => x * idf);
      postings.set(termNames[t]!, { docs: Int32Array.from(posting.docs), weights: w });
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

  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  idf(term: string): number {
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }
}

export interface QuerySource {
  text: string;
  weight: number;
  /** Paths are split into folder and file terms. */
  isPath?: boolean;
}

/**
 * Weighted query terms: each source contributes its weight once per distinct term, so
 * a word named in the title and in a path counts for both, but repeating it does not.
 */
export function buildQuery(sources: readonly QuerySource[]): Map<string, number> {
  const query = new Map<string, number>();
  for (const source of sources) {
    if (source.weight <= 0 || !source.text) continue;
    const seen = new Set<string>();
    const collect = (term: string) => seen.add(term);
    if (source.isPath) for (const t of pathTerms(source.text)) collect(t);
    else forEachTerm(source.text, collect);
    for (const term of seen) query.set(term, (query.get(term) ?? 0) + source.weight);
  }
  return query;
}
