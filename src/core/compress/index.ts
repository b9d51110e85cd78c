/**
 * Compression before cutting: an item that does not fit is first made smaller while it
 * still says what it said, and only then degraded to a preview or a title. Deterministic
 * and local: the same text, level and task terms always give the same output.
 */
import type { TokenCounter } from '../tokens';
import { languageOf, stripComments } from './lexer';
import { outlineCode } from './outline';
import { collapseBlank, heavyProse, lightProse, mediumProse } from './prose';
import { terms } from '../assemble/text';
import type { CompressionLevel, ContentKind } from './types';

export { languageOf } from './lexer';
export { outlineCode, type OutlineOptions } from './outline';
export { splitSentences } from './prose';
export { COMPRESSION_LEVELS, type CompressionLevel, type ContentKind } from './types';

export interface CompressInput {
  text: string;
  kind: ContentKind;
  /** Language id (`ts`, `py`, `yaml`, ...) for code and config; derived from `path` when absent. */
  language?: string;
  path?: string;
  /** Stemmed task terms (see `taskTerms`); medium keeps what mentions them. */
  query?: ReadonlySet<string>;
  /** A ready outline (an editor's symbol provider); heavy compression of code uses it. */
  outline?: string;
}

export interface Compressed {
  text: string;
  level: CompressionLevel;
  /** Tokens after / tokens before (1 = nothing saved). */
  ratio: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** The stemmed terms of the task text, as the assembler's relevance uses them. */
export function taskTerms(text: string): Set<string> {
  return new Set(terms(text));
}

const CONFIG_LANGUAGES = new Set(['yml', 'yaml', 'json', 'jsonc', 'toml', 'ini', 'env', 'dockerfile', 'conf', 'properties', 'xml', 'tf', 'hcl']);

/** The content kind of a file by its path. */
export function kindOfPath(path: string): ContentKind {
  const language = languageOf(path);
  if (language === 'md' || language === 'mdx' || language === 'markdown') return 'markdown';
  if (language === 'txt' || language === 'rst' || language === 'adoc' || language === '') return 'text';
  if (CONFIG_LANGUAGES.has(language)) return 'config';
  return 'code';
}

function languageFor(input: CompressInput): string {
  return input.language ?? (input.path ? languageOf(input.path) : '');
}

/** The compressed text alone (no counting): the level's transformation of the input. */
export function compressText(input: CompressInput, level: CompressionLevel): string {
  const text = input.text.replace(/\r\n?/g, '\n');
  const query = input.query ?? new Set<string>();
  const language = languageFor(input);
  switch (input.kind) {
    case 'markdown':
    case 'text': {
      const markdown = input.kind === 'markdown';
      if (level === 'light') return lightProse(text, markdown);
      return level === 'medium' ? mediumProse(text, markdown, query) : heavyProse(text, markdown, query);
    }
    case 'code': {
      const light = collapseBlank(stripComments(text, language));
      if (level === 'light') return light;
      if (level === 'heavy' && input.outline !== undefined && input.outline.trim() !== '') return input.outline.trim();
      const mentions = (header: string, body: string): boolean => {
        let hit = false;
        for (const term of terms(`${header}\n${body}`)) if (query.has(term)) hit = true;
        return hit;
      };
      const outline = outlineCode(text, language, level === 'medium' ? { keepImports: true, keepBody: query.size > 0 ? mentions : undefined } : {});
      if (outline.trim() !== '') return outline;
      // A script with no declarations: its first lines say what it does.
      return firstLines(light, 20);
    }
    case 'config': {
      const light = collapseBlank(stripComments(text, language));
      if (level !== 'heavy') return light;
      // Structure: the top three levels of keys, as the file spells them.
      return light
        .split('\n')
        .filter((line) => /^(?: {0,4}|\t{0,2})\S/.test(line))
        .join('\n');
    }
  }
}

function firstLines(text: string, n: number): string {
  const lines = text.split('\n');
  return lines.length <= n ? text : `${lines.slice(0, n).join('\n')}\n…`;
}

/** Compresses `input` at `level` and measures what it saved with the budget's tokenizer. */
export function compress(input: CompressInput, level: CompressionLevel, counter: TokenCounter): Compressed {
  const tokensBefore = counter.count(input.text);
  const text = compressText(input, level);
  const tokensAfter = counter.count(text);
  return { text, level, ratio: tokensBefore === 0 ? 1 : round(tokensAfter / tokensBefore), tokensBefore, tokensAfter };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
