import stem from 'wink-porter2-stemmer';
import { canonicalAdrRefs } from '../model';

/**
 * Words that carry no topic in task text or knowledge bodies. Kept short and English:
 * a stop word that is in fact a topic (e.g. "go") costs more than a noisy one.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could couldn did didn do does doesn doing don down during each either else etc even ever every few for from further ' +
    'get gets got had hadn has hasn have haven having he her here hers herself him himself his how however i if in into is isn it its ' +
    'itself just let lets like made make makes many may me might more most much must my myself no nor not now of off often on once ' +
    'one only onto or other others our ours ourselves out over own per rather same shall she should shouldn since so some still such ' +
    'than that the their theirs them themselves then there these they this those though through thus to too under until up upon us ' +
    'use used uses using very via was wasn way we well were weren what when where whether which while who whom whose why will with ' +
    'within without won would wouldn yet you your yours yourself yourselves'
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Stems are memoised: a knowledge base repeats a small vocabulary many times over. */
const stemMemo = new Map<string, string>();
const STEM_MEMO_LIMIT = 200_000;

export function stemWord(word: string): string {
  let stemmed = stemMemo.get(word);
  if (stemmed === undefined) {
    // Porter2 is defined for English letters; identifiers with digits or other scripts stay whole.
    stemmed = /^[a-z]+$/.test(word) && word.length > 3 ? stem(word) : word;
    if (stemMemo.size >= STEM_MEMO_LIMIT) stemMemo.clear();
    stemMemo.set(word, stemmed);
  }
  return stemmed;
}

/** Han, Hiragana, Katakana and Hangul are written without spaces: each character is a term. */
function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0xf900 && code <= 0xfaff)
  );
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function classify(code: number): 0 | 1 | 2 | 3 {
  // 0 separator, 1 lower/digit/other letter, 2 upper-case ASCII, 3 CJK (a term on its own)
  if (code < 128) {
    if (code >= 97 && code <= 122) return 1;
    if (code >= 48 && code <= 57) return 1;
    if (code >= 65 && code <= 90) return 2;
    return 0;
  }
  if (isCjk(code)) return 3;
  return LETTER_OR_DIGIT.test(String.fromCharCode(code)) ? 1 : 0;
}

/**
 * Normalised words, memoised by their raw spelling (null: not a term): indexing meets the
 * same few thousand spellings millions of times.
 */
const normalMemo = new Map<string, string | null>();
const NORMAL_MEMO_LIMIT = 200_000;

function normalizeWord(raw: string): string | undefined {
  let normal = normalMemo.get(raw);
  if (normal === undefined) {
    normal = normalizeUncached(raw) ?? null;
    if (normalMemo.size >= NORMAL_MEMO_LIMIT) normalMemo.clear();
    normalMemo.set(raw, normal);
  }
  return normal ?? undefined;
}

function normalizeUncached(raw: string): string | undefined {
  let word = raw.toLowerCase();
  // "ADR-0042" and "adr 42" are the same reference.
  if (/^\d+$/.test(word)) word = word.replace(/^0+(?=\d)/, '');
  if (word.length < 2 && !/^\d$/.test(word)) return undefined;
  if (word.length > 40 || STOP_WORDS.has(word)) return undefined;
  return stemWord(word);
}

/**
 * Splits text into search terms: lower-cased, stop words dropped, Porter2-stemmed.
 * Identifiers are split at camelCase humps (`ServiceContainer` also yields `service`
 * and `container`) and at `_`, `-`, `/`, `.`, so code names and prose meet.
 * `emit` is called once per term occurrence; callers count.
 */
export function forEachTerm(text: string, emit: (term: string) => void): void {
  // The word in progress lives in locals, not in a closure: this loop runs over every
  // character of every body on a cold build, and captured variables cost a memory access each.
  const length = text.length;
  let start = -1;
  let hash = 0;
  let humps: number[] | undefined;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    // Lower-case ASCII inside a word is most of all text: decided first.
    if (code >= 97 && code <= 122 && start >= 0) {
      hash = (Math.imul(hash, 31) + code) | 0;
      continue;
    }
    // Surrogate pairs: treat astral letters (rare scripts, emoji) as separators apart from letters.
    const kind = code >= 0xd800 && code <= 0xdfff ? 0 : classify(code);
    if (kind === 0) {
      if (start >= 0) {
        emitWord(text, start, i, hash, humps, emit);
        start = -1;
        humps = undefined;
      }
      continue;
    }
    if (kind === 3) {
      if (start >= 0) {
        emitWord(text, start, i, hash, humps, emit);
        start = -1;
        humps = undefined;
      }
      emit(text[i]!);
      continue;
    }
    if (start < 0) {
      start = i;
      hash = code;
      continue;
    }
    hash = (Math.imul(hash, 31) + code) | 0;
    if (kind === 2) {
      const prev = text.charCodeAt(i - 1);
      const next = i + 1 < length ? text.charCodeAt(i + 1) : 0;
      const prevLower = prev >= 97 && prev <= 122;
      const prevUpper = prev >= 65 && prev <= 90;
      const nextLower = next >= 97 && next <= 122;
      // fooBar -> foo|Bar ; HTTPServer -> HTTP|Server
      if (prevLower || (prevUpper && nextLower)) (humps ??= []).push(i);
    }
  }
  if (start >= 0) emitWord(text, start, length, hash, humps, emit);
}

/** Emits the terms of the word `text[start, end)`: its camelCase parts, then the whole word. */
function emitWord(text: string, start: number, end: number, hash: number, humps: number[] | undefined, emit: (term: string) => void): void {
  if (humps) {
    const word = text.slice(start, end);
    let from = 0;
    for (const hump of humps) {
      const part = normalizeWord(word.slice(from, hump - start));
      if (part) emit(part);
      from = hump - start;
    }
    const last = normalizeWord(word.slice(from));
    if (last) emit(last);
    const whole = normalizeWord(word);
    if (whole) emit(whole);
  } else {
    const whole = knownWord(text, start, end, hash);
    if (whole) emit(whole);
  }
}

/**
 * An open-addressing table of raw words and their normalised terms, probed with a hash
 * computed while scanning: a word seen before costs no string allocation. Starts over
 * when half full.
 */
const WORD_SLOTS = 1 << 16;
let wordKeys: Array<string | undefined> = new Array<string | undefined>(WORD_SLOTS);
let wordTerms: Array<string | undefined> = new Array<string | undefined>(WORD_SLOTS);
const wordHashes = new Int32Array(WORD_SLOTS);
let wordCount = 0;

function knownWord(text: string, start: number, end: number, hash: number): string | undefined {
  const length = end - start;
  const mask = WORD_SLOTS - 1;
  let slot = hash & mask;
  for (let key = wordKeys[slot]; key !== undefined; key = wordKeys[slot]) {
    if (wordHashes[slot] === hash && key.length === length) {
      let same = true;
      for (let i = 0; i < length; i++) {
        if (key.charCodeAt(i) !== text.charCodeAt(start + i)) {
          same = false;
          break;
        }
      }
      if (same) return wordTerms[slot];
    }
    slot = (slot + 1) & mask;
  }
  const raw = text.slice(start, end);
  const term = normalizeWord(raw);
  if (wordCount >= WORD_SLOTS / 2) {
    wordKeys = new Array<string | undefined>(WORD_SLOTS);
    wordTerms = new Array<string | undefined>(WORD_SLOTS);
    wordCount = 0;
    slot = hash & mask;
  }
  wordKeys[slot] = raw;
  wordTerms[slot] = term;
  wordHashes[slot] = hash;
  wordCount++;
  return term;
}

export function terms(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (term) => out.push(term));
  return out;
}

/** Terms of a workspace path: its folders and file name without the extension. */
export function pathTerms(path: string): string[] {
  return pathInPlayTerms(path.replace(/\.[A-Za-z0-9]{1,8}$/, ''));
}

/**
 * Terms of a file in play, for the query: its folders, its name and its extension, which
 * names its language ("go", "py", "cs"), a topic of a team's rules ("Go-specific").
 */
export function pathInPlayTerms(path: string): string[] {
  return terms(path.replace(/[*?{}[\]!]/g, ' '));
}

/**
 * Lower-case text with runs of non-letters collapsed, for phrase look-ups (titles, ids in
 * task text). ADR references are written one way first, so "ADR 57" names `adr-0057`.
 */
export function foldForPhrase(text: string): string {
  return ` ${canonicalAdrRefs(text).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
}
