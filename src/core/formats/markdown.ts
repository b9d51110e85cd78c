/**
 * The one place that touches `marked`: its lexer is our Markdown parser. Everything
 * else in `formats/` works on the token stream it returns, never on regexes over
 * whole files (a `## [` inside a fenced block or an HTML comment is not a heading).
 */

// marked ships as an ES module only. The project compiles to CommonJS, which Node
// >= 20.19 can `require()` (require(esm)) and esbuild bundles either way; TypeScript's
// `module: commonjs` + `moduleResolution: node16` still reports TS1479 for it. `@ts-ignore`, not
// `@ts-expect-error`: the webview's type-check (moduleResolution bundler) reaches this file
// through type imports and sees no error here.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore TS1479: ESM-only package loaded through require(esm).
import { Lexer } from 'marked';
import type { MarkedOptions, Token, Tokens } from 'marked' with { 'resolution-mode': 'import' };

export type { Token, Tokens };

/**
 * Lexer options fixed here, so a `marked.use()` elsewhere in the process (a renderer
 * extension, say) can never change how files are imported.
 */
const LEXER_OPTIONS: MarkedOptions = { gfm: true, breaks: false, pedantic: false, async: false, silent: true };

/**
 * Block tokens of `source` (CRLF and lone CR normalised to LF). The `raw` fields of
 * the top-level tokens concatenate back to the normalised source, except on lines nested
 * too deep (capNesting), which are cut back first and described in `notes`. Inline tokens
 * are not produced (the importers never need them and they cost most of the lexing time).
 */
export function lexMarkdown(source: string, notes?: string[]): Token[] {
  const capped = capNesting(source.replace(/\r\n?/g, '\n'));
  if (capped.flattened.length > 0) notes?.push(describeFlattened(capped.flattened));
  const lexer = new Lexer(LEXER_OPTIONS);
  return lexer.blockTokens(capped.text, []);
}

/**
 * Deepest nesting of block quotes and list items kept on one line. The lexer recurses once
 * per level (about a thousand `>` overflow the stack) and re-reads an item's text once per
 * level it is nested in (3,000 ever-deeper list lines took over a minute: the time grows
 * with depth times size). Documents people write stay within four or five levels.
 */
export const MAX_MARKDOWN_NESTING = 8;
/** Most indentation kept before a line's text: eight levels of two-column (`- `) lists. */
export const MAX_MARKDOWN_INDENT = MAX_MARKDOWN_NESTING * 2;

/** One `>` or list marker of a line's prefix, with the blanks before it. */
const PREFIX_PART = /([ \t]*)(>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$))/y;
/** A fence (``` or ~~~) at the top level: lines inside are code and are never changed. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Columns `blanks` spans from column `from` (tabs to the next multiple of four); counting stops past the indentation limit. */
function columns(blanks: string, from: number): number {
  let col = from;
  for (let i = 0; i < blanks.length && col - from <= MAX_MARKDOWN_INDENT; i++) col = blanks.charCodeAt(i) === 9 ? col + 4 - (col % 4) : col + 1;
  return col - from;
}

/**
 * `text` with every line that nests deeper than MAX_MARKDOWN_NESTING (quotes and list
 * markers) or is indented past MAX_MARKDOWN_INDENT cut back to that depth: the markers and
 * blanks past the limit go, the words stay. `flattened` holds the 1-based lines changed.
 * Linear in the text; lines inside top-level fenced code are left alone.
 */
export function capNesting(text: string): { text: string; flattened: number[] } {
  const flattened: number[] = [];
  const lines = text.split('\n');
  let fence: string | null = null;
  // Indentation of the last line kept as it was: a line indented past the limit is cut back
  // to it, a sibling of the deepest item kept rather than code indented under it.
  let lastIndent = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = FENCE.exec(line);
    if (fence !== null) {
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && line.trim() === open[0].trim()) fence = null;
      continue;
    }
    if (open) {
      fence = open[1]!;
      continue;
    }
    let at = 0;
    let levels = 0;
    let indent = 0;
    let kept = '';
    let over = false;
    PREFIX_PART.lastIndex = 0;
    for (let part = PREFIX_PART.exec(line); part !== null; part = PREFIX_PART.exec(line)) {
      at = PREFIX_PART.lastIndex;
      if (++levels > MAX_MARKDOWN_NESTING) {
        over = true;
        continue;
      }
      let blanks = part[1]!;
      if (indent + columns(blanks, indent) > MAX_MARKDOWN_INDENT) {
        over = true;
        blanks = ' '.repeat(Math.max(0, Math.min(lastIndent, MAX_MARKDOWN_INDENT) - indent));
      }
      indent += columns(blanks, indent) + part[2]!.length;
      kept += blanks + part[2]!;
    }
    let blanks = /^[ \t]*/.exec(line.slice(at))![0];
    const rest = line.slice(at + blanks.length);
    if (indent + columns(blanks, indent) > MAX_MARKDOWN_INDENT) {
      over = true;
      blanks = ' '.repeat(Math.max(kept === '' ? 0 : 1, Math.min(lastIndent, MAX_MARKDOWN_INDENT) - indent));
    }
    if (!over) {
      if (rest !== '') lastIndent = columns(/^[ \t]*/.exec(line)![0], 0);
      continue;
    }
    lines[i] = `${kept}${blanks === '' && kept !== '' && rest !== '' ? ' ' : blanks}${rest}`;
    flattened.push(i + 1);
  }
  return { text: flattened.length > 0 ? lines.join('\n') : text, flattened };
}

/** What an import report says about the lines capNesting cut back. */
export function describeFlattened(lines: readonly number[]): string {
  const where = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines[0]}–${lines[lines.length - 1]} (${lines.length} lines)`;
  return `${where}: nesting deeper than ${MAX_MARKDOWN_NESTING} block quotes or list levels, or indentation past ${MAX_MARKDOWN_INDENT} columns, cut back to that depth (imported, every word kept)`;
}

/** Concatenated `raw` of tokens: the exact source text they came from. */
export function rawOf(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) out += token.raw;
  return out;
}

export function isHeading(token: Token): token is Tokens.Heading {
  return token.type === 'heading';
}

/** An `<!-- ... -->` block (and nothing else but whitespace). */
export function isHtmlComment(token: Token): boolean {
  if (token.type !== 'html') return false;
  const text = token.raw.trim();
  return text.startsWith('<!--') && (text.endsWith('-->') || !text.includes('-->'));
}

/** An HTML comment that opened and never closed: marked lets it run to end of file. */
export function isUnclosedComment(token: Token): boolean {
  return token.type === 'html' && token.raw.trimStart().startsWith('<!--') && !token.raw.includes('-->');
}

/** `Title` over a `===` / `---` line rather than `# Title`. */
export function isSetextHeading(token: Tokens.Heading): boolean {
  return !token.raw.trimStart().startsWith('#');
}

/** Tokens that carry no content: blank space, `---` rules, HTML comments. */
export function isFiller(token: Token): boolean {
  return token.type === 'space' || token.type === 'hr' || isHtmlComment(token);
}

/**
 * Markdown text of `tokens` without separators (`---`) and HTML comments, trimmed.
 * Used for bodies: what the author wrote, minus the file's scaffolding. With
 * `setextAsText`, a setext "heading" is put back as the paragraph it was meant to be
 * (an underline of three or more dashes is dropped as a separator).
 */
export function contentOf(tokens: readonly Token[], setextAsText = false): string {
  let out = '';
  for (const token of tokens) {
    if (setextAsText && isHeading(token) && isSetextHeading(token)) {
      out += token.raw.replace(/\n[ \t]*-{3,}[ \t]*(\n*)$/, '\n$1');
      continue;
    }
    if (token.type === 'hr' || isHtmlComment(token)) {
      if (!out.endsWith('\n\n') && out.length > 0) out += out.endsWith('\n') ? '\n' : '\n\n';
      continue;
    }
    out += token.raw;
  }
  return collapseBlankRuns(out).trim();
}

/** At most one blank line in a row (dropped separators leave gaps). */
function collapseBlankRuns(text: string): string {
  return text.replace(/\n[ \t]*\n(?:[ \t]*\n)+/g, '\n\n');
}

/** Heading text as plain text: inline emphasis, code ticks and links reduced to their words. */
export function headingText(token: Tokens.Heading): string {
  return plainInline(token.text);
}

/** Reduces inline Markdown to readable text (titles, tags): `**a**` → `a`, `[t](u)` → `t`. */
export function plainInline(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/(^|[^\w*])\*(?!\s)([^*]+?)\*(?!\w)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A list item's own text with its marker (`- `, `1. `, `- [ ] `) removed and de-indented. */
export function listItemText(item: Tokens.ListItem): string {
  const raw = item.raw.replace(/\s+$/, '');
  const marker = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[[ xX]\])?[ \t]*/.exec(raw);
  if (!marker) return raw.trim();
  const width = marker[0].length;
  const lines = raw.slice(width).split('\n');
  const indent = new RegExp(`^[ \\t]{0,${width}}`);
  return lines.map((line, index) => (index === 0 ? line : line.replace(indent, ''))).join('\n');
}

export interface Section {
  /** The heading that opens the section; null for the text before the first heading. */
  heading: Tokens.Heading | null;
  /** Everything after the heading up to the next heading of the same or a higher level. */
  tokens: Token[];
}

/**
 * Splits top-level tokens at headings of depth <= `depth`. The first section has a
 * null heading and holds whatever came before the first such heading. With
 * `atxOnly`, setext headings (`text` over a `---` or `-` line) are not headings: in
 * files whose entries are divided by `---` lines, or hard-wrapped before a hyphen,
 * they happen by accident.
 */
export function splitAtHeadings(tokens: readonly Token[], depth: number, atxOnly = false): Section[] {
  const sections: Section[] = [{ heading: null, tokens: [] }];
  for (const token of tokens) {
    if (isHeading(token) && token.depth <= depth && !(atxOnly && isSetextHeading(token))) {
      sections.push({ heading: token, tokens: [] });
    } else {
      sections[sections.length - 1]!.tokens.push(token);
    }
  }
  return sections;
}

/** Whether tokens hold anything but filler (a heading alone counts as nothing). */
export function hasContent(tokens: readonly Token[]): boolean {
  return tokens.some((token) => !isFiller(token) && (!isHeading(token) || isSetextHeading(token)));
}

/** 1-based line number where each top-level token starts (computed once per file). */
export function tokenLines(tokens: readonly Token[]): Map<Token, number> {
  const lines = new Map<Token, number>();
  let line = 1;
  for (const token of tokens) {
    lines.set(token, line);
    const raw = token.raw;
    for (let j = 0; j < raw.length; j++) if (raw.charCodeAt(j) === 10) line++;
  }
  return lines;
}
