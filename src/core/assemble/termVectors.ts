import { contentHash } from '../tokens';
import { STOP_WORDS, pathTerms, terms } from './text';

/** Where term vectors persist between processes (the store's term tables). */
export interface TermVectorStore {
  /** Stored vectors written by extraction `version`, by key; new ones are added to the same map. */
  termVectors(version: string): Map<string, Uint8Array>;
  /** Every term a stored vector refers to, by its number; new terms are appended in place. */
  termDictionary(): string[];
  putTermVector(key: string, version: string, data: Uint8Array): void;
}

const PROBE =
  'The HTTPServer parses fooBar_baz ADR-0042 and 007 payments; running runners ran quickly into retries. 日本語 émigré naïve ÀÉÎ über Straße';

/**
 * What a vector depends on besides the body: how text becomes terms. Any change to the
 * stop words, the stemmer or camelCase splitting shows in this fingerprint, and vectors
 * of another fingerprint are not used.
 */
export function extractionVersion(indexBodyChars: number): string {
  return contentHash(JSON.stringify([2, indexBodyChars, [...STOP_WORDS].sort(), terms(PROBE), pathTerms('src/Foo/barBaz_qux.test.ts')])).slice(0, 16);
}

/**
 * The search terms of artifact bodies with their counts, kept per body (by its content
 * hash) so a cold build reads them instead of scanning every body again; titles, tags and
 * paths are short and scanned every time. Encoded as variable-length integers: the
 * length of the text scanned (a damaged row rarely keeps it), then per distinct term its
 * number in the dictionary and its count.
 */
export class TermVectors {
  private readonly stored: Map<string, Uint8Array>;
  /** Every term a stored vector refers to, by its number (the store's own array: new terms are appended to it). */
  readonly dictionary: string[];
  private readonly numbers = new Map<string, number>();
  /** The last vector `decode` read (a damaged row's entries are never used). */
  values = new Float64Array(1024);

  constructor(
    private readonly store: TermVectorStore,
    private readonly version: string,
  ) {
    this.stored = store.termVectors(version);
    this.dictionary = store.termDictionary();
    this.dictionary.forEach((term, i) => this.numbers.set(term, i));
  }

  /**
   * Decodes the body's stored vector into `values` (term numbers in `dictionary` at even
   * entries, their counts at odd ones) and returns how many entries it holds, or -1 when there
   * is none or it is not a well-formed vector over known terms (a damaged row is not used).
   * The caller reads `values` before the next call: a cold index decodes every body's vector,
   * so one array is reused rather than a callback called per term.
   */
  decode(bodyHash: string, scannedLength: number): number {
    const data = this.stored.get(bodyHash);
    if (!data) return -1;
    const length = data.length;
    // Every entry takes at least a byte: the array is grown once, before decoding.
    if (length > this.values.length) this.values = new Float64Array(Math.max(length, this.values.length * 2));
    const values = this.values;
    const dictionary = this.dictionary;
    // Decoded and checked whole: the length scanned, then term numbers and counts.
    let at = 0;
    let count = -1;
    while (at < length) {
      let byte = data[at++]!;
      let value = byte & 0x7f;
      if (byte >= 0x80) {
        let scale = 0x80;
        for (let shift = 7; ; shift += 7) {
          if (at >= length || shift > 28) return -1;
          byte = data[at++]!;
          value += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 0x80;
        }
      }
      if (count === -1) {
        if (value !== scannedLength) return -1;
      } else {
        if (count % 2 === 0 ? dictionary[value] === undefined : value === 0) return -1;
        values[count] = value;
      }
      count++;
    }
    return count < 0 || count % 2 !== 0 ? -1 : count;
  }

  /** Bytes of the body's stored vector (0: none): at least the entries it decodes to. */
  storedBytes(bodyHash: string): number {
    return this.stored.get(bodyHash)?.length ?? 0;
  }

  /** Stores the body's terms with their counts. */
  write(bodyHash: string, scannedLength: number, termsOfBody: readonly string[], counts: readonly number[]): void {
    const bytes: number[] = [];
    const push = (value: number): void => {
      while (value >= 0x80) {
        bytes.push((value % 0x80) | 0x80);
        value = Math.floor(value / 0x80);
      }
      bytes.push(value);
    };
    push(scannedLength);
    for (let i = 0; i < termsOfBody.length; i++) {
      const term = termsOfBody[i]!;
      let number = this.numbers.get(term);
      if (number === undefined) {
        number = this.dictionary.length;
        this.dictionary.push(term);
        this.numbers.set(term, number);
      }
      push(number);
      push(counts[i]!);
    }
    this.store.putTermVector(bodyHash, this.version, Uint8Array.from(bytes));
  }
}
