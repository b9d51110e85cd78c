import { createHash } from 'node:crypto';
import type { TokenizerName } from './model';

/** The part of gpt-tokenizer's encoding API the ledger uses. */
interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/**
 * Special tokens such as `<|endoftext|>` are counted as the plain text a chat API
 * would see them as, never rejected: an artifact about tokenizers must still count.
 */
const COUNT_AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * BPE on one unbroken run of non-space characters is quadratic in gpt-tokenizer (a
 * 100 kB base64 blob takes ~10 s). Runs longer than this are counted in slices, which
 * can only forbid merges across a slice edge; each slice edge adds one token of margin
 * so the count stays an upper bound and a budget is never overrun.
 */
const LONG_RUN = 400;
const LONG_RUN_PATTERN = new RegExp(`\\S{${LONG_RUN + 1},}`, 'u');

/** Characters of text kept as keys of a counter's by-text memo before it starts over. */
const BY_TEXT_CHARS = 4 * 1024 * 1024;

const encodingCache = new Map<TokenizerName, Promise<Encoding>>();

/** Loads a tokenizer on first use only: loading o200k_base costs ~0.3 s. */
function loadEncoding(name: TokenizerName): Promise<Encoding> {
  let pending = encodingCache.get(name);
  if (!pending) {
    pending =
      name === 'cl100k_base'
        ? import('gpt-tokenizer/encoding/cl100k_base')
        : import('gpt-tokenizer/encoding/o200k_base');
    encodingCache.set(name, pending);
  }
  return pending;
}

/** Where counts survive between processes (the store's token_count table). */
export interface TokenCountCache {
  getTokenCount(contentHash: string, tokenizer: TokenizerName): number | undefined;
  putTokenCount(contentHash: string, tokenizer: TokenizerName, count: number): void;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A loaded tokenizer that counts synchronously, with an in-memory and optional persistent cache. */
export class TokenCounter {
  private readonly memo = new Map<string, number>();
  /**
   * Counts by the text itself: warm builds count the same blocks and documents again, and
   * looking a string up costs far less than hashing it with SHA-256 first.
   */
  private readonly byText = new Map<string, number>();
  private byTextChars = 0;

  private constructor(
    readonly tokenizer: TokenizerName,
    private readonly encoding: Encoding,
    private readonly persistent?: TokenCountCache,
  ) {}

  static async load(tokenizer: TokenizerName, persistent?: TokenCountCache): Promise<TokenCounter> {
    return new TokenCounter(tokenizer, await loadEncoding(tokenizer), persistent);
  }

  /** Exact count of `text` (an upper bound for pathological unbroken runs, see LONG_RUN). */
  count(text: string): number {
    if (text.length === 0) return 0;
    let n = this.byText.get(text);
    if (n !== undefined) return n;
    n = text.length < 64 ? this.countUncached(text) : this.countWithHash(text, contentHash(text));
    if (text.length <= BY_TEXT_CHARS / 16) {
      if (this.byTextChars + text.length > BY_TEXT_CHARS) {
        this.byText.clear();
        this.byTextChars = 0;
      }
      this.byText.set(text, n);
      this.byTextChars += text.length;
    }
    return n;
  }

  /** Count for text whose hash the caller already has (artifact bodies carry one). */
  countWithHash(text: string, hash: string): number {
    const known = this.memo.get(hash) ?? this.persistent?.getTokenCount(hash, this.tokenizer);
    if (known !== undefined) {
      this.memo.set(hash, known);
      return known;
    }
    const counted = this.countUncached(text);
    this.memo.set(hash, counted);
    this.persistent?.putTokenCount(hash, this.tokenizer, counted);
    return counted;
  }

  private countUncached(text: string): number {
    if (!LONG_RUN_PATTERN.test(text)) return this.encoding.countTokens(text, COUNT_AS_TEXT);
    let total = 0;
    let rest = text;
    for (let match = LONG_RUN_PATTERN.exec(rest); match; match = LONG_RUN_PATTERN.exec(rest)) {
      const before = rest.slice(0, match.index);
      if (before) total += this.encoding.countTokens(before, COUNT_AS_TEXT);
      const run = match[0];
      const chars = Array.from(run);
      for (let i = 0; i < chars.length; i += LONG_RUN) {
        total += this.encoding.countTokens(chars.slice(i, i + LONG_RUN).join(''), COUNT_AS_TEXT) + 1;
      }
      rest = rest.slice(match.index + run.length);
    }
    if (rest) total += this.encoding.countTokens(rest, COUNT_AS_TEXT);
    return total;
  }
}

/** The rough `chars / 4` rule the seed designs budget with, for comparison. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
