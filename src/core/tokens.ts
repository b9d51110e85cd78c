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

/**
 * Whether `text` has a run `LONG_RUN_PATTERN` would find: more than LONG_RUN code points
 * none of which is `\s`. The same answer as the pattern's `test`, without the regular
 * expression engine's cost per character (most texts counted are whole bodies).
 */
export function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 32 && code < 127) {
      if (++run > LONG_RUN) return true;
      continue;
    }
    if (isSpace(code)) {
      run = 0;
      continue;
    }
    // A surrogate pair is one code point, as for the pattern's `u` flag.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    if (++run > LONG_RUN) return true;
  }
  return false;
}

/** JavaScript's `\s`: ASCII white space, NBSP, the Unicode space separators, line/paragraph separators and BOM. */
function isSpace(code: number): boolean {
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Characters of text kept as keys of a counter's by-text memo before it starts over. */
const BY_TEXT_CHARS = 4 * 1024 * 1024;

const encodings = new Map<TokenizerName, Encoding>();

/**
 * Loads a tokenizer on first use only: loading o200k_base costs ~0.3 s, and a build whose
 * counts are all cached never needs it. Synchronous, so a counter can load it in the
 * middle of a build; the bundles reach each tokenizer's file through a `require` stub.
 */
function loadEncoding(name: TokenizerName): Encoding {
  let encoding = encodings.get(name);
  if (!encoding) {
    encoding =
      name === 'cl100k_base'
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports
          (require('gpt-tokenizer/encoding/cl100k_base') as Encoding)
        : // eslint-disable-next-line @typescript-eslint/no-require-imports
          (require('gpt-tokenizer/encoding/o200k_base') as Encoding);
    encodings.set(name, encoding);
  }
  return encoding;
}

/** Where counts survive between processes (the store's token_count table). */
export interface TokenCountCache {
  getTokenCount(contentHash: string, tokenizer: TokenizerName): number | undefined;
  putTokenCount(contentHash: string, tokenizer: TokenizerName, count: number): void;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Counts tokens synchronously, with an in-memory and optional persistent cache. The
 * tokenizer itself is loaded when a count is first missing from both caches.
 */
export class TokenCounter {
  private readonly memo = new Map<string, number>();
  /**
   * Counts by the text itself: warm builds count the same blocks and documents again, and
   * looking a string up costs far less than hashing it with SHA-256 first.
   */
  private readonly byText = new Map<string, number>();
  private byTextChars = 0;

  private loaded: Encoding | undefined;

  private constructor(
    readonly tokenizer: TokenizerName,
    private readonly persistent?: TokenCountCache,
  ) {}

  /** A counter with its tokenizer loaded now (for callers that count uncached text right away). */
  static load(tokenizer: TokenizerName, persistent?: TokenCountCache): Promise<TokenCounter> {
    const counter = new TokenCounter(tokenizer, persistent);
    counter.encoding();
    return Promise.resolve(counter);
  }

  /** A counter that loads its tokenizer only when a count is missing from the caches. */
  static lazy(tokenizer: TokenizerName, persistent?: TokenCountCache): TokenCounter {
    return new TokenCounter(tokenizer, persistent);
  }

  /** Whether the tokenizer has been loaded (a cached count does not load it). */
  get isLoaded(): boolean {
    return this.loaded !== undefined;
  }

  private encoding(): Encoding {
    this.loaded ??= loadEncoding(this.tokenizer);
    return this.loaded;
  }

  /** Exact count of `text` (an upper bound for pathological unbroken runs, see LONG_RUN). */
  count(text: string): number {
    if (text.length === 0) return 0;
    let n = this.byText.get(text);
    if (n !== undefined) return n;
    // Short texts are cheaper to count than to hash, once the tokenizer is loaded; until
    // then, and for the persistent cache's sake, they are looked up by hash like the rest.
    n = text.length < 64 && !this.persistent && this.loaded ? this.countUncached(text) : this.countWithHash(text, contentHash(text));
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
    const encoding = this.encoding();
    if (!hasLongRun(text)) return encoding.countTokens(text, COUNT_AS_TEXT);
    let total = 0;
    let rest = text;
    for (let match = LONG_RUN_PATTERN.exec(rest); match; match = LONG_RUN_PATTERN.exec(rest)) {
      const before = rest.slice(0, match.index);
      if (before) total += encoding.countTokens(before, COUNT_AS_TEXT);
      const run = match[0];
      const chars = Array.from(run);
      for (let i = 0; i < chars.length; i += LONG_RUN) {
        total += encoding.countTokens(chars.slice(i, i + LONG_RUN).join(''), COUNT_AS_TEXT) + 1;
      }
      rest = rest.slice(match.index + run.length);
    }
    if (rest) total += encoding.countTokens(rest, COUNT_AS_TEXT);
    return total;
  }
}

/** The rough `chars / 4` rule the seed designs budget with, for comparison. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
