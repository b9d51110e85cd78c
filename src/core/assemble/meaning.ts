import { seededRandom } from '../random';
import type { SearchIndex } from './relevance';

/**
 * Matching by meaning: latent semantic analysis learned from the ledger's own text.
 *
 * Words that occur in the same documents across the ledger ("token" and "budget", "retry"
 * and "backoff") fall on the same latent directions of the term-document matrix, so a task
 * and a note that share few words but the same vocabulary neighbourhood end up close. The
 * matrix is the search index's own postings (idf x saturated, length-normalised term
 * frequency: a sublinear tf-idf), each document scaled to unit length so a long document
 * does not own the topics. Its leading singular vectors come from a randomized range finder
 * (Halko, Martinsson and Tropp 2011) with a fixed seed, so one ledger gives one model and one
 * ranking. Nothing is downloaded: the model is the ledger.
 */

/** Latent dimensions at most: enough topics for a team's knowledge, few enough to generalise. */
const MAX_RANK = 64;
/**
 * A latent dimension has to summarise several documents, or the "model" just restates the
 * documents (with as many dimensions as documents, cosine in the latent space is cosine of
 * the words). Below this many documents per dimension the rank shrinks; below MIN_RANK
 * dimensions there is nothing to learn and the ledger is matched by its words alone.
 */
const DOCS_PER_DIMENSION = 4;
const MIN_RANK = 8;
/**
 * Extra random directions and power iterations of the range finder. The usual settings (8 and
 * 2) left the learned topics near the rank cut to the random start: the same ledger written in
 * another order gave public benchmark scores from 0.595 to 0.617. With 32 and 4 the model no
 * longer depends on the start (0.606 / 0.606 / 0.607 over three orders, docs/benchmarks.md).
 */
const OVERSAMPLE = 32;
const POWER_ITERATIONS = 4;
/**
 * Each document is represented by its most characteristic terms (highest weight) only: the
 * rest carries little meaning, and the cost of the model grows with terms x dimensions.
 */
const TERMS_PER_DOC = 48;
/**
 * Topics are learned from at most this many documents, spread evenly over the ledger; every
 * document is then placed in the learned space. Ten thousand artifacts cost little more than five hundred do.
 */
const MAX_TRAINING_DOCS = 500;

/**
 * Above this many artifacts the ledger is matched by its words alone: the model costs about
 * a third of the search index's build, which at 10,000 artifacts is more than the 10% a cold
 * build may grow (docs/benchmarks.md). Persisting the model with the term vectors would lift
 * this cap.
 */
export const MAX_MODEL_DOCS = 5000;

/** A term must occur in two documents to say anything about which documents go together. */
const MIN_DOCUMENT_FREQUENCY = 2;

export class MeaningModel {
  private constructor(
    readonly rank: number,
    /** Row of each term in `termVectors`. */
    private readonly rows: Map<string, number>,
    /** Terms x rank: each term's direction in the latent space (U, the left singular vectors over S). */
    private readonly termVectors: Float32Array,
    /** Documents x rank, unit length (all zero for a document with no learned term). */
    private readonly docVectors: Float32Array,
    readonly size: number,
  ) {}

  /** The model for the index's documents, or undefined when the ledger is too small to learn from. */
  static build(index: SearchIndex): MeaningModel | undefined {
    const n = index.size;
    if (n > MAX_MODEL_DOCS) return undefined;
    let rank = Math.min(MAX_RANK, Math.floor(n / DOCS_PER_DIMENSION));
    if (rank < MIN_RANK) return undefined;

    // Terms that occur in at least two documents, numbered in index order (deterministic).
    const rows = new Map<string, number>();
    const termDocs: Int32Array[] = [];
    const termWeights: Float64Array[] = [];
    index.forEachPosting((term, docs, weights) => {
      if (docs.length < MIN_DOCUMENT_FREQUENCY) return;
      rows.set(term, termDocs.length);
      termDocs.push(docs);
      termWeights.push(weights);
    });
    const m = rows.size;
    rank = Math.min(rank, Math.floor(m / DOCS_PER_DIMENSION));
    if (rank < MIN_RANK) return undefined;

    // Document-major copy (CSR), each document cut to its TERMS_PER_DOC heaviest terms and
    // scaled to unit length.
    const perDoc = new Int32Array(n + 1);
    for (const docs of termDocs) for (let i = 0; i < docs.length; i++) perDoc[docs[i]! + 1]!++;
    for (let d = 0; d < n; d++) perDoc[d + 1]! += perDoc[d]!;
    const allTerms = new Int32Array(perDoc[n]!);
    const allWeights = new Float64Array(perDoc[n]!);
    const fill = perDoc.slice(0, n);
    for (let t = 0; t < m; t++) {
      const docs = termDocs[t]!;
      const weights = termWeights[t]!;
      for (let i = 0; i < docs.length; i++) {
        const at = fill[docs[i]!]!++;
        allTerms[at] = t;
        allWeights[at] = weights[i]!;
      }
    }
    const start = new Int32Array(n + 1);
    let longest = 0;
    for (let d = 0; d < n; d++) {
      longest = Math.max(longest, perDoc[d + 1]! - perDoc[d]!);
      start[d + 1] = start[d]! + Math.min(TERMS_PER_DOC, perDoc[d + 1]! - perDoc[d]!);
    }
    const scratch = new Float64Array(longest);
    const terms = new Int32Array(start[n]!);
    const values = new Float64Array(start[n]!);
    for (let d = 0; d < n; d++) {
      const from = perDoc[d]!;
      const to = perDoc[d + 1]!;
      // Keep the heaviest: above the TERMS_PER_DOC-th weight, then ties in term order, so
      // the cut is the same on every run.
      let threshold = -Infinity;
      if (to - from > TERMS_PER_DOC) {
        scratch.set(allWeights.subarray(from, to));
        threshold = select(scratch, to - from, to - from - TERMS_PER_DOC);
      }
      let at = start[d]!;
      for (let i = from; i < to; i++) {
        if (allWeights[i]! <= threshold) continue;
        terms[at] = allTerms[i]!;
        values[at++] = allWeights[i]!;
      }
      for (let i = from; i < to && at < start[d + 1]!; i++) {
        if (allWeights[i]! !== threshold) continue;
        terms[at] = allTerms[i]!;
        values[at++] = allWeights[i]!;
      }
      let norm = 0;
      for (let i = start[d]!; i < at; i++) norm += values[i]! * values[i]!;
      norm = Math.sqrt(norm);
      for (let i = start[d]!; i < at; i++) values[i]! /= norm;
    }
    const matrix: Sparse = { n, m, start, terms, values };

    // Training documents: all of a small ledger, an even spread of a large one.
    const stride = Math.max(1, n / MAX_TRAINING_DOCS);
    const training: number[] = [];
    for (let x = 0; Math.floor(x) < n; x += stride) training.push(Math.floor(x));
    rank = Math.min(rank, Math.floor(training.length / DOCS_PER_DIMENSION));
    if (rank < MIN_RANK) return undefined;
    const width = Math.min(rank + OVERSAMPLE, m, training.length);

    // Range finder on the document side, where the matrix is small (at most
    // MAX_TRAINING_DOCS rows): Z spans the leading right singular directions of the training
    // matrix A (terms x training documents) after a few power iterations of AᵀA.
    const random = seededRandom(0x5eed);
    let z: Float64Array = new Float64Array(training.length * width);
    for (let i = 0; i < z.length; i++) z[i] = random() - 0.5;
    orthonormalize(z, training.length, width);
    for (let it = 0; it < POWER_ITERATIONS; it++) {
      z = transposeTimes(matrix, training, timesColumns(matrix, training, z, width), width);
      orthonormalize(z, training.length, width);
    }
    // C = A Z (terms x width); its singular vectors are A's: C = U S Wᵀ, with W and S² the
    // eigenvectors and eigenvalues of CᵀC = Zᵀ (Aᵀ C). A document or query x is then placed
    // in the latent space as Uᵀx, with U = C W S⁻¹.
    const c = timesColumns(matrix, training, z, width);
    const ac = transposeTimes(matrix, training, c, width);
    const gram = new Float64Array(width * width);
    for (let r = 0; r < training.length; r++) {
      const row = r * width;
      for (let i = 0; i < width; i++) {
        const v = z[row + i]!;
        if (v === 0) continue;
        for (let j = 0; j < width; j++) gram[i * width + j]! += v * ac[row + j]!;
      }
    }
    // Symmetric up to rounding: average the halves.
    for (let i = 0; i < width; i++) {
      for (let j = 0; j < i; j++) {
        const mean = (gram[i * width + j]! + gram[j * width + i]!) / 2;
        gram[i * width + j] = mean;
        gram[j * width + i] = mean;
      }
    }
    const { values: eigen, vectors } = symmetricEigen(gram, width);
    const byValue = Array.from({ length: width }, (_, i) => i).sort((a, b) => eigen[b]! - eigen[a]! || a - b);
    const top = Math.max(eigen[byValue[0]!]!, 0);
    rank = Math.min(rank, byValue.filter((i) => eigen[i]! > 1e-9 * top).length);
    if (rank < MIN_RANK) return undefined;
    // W S⁻¹ (width x rank).
    const rotation = new Float64Array(width * rank);
    for (let k = 0; k < rank; k++) {
      const col = byValue[k]!;
      const inverse = 1 / Math.sqrt(eigen[col]!);
      for (let j = 0; j < width; j++) rotation[j * rank + k] = vectors[j * width + col]! * inverse;
    }
    // U = C W S⁻¹ = A (Z W S⁻¹): the small product first (training documents x rank), then one
    // pass over the training documents' terms, rather than every term times the whole width.
    // Terms the training documents do not use stay zero.
    const docSide = new Float64Array(training.length * rank);
    for (let r = 0; r < training.length; r++) {
      for (let j = 0; j < width; j++) {
        const v = z[r * width + j]!;
        if (v === 0) continue;
        for (let k = 0; k < rank; k++) docSide[r * rank + k]! += v * rotation[j * rank + k]!;
      }
    }
    const termVectors = Float32Array.from(timesColumns(matrix, training, docSide, rank));
    // Every document, trained on or not, at Uᵀa_d: its coordinates scaled by the singular
    // values, so cosine here weighs the strong topics most.
    const docVectors = new Float32Array(n * rank);
    const point = new Float64Array(rank);
    for (let d = 0; d < n; d++) {
      point.fill(0);
      for (let i = start[d]!; i < start[d + 1]!; i++) {
        const row = terms[i]! * rank;
        const w = values[i]!;
        for (let k = 0; k < rank; k++) point[k]! += w * termVectors[row + k]!;
      }
      let norm = 0;
      for (let k = 0; k < rank; k++) norm += point[k]! * point[k]!;
      if (norm === 0) continue;
      norm = Math.sqrt(norm);
      for (let k = 0; k < rank; k++) docVectors[d * rank + k] = point[k]! / norm;
    }
    return new MeaningModel(rank, rows, termVectors, docVectors, n);
  }

  /**
   * Cosine between the query and every document in the latent space (-1..1, 0 for a
   * document with no learned term), or undefined when no query term is known to the model.
   * `idf` weighs the query's terms as the documents' own are weighed.
   */
  similarity(query: ReadonlyMap<string, number>, idf: (term: string) => number): Float64Array | undefined {
    const rank = this.rank;
    const point = new Float64Array(rank);
    for (const [term, weight] of query) {
      const row = this.rows.get(term);
      if (row === undefined || weight <= 0) continue;
      const w = weight * idf(term);
      for (let k = 0; k < rank; k++) point[k]! += w * this.termVectors[row * rank + k]!;
    }
    let norm = 0;
    for (let k = 0; k < rank; k++) norm += point[k]! * point[k]!;
    if (norm === 0) return undefined;
    norm = Math.sqrt(norm);
    const out = new Float64Array(this.size);
    for (let d = 0; d < this.size; d++) {
      let dot = 0;
      for (let k = 0; k < rank; k++) dot += point[k]! * this.docVectors[d * rank + k]!;
      out[d] = dot / norm;
    }
    return out;
  }
}

interface Sparse {
  n: number;
  m: number;
  /** Document d's entries are start[d] .. start[d + 1] - 1 of terms/values. */
  start: Int32Array;
  terms: Int32Array;
  values: Float64Array;
}

/** A (terms x chosen docs) times X (chosen docs x width, row-major): terms x width. */
function timesColumns(a: Sparse, docs: readonly number[], x: Float64Array, width: number): Float64Array {
  const y = new Float64Array(a.m * width);
  for (let r = 0; r < docs.length; r++) {
    const d = docs[r]!;
    const xRow = r * width;
    for (let i = a.start[d]!; i < a.start[d + 1]!; i++) {
      const yRow = a.terms[i]! * width;
      const w = a.values[i]!;
      for (let j = 0; j < width; j++) y[yRow + j]! += w * x[xRow + j]!;
    }
  }
  return y;
}

/** Aᵀ (chosen docs x terms) times Y (terms x width): chosen docs x width. */
function transposeTimes(a: Sparse, docs: readonly number[], y: Float64Array, width: number): Float64Array {
  const z = new Float64Array(docs.length * width);
  for (let r = 0; r < docs.length; r++) {
    const d = docs[r]!;
    const zRow = r * width;
    for (let i = a.start[d]!; i < a.start[d + 1]!; i++) {
      const yRow = a.terms[i]! * width;
      const w = a.values[i]!;
      for (let j = 0; j < width; j++) z[zRow + j]! += w * y[yRow + j]!;
    }
  }
  return z;
}

/**
 * Columns of a row-major (rows x width) matrix made orthonormal in place: Gram-Schmidt run
 * twice (stable), row by row so memory is read in order; a column that vanishes stays zero.
 */
function orthonormalize(x: Float64Array, rows: number, width: number): void {
  const dots = new Float64Array(width);
  for (let j = 0; j < width; j++) {
    for (let pass = 0; pass < 2 && j > 0; pass++) {
      dots.fill(0);
      for (let r = 0; r < rows; r++) {
        const row = r * width;
        const v = x[row + j]!;
        if (v === 0) continue;
        for (let k = 0; k < j; k++) dots[k]! += v * x[row + k]!;
      }
      for (let r = 0; r < rows; r++) {
        const row = r * width;
        let sum = 0;
        for (let k = 0; k < j; k++) sum += dots[k]! * x[row + k]!;
        x[row + j]! -= sum;
      }
    }
    let norm = 0;
    for (let r = 0; r < rows; r++) norm += x[r * width + j]! * x[r * width + j]!;
    norm = Math.sqrt(norm);
    const scale = norm > 1e-10 ? 1 / norm : 0;
    for (let r = 0; r < rows; r++) x[r * width + j]! *= scale;
  }
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a small symmetric matrix: cyclic Jacobi. */
function symmetricEigen(input: Float64Array, size: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(input);
  const v = new Float64Array(size * size);
  for (let i = 0; i < size; i++) v[i * size + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) off += a[i * size + j]! * a[i * size + j]!;
    if (off < 1e-22) break;
    for (let p = 0; p < size; p++) {
      for (let r = p + 1; r < size; r++) {
        const apr = a[p * size + r]!;
        if (Math.abs(apr) < 1e-300) continue;
        const theta = (a[r * size + r]! - a[p * size + p]!) / (2 * apr);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < size; k++) {
          const akp = a[k * size + p]!;
          const akr = a[k * size + r]!;
          a[k * size + p] = c * akp - s * akr;
          a[k * size + r] = s * akp + c * akr;
        }
        for (let k = 0; k < size; k++) {
          const apk = a[p * size + k]!;
          const ark = a[r * size + k]!;
          a[p * size + k] = c * apk - s * ark;
          a[r * size + k] = s * apk + c * ark;
        }
        for (let k = 0; k < size; k++) {
          const vkp = v[k * size + p]!;
          const vkr = v[k * size + r]!;
          v[k * size + p] = c * vkp - s * vkr;
          v[k * size + r] = s * vkp + c * vkr;
        }
      }
    }
  }
  const values = new Float64Array(size);
  for (let i = 0; i < size; i++) values[i] = a[i * size + i]!;
  return { values, vectors: v };
}

/** The k-th smallest (from 0) of x[0 .. length), reordering x: Hoare's selection. */
function select(x: Float64Array, length: number, k: number): number {
  let lo = 0;
  let hi = length - 1;
  while (lo < hi) {
    const pivot = x[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (x[i]! < pivot) i++;
      while (x[j]! > pivot) j--;
      if (i <= j) {
        const swap = x[i]!;
        x[i++] = x[j]!;
        x[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return x[k]!;
}
