/**
 * A lexer-level view of source code, enough to drop comments and find declarations
 * without a parser: the TypeScript compiler API would multiply the CLI bundle for an
 * outline. Scope: C-family syntax (TS/JS, Java, C#, Go, Rust, C/C++, Kotlin, Swift,
 * PHP) and `#`-comment languages (Python, shell, YAML, Ruby, TOML, Dockerfile).
 */

export type CommentStyle = 'c' | 'hash' | 'none';

const C_FAMILY = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'java', 'kt', 'kts', 'cs', 'go', 'rs', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp',
  'hh', 'swift', 'scala', 'dart', 'php', 'css', 'scss', 'less', 'json5', 'jsonc', 'proto', 'groovy', 'gradle', 'sol', 'zig',
]);
const HASH_FAMILY = new Set(['py', 'pyi', 'sh', 'bash', 'zsh', 'yml', 'yaml', 'rb', 'toml', 'dockerfile', 'r', 'pl', 'ps1', 'cmake', 'mk', 'makefile', 'conf', 'ini', 'env', 'tf', 'hcl', 'nix']);

/** Language id from a path (`src/a.ts` -> `ts`, `Dockerfile.prod` -> `dockerfile`). */
export function languageOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name === 'dockerfile' || name.startsWith('dockerfile.') || name.endsWith('.dockerfile')) return 'dockerfile';
  if (name === 'makefile' || name === 'gnumakefile') return 'makefile';
  if (name === 'cmakelists.txt') return 'cmake';
  if (name.startsWith('.env')) return 'env';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1) : '';
}

export function commentStyle(language: string): CommentStyle {
  if (C_FAMILY.has(language)) return 'c';
  if (HASH_FAMILY.has(language)) return 'hash';
  return 'none';
}

/** Languages whose `/` can start a regular expression literal. */
const REGEX_LANGUAGES = new Set(['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs']);
/** A `/` after one of these (or at the start) begins a regex literal rather than a division. */
const BEFORE_REGEX = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);

export interface Masked {
  /** Same length as the source: comments become spaces (newlines kept), string contents become spaces. */
  code: string;
  /** The source with comments removed (strings kept). */
  uncommented: string;
}

/**
 * Masks comments and string contents of C-family or `#`-comment code. Positions in
 * `code` line up with the source, so brace depth measured there applies to the source.
 * Unterminated strings and comments run to the end of their line or file, as an editor
 * would show them: the lexer never throws.
 */
export function maskCode(source: string, language: string): Masked {
  const style = commentStyle(language);
  const regexAllowed = REGEX_LANGUAGES.has(language);
  const pythonic = language === 'py' || language === 'pyi';
  const n = source.length;
  const code: string[] = [];
  const kept: string[] = [];
  const blank = (text: string): string => text.replace(/[^\n]/g, ' ');
  // Ordinary text is copied in runs; only these characters can open a comment, string or regex.
  const special = style === 'hash' ? /[#"'`]/g : /[/"'`]/g;
  let i = 0;
  while (i < n) {
    special.lastIndex = i;
    const found = special.exec(source);
    const at = found ? found.index : n;
    if (at > i) {
      const run = source.slice(i, at);
      code.push(run);
      kept.push(run);
      i = at;
      if (at >= n) break;
    }
    const ch = source[i]!;
    const next = i + 1 < n ? source[i + 1]! : '';
    if (style === 'c' && ch === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      code.push(blank(source.slice(i, stop)));
      i = stop;
      continue;
    }
    if (style === 'c' && ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      const comment = source.slice(i, stop);
      code.push(blank(comment));
      // Keep the line structure where a block comment spanned lines.
      const newlines = comment.split('\n').length - 1;
      if (newlines > 0) kept.push('\n'.repeat(newlines));
      i = stop;
      continue;
    }
    if (ch === '#') {
      const before = i === 0 ? '\n' : source[i - 1]!;
      // `#` opens a comment at the start of a line or after whitespace (`a#b` in YAML is a value).
      if (/\s/.test(before)) {
        const end = source.indexOf('\n', i);
        const stop = end < 0 ? n : end;
        code.push(blank(source.slice(i, stop)));
        i = stop;
        continue;
      }
    }
    if (ch === '"' || ch === "'" || ch === '`') {
      const triple = pythonic && source.startsWith(ch.repeat(3), i);
      const end = stringEnd(source, i, ch, triple, language);
      const literal = source.slice(i, end);
      const open = triple ? 3 : 1;
      const close = literal.length > open && literal.endsWith(triple ? ch.repeat(3) : ch) ? open : 0;
      code.push(literal.slice(0, open) + blank(literal.slice(open, literal.length - close)) + literal.slice(literal.length - close));
      kept.push(literal);
      i = end;
      continue;
    }
    if (regexAllowed && ch === '/' && startsRegex(source, i)) {
      const end = regexEnd(source, i);
      if (end > 0) {
        const literal = source.slice(i, end);
        code.push(`/${' '.repeat(literal.length - 2)}/`);
        kept.push(literal);
        i = end;
        continue;
      }
    }
    code.push(ch);
    kept.push(ch);
    i++;
  }
  return { code: code.join(''), uncommented: kept.join('') };
}

/** Whether a `/` at `at` begins a regex literal: judged by what comes before it, as a JS lexer does. */
function startsRegex(source: string, at: number): boolean {
  let j = at - 1;
  while (j >= 0 && (source[j] === ' ' || source[j] === '\t' || source[j] === '\n' || source[j] === '\r')) j--;
  if (j < 0) return true;
  const prev = source[j]!;
  if (BEFORE_REGEX.has(prev)) return true;
  if (!/[\w$]/.test(prev)) return false;
  return /\b(?:return|typeof|case|in|of|yield|await|void|delete|throw|else|do)$/.test(source.slice(Math.max(0, j - 7), j + 1));
}

function stringEnd(source: string, start: number, quote: string, triple: boolean, language: string): number {
  const n = source.length;
  if (triple) {
    const end = source.indexOf(quote.repeat(3), start + 3);
    return end < 0 ? n : end + 3;
  }
  // Backquotes span lines in JS (template literals) and Go (raw strings); other quotes end at the line.
  const multiline = quote === '`';
  let depth = 0;
  for (let i = start + 1; i < n; i++) {
    const ch = source[i]!;
    if (ch === '\\' && language !== 'go') {
      i++;
      continue;
    }
    if (ch === '\n' && !multiline) return i;
    if (quote === '`' && ch === '$' && source[i + 1] === '{') {
      depth++;
      i++;
      continue;
    }
    if (depth > 0) {
      if (ch === '{') depth++;
      else if (ch === '}') depth--;
      continue;
    }
    if (ch === quote) return i + 1;
  }
  return n;
}

/** End of a regex literal starting at `start`, or -1 if the line does not close one. */
function regexEnd(source: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\n') return -1;
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === ']') inClass = false;
    else if (ch === '/' && !inClass) {
      let end = i + 1;
      while (end < source.length && /[a-z]/i.test(source[end]!)) end++;
      return end;
    }
  }
  return -1;
}

/**
 * Source without its comments: lines that held only a comment go, blank lines and
 * everything else stay where they were (the uncommented text keeps the line structure).
 */
export function stripComments(source: string, language: string): string {
  if (commentStyle(language) === 'none') return source;
  const original = source.split('\n');
  const stripped = maskCode(source, language).uncommented.split('\n');
  const out: string[] = [];
  for (let i = 0; i < stripped.length; i++) {
    const line = stripped[i]!;
    if (line.trim() === '' && (original[i] ?? '').trim() !== '') continue;
    out.push(line);
  }
  return out.join('\n');
}
