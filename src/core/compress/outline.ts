import { commentStyle, maskCode } from './lexer';

/**
 * Declarations and signatures of a source file, bodies elided to `{ … }`, found at the
 * lexer level (see lexer.ts for the scope). It is an outline for an agent to read, not
 * code to compile: it may keep an odd statement or miss an exotic declaration, never
 * throws, and runs in linear time over the file.
 */
export interface OutlineOptions {
  /** Keep the full body of a declaration (medium compression keeps the ones the task names). */
  keepBody?: (header: string, body: string) => boolean;
  /** Keep import / use / include lines (they say what the file depends on). */
  keepImports?: boolean;
}

const ELIDED = '{ … }';
const MODIFIERS =
  /^(?:(?:export|default|declare|abstract|public|private|protected|internal|static|readonly|async|override|final|sealed|open|data|inline|virtual|unsafe|const(?=\s+(?:fn|enum)\b)|pub(?:\([^)]*\))?|extern(?:\s+"[^"]*")?)\s+)*/;
const IMPORT_LIKE = /^(?:import\b|use\s|using\s|#include\b|#import\b|from\s+\S+\s+import\b|extern\s+crate\b|require\s*\()/;
const KEEP_ALWAYS = /^(?:package\s|module\s+[\w.]+\s*;?$|namespace\s+[\w.]+\s*;$)/;
/** Bodies that are lists of members worth showing, not code. */
const CONTAINER = /^(?:class|interface|enum|struct|trait|impl|namespace|module|object|record|union|extension|protocol|mod|companion\s+object|enum\s+class|data\s+class|sealed\s+class|abstract\s+class|declare\s+global|global)\b/;
/** Type declarations are signatures themselves: kept whole. */
const TYPE_LIKE = /^(?:interface|enum|type\s+\w+(?:<[^=]*>)?\s*=|type\s+\w+\s+(?:struct|interface)\b|struct\b|union\b|const\s+enum\b)/;
const JS_DECLARATION =
  /^(?:export\b|declare\b|function\b|async\s+function\b|class\b|abstract\s+class\b|interface\b|type\s|enum\b|const\s|let\s|var\s|namespace\b|module\s+["'\w]|import\b|@|module\.exports\b|exports\.)/;
const JS_LANGS = new Set(['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs']);
const MAX_LINE = 200;

export function outlineCode(source: string, language: string, options: OutlineOptions = {}): string {
  const text = source.replace(/\r\n?/g, '\n');
  const style = commentStyle(language);
  if (language === 'py' || language === 'pyi') return outlinePython(text, options);
  if (style !== 'c') return genericOutline(text, options);
  const plain = maskCode(text, language).uncommented;
  const masked = maskCode(plain, language).code;
  const ctx: Ctx = { src: plain, code: masked, js: JS_LANGS.has(language), options };
  const out: string[] = [];
  renderRange(ctx, 0, plain.length, 0, out, true);
  return out.join('\n');
}

interface Ctx {
  src: string;
  code: string;
  js: boolean;
  options: OutlineOptions;
}

function isOpen(c: string): boolean {
  return c === '(' || c === '[' || c === '{';
}
function isClose(c: string): boolean {
  return c === ')' || c === ']' || c === '}';
}

function nextNonSpace(code: string, from: number, to: number): number {
  let i = from;
  while (i < to && /\s/.test(code[i]!)) i++;
  return i;
}

const CONTINUES_LINE = /^(?:\.|\?\.|\?\?|\)|\]|,|&&|\|\||\?|:|=(?!=)|=>|\+|\*|\/|%|as\s|satisfies\s|extends\s|implements\s|\{|else\b|catch\b|finally\b|while\b)/;
const ENDS_OPEN = /(?:[,=+\-*/&|?:(<[.{]|=>)$/;

/** Top-level statements of `code[from, to)` as ranges; nesting is counted with (), [] and {}. */
function splitStatements(ctx: Ctx, from: number, to: number): Array<[number, number]> {
  const { code } = ctx;
  const out: Array<[number, number]> = [];
  let depth = 0;
  let start = nextNonSpace(code, from, to);
  const emit = (end: number): void => {
    if (code.slice(start, end).trim() !== '') out.push([start, end]);
    start = nextNonSpace(code, end, to);
  };
  for (let i = start; i < to; i++) {
    if (i < start) continue;
    const c = code[i]!;
    if (isOpen(c)) depth++;
    else if (isClose(c)) {
      depth = Math.max(0, depth - 1);
      if (depth === 0 && c === '}') {
        // A block closed at statement level ends the statement unless what follows continues it.
        const after = nextNonSpace(code, i + 1, to);
        const lineEnd = code.indexOf('\n', i);
        const sameLine = after < to && (lineEnd < 0 || after < lineEnd);
        if (sameLine && code[after] === ';') emit(after + 1);
        else if (!sameLine && (after >= to || !CONTINUES_LINE.test(code.slice(after, after + 12)))) emit(i + 1);
      }
    } else if (depth === 0 && c === ';') emit(i + 1);
    else if (depth === 0 && c === '\n') {
      const sofar = code.slice(start, i).trim();
      if (sofar === '') {
        start = nextNonSpace(code, i, to);
        continue;
      }
      if (ENDS_OPEN.test(sofar) || /^@[\w.]+(?:\([^]*\))?$/.test(sofar)) continue;
      const after = nextNonSpace(code, i, to);
      if (after < to && CONTINUES_LINE.test(code.slice(after, after + 12))) continue;
      emit(i);
    }
  }
  if (start < to) emit(to);
  return out;
}

/** Position of the `{` that opens the statement's body (at nesting 0), or -1. */
function bodyBrace(code: string, from: number, to: number): number {
  let depth = 0;
  let angle = 0;
  for (let i = from; i < to; i++) {
    const c = code[i]!;
    if (c === '<' && /[\w$]$/.test(code.slice(Math.max(from, i - 1), i))) angle++;
    else if (c === '>' && angle > 0 && code[i - 1] !== '=') angle--;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '{') {
      if (depth === 0 && angle === 0) return i;
      depth++;
    } else if (c === '}') depth--;
  }
  return -1;
}

function matchingBrace(code: string, open: number, to: number): number {
  let depth = 0;
  for (let i = open; i < to; i++) {
    const c = code[i]!;
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return to - 1;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/([(<[]) /g, '$1').replace(/,? ([)\]>])/g, '$1').trim();
}

function shorten(line: string): string {
  return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE - 1)}…`;
}

/** Re-indents a multi-line slice so its first line sits at `indent`. */
function reindent(text: string, column: number, indent: string): string {
  return text
    .split('\n')
    .map((line, i) => {
      if (i === 0) return indent + line.trim();
      const lead = /^[ \t]*/.exec(line)![0].length;
      return indent + line.slice(Math.min(lead, column)).replace(/\s+$/, '');
    })
    .filter((line) => line.trim() !== '')
    .join('\n');
}

function columnOf(src: string, pos: number): number {
  return pos - (src.lastIndexOf('\n', pos - 1) + 1);
}

function renderRange(ctx: Ctx, from: number, to: number, level: number, out: string[], topLevel: boolean): void {
  const indent = '  '.repeat(level);
  for (const [s, e] of splitStatements(ctx, from, to)) {
    const raw = ctx.src.slice(s, e);
    const head = raw.trimStart();
    // Decorators lead the declaration they annotate; classify by what follows them.
    const decl = head.replace(/^(?:@[\w.]+(?:\([^)]*\))?\s+)+/, '');
    const bare = decl.replace(MODIFIERS, '');
    if (IMPORT_LIKE.test(bare)) {
      if (ctx.options.keepImports) out.push(indent + shorten(oneLine(raw)));
      continue;
    }
    if (KEEP_ALWAYS.test(bare)) {
      out.push(indent + shorten(oneLine(raw)));
      continue;
    }
    if (topLevel && ctx.js && !JS_DECLARATION.test(head)) continue;
    if (!topLevel && /^(?:if|for|while|switch|do|try|return|throw)\b/.test(bare)) continue;
    const brace = bodyBrace(ctx.code, s, e);
    if (TYPE_LIKE.test(bare) || (brace < 0 && !/=/.test(ctx.code.slice(s, e)))) {
      out.push(reindent(raw, columnOf(ctx.src, s), indent));
      continue;
    }
    const beforeBrace = brace < 0 ? '' : ctx.code.slice(s, brace);
    const assigned = /(?<![=!<>])=(?![=>])/.exec(brace < 0 ? ctx.code.slice(s, e) : beforeBrace);
    const functionLike = brace >= 0 && (/\)\s*(?::[^=]*|->[^{]*|\bthrows\b[^{]*|\bwhere\b[^{]*)?$/.test(beforeBrace.trim()) || /=>\s*$/.test(beforeBrace.trim()) || /\bfunction\b/.test(beforeBrace) || /^(?:get|set|static)\s*$/.test(oneLine(beforeBrace)));
    if (brace >= 0 && CONTAINER.test(bare) && !functionLike) {
      const close = matchingBrace(ctx.code, brace, e);
      out.push(`${indent}${shorten(oneLine(ctx.src.slice(s, brace)))} {`);
      renderRange(ctx, brace + 1, close, level + 1, out, false);
      out.push(`${indent}}`);
      continue;
    }
    if (brace >= 0 && (functionLike || !assigned)) {
      const close = matchingBrace(ctx.code, brace, e);
      const header = oneLine(ctx.src.slice(s, brace));
      const body = ctx.src.slice(brace, close + 1);
      if (ctx.options.keepBody?.(header, body)) {
        out.push(reindent(ctx.src.slice(s, close + 1), columnOf(ctx.src, s), indent));
      } else {
        out.push(`${indent}${shorten(header)} ${ELIDED}`);
      }
      continue;
    }
    // A value: short ones say what they are, long ones only their name and type.
    const flat = oneLine(raw);
    if (flat.length <= 120 && !raw.includes('\n')) {
      out.push(indent + flat);
      continue;
    }
    if (assigned) {
      const value = ctx.code.slice(s + assigned.index + 1, e).trimStart();
      const arrow = /^(?:async\s*)?(?:\([^]*?\)|[\w$]+)\s*(?::[^=]*)?=>/.exec(value) ? /=>/.exec(ctx.code.slice(s + assigned.index, e)) : null;
      if (value.startsWith('{') || value.startsWith('[')) {
        out.push(`${indent}${shorten(oneLine(ctx.src.slice(s, s + assigned.index)))} = ${value[0] === '{' ? ELIDED : '[ … ]'}`);
      } else if (arrow) {
        const upTo = s + assigned.index + arrow.index + 2;
        out.push(`${indent}${shorten(oneLine(ctx.src.slice(s, upTo)))} …`);
      } else {
        out.push(`${indent}${shorten(oneLine(ctx.src.slice(s, s + assigned.index)))} = …`);
      }
      continue;
    }
    out.push(indent + shorten(flat));
  }
}

const PY_HEADER = /^(\s*)(?:async\s+def|def|class)\s/;

/** Python by indentation: decorators, `def` / `class` headers and short module constants. */
function outlinePython(source: string, options: OutlineOptions): string {
  const plain = maskCode(source, 'py').uncommented;
  const lines = plain.split('\n');
  const out: string[] = [];
  const classes: Array<{ indent: number; body: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const indent = /^\s*/.exec(line)![0].length;
    while (classes.length > 0 && indent <= classes[classes.length - 1]!.indent) classes.pop();
    const inClass = classes[classes.length - 1];
    if (inClass && inClass.body < 0) inClass.body = indent;
    if (IMPORT_LIKE.test(trimmed)) {
      if (options.keepImports && indent === 0) out.push(trimmed);
      continue;
    }
    if (/^\s*@/.test(line)) {
      out.push(line.trimEnd());
      continue;
    }
    const header = PY_HEADER.exec(line);
    if (header) {
      // A signature may span lines until its parentheses close on a `:`.
      let end = i;
      let depth = 0;
      for (; end < lines.length; end++) {
        for (const c of lines[end]!) {
          if (c === '(' || c === '[') depth++;
          else if (c === ')' || c === ']') depth--;
        }
        if (depth <= 0 && /:\s*$/.test(lines[end]!)) break;
      }
      end = Math.min(end, lines.length - 1);
      const signature = lines.slice(i, end + 1).map((l, k) => (k === 0 ? l.trimEnd() : l.trim())).join(' ');
      let bodyEnd = end + 1;
      while (bodyEnd < lines.length && (lines[bodyEnd]!.trim() === '' || /^\s*/.exec(lines[bodyEnd]!)![0].length > indent)) bodyEnd++;
      const body = lines.slice(end + 1, bodyEnd).join('\n');
      if (!/^\s*class\s/.test(line) && options.keepBody?.(signature, body)) {
        out.push(...lines.slice(i, bodyEnd).filter((l) => l.trim() !== '').map((l) => l.trimEnd()));
        i = bodyEnd - 1;
        continue;
      }
      out.push(/^\s*class\s/.test(line) ? signature : `${signature} ...`);
      if (/^\s*class\s/.test(line)) classes.push({ indent, body: -1 });
      i = end;
      continue;
    }
    // Module constants and class attributes (`currency: str = "EUR"`): short ones say what state there is.
    const atLevel = indent === 0 || (inClass !== undefined && indent === inClass.body);
    if (atLevel && /^[A-Za-z_]\w*\s*(?::[^=]+)?=(?!=)|^[A-Za-z_]\w*\s*:\s*[\w[\]., |]+$/.test(trimmed) && trimmed.length <= 120) out.push(line.trimEnd());
  }
  return out.join('\n');
}

const GENERIC_DECLARATION = /^\s*(?:export\s+|pub\s+|public\s+|private\s+|static\s+)*(?:def|class|func|fn|function|struct|interface|type|enum|trait|impl|module|sub|proc|fun|val|var|let|const)\b/;

/** Languages the lexer does not know: lines that read like declarations. */
function genericOutline(source: string, options: OutlineOptions): string {
  const out: string[] = [];
  for (const line of source.split('\n')) {
    if (GENERIC_DECLARATION.test(line)) out.push(shorten(line.trimEnd()));
    else if (options.keepImports && IMPORT_LIKE.test(line.trim())) out.push(line.trim());
  }
  return out.join('\n');
}
