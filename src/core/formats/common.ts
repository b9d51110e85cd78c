/**
 * Shapes and helpers shared by the format importers and exporters: the import result,
 * front matter, slugs, stable ids, titles, dates and glob lists. Pure functions only.
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { ArtifactInput } from '../model';
import { slugify } from '../slug';

export { slugify };

/** The formats the importers understand. */
export const IMPORT_FORMATS = [
  'ctx',
  'adr',
  'copilot',
  'cursor',
  'claude',
  'agents-md',
  'cline',
  'kiro',
  'windsurf',
  'gemini',
  'junie',
  'continue',
  'roo',
  'amazonq',
  'augment',
  'zed',
  'skills',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A file handed to an importer: its workspace-relative path ('/'-separated) and text. */
export interface SourceFile {
  path: string;
  content: string;
}

/** An open item from a task list (ctx TASKS.md). The store decides what to do with it. */
export interface ImportedTask {
  id: string;
  title: string;
  description: string;
  labels: string[];
  /** The heading the item sits under (e.g. "Phase 2: Importers"), if any. */
  section: string | null;
  /** From an `#added:YYYY-MM-DD` tag, as UTC ISO; null when the item has none. */
  createdAt: string | null;
  source: string;
}

/** `newerId` replaces `olderId` (ids of artifacts in the same import). */
export interface Supersession {
  olderId: string;
  newerId: string;
}

/** Something that was not imported, and why. `where` is `path` or `path:line`. */
export interface Skipped {
  where: string;
  reason: string;
}

/** What one imported file became (always-on, path-scoped, on request, …) and why, in its tool's terms. */
export interface Became {
  where: string;
  what: string;
}

export interface ImportResult {
  artifacts: ArtifactInput[];
  /** For each file imported: what it became and why (agent rule files). */
  became?: Became[];
  tasks?: ImportedTask[];
  supersessions?: Supersession[];
  skipped: Skipped[];
}

/** `import:<format>:<relative path>`, the `source` of every imported artifact (read back by `parseImportSource`). */
export function importSource(format: ImportFormat, path: string): string {
  return `import:${format}:${path}`;
}

export { baseName, dirName, normalizePath, parseImportSource } from './filePaths';

// ---------------------------------------------------------------------------
// Front matter

export interface FrontMatter {
  /** Parsed keys; empty when there is no front matter. */
  data: Record<string, unknown>;
  /** The text after the front matter (the whole text when there is none). */
  body: string;
  present: boolean;
  /** Set when front matter was present but could not be read at all. */
  error?: string;
  /**
   * Set (to the YAML error) when the front matter is not valid YAML and `data` comes from the
   * lenient `key: value` reading. A tool that parses strict YAML (Cline) does not read it.
   */
  invalidYaml?: string;
}

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/**
 * Splits `---` YAML front matter off a file. Values are read as YAML (1.2 core schema:
 * dates stay strings); when that fails, as the `key: value` lines Cursor and Copilot
 * accept (`globs: *.ts` is invalid YAML but common). Never throws.
 */
export function splitFrontMatter(content: string): FrontMatter {
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  const opening = OPENING.exec(text);
  if (!opening) return { data: {}, body: text, present: false };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) {
    return { data: {}, body: text, present: true, error: 'front matter opened with --- but never closed' };
  }
  const yamlText = rest.slice(0, closing.index);
  let body = rest.slice(closing.index + closing[0].length);
  body = body.replace(/^\r?\n/, '');
  const strict = readYamlMapping(yamlText);
  if (strict.ok) return { data: strict.data, body, present: true };
  const lenient = readLooseMapping(yamlText);
  if (lenient) return { data: lenient, body, present: true, invalidYaml: strict.error };
  return { data: {}, body, present: true, error: `malformed front matter: ${strict.error}` };
}

function readYamlMapping(text: string): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, data: {} };
  try {
    const value: unknown = parseYaml(text, { schema: 'core', uniqueKeys: true, maxAliasCount: 100 });
    if (value === null || value === undefined) return { ok: true, data: {} };
    if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'not a key: value mapping' };
    return { ok: true, data: value as Record<string, unknown> };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: message.split('\n')[0] ?? message };
  }
}

/** `key: value` lines, `key:` followed by `- item` lines, `# comments`. Null if anything else. */
function readLooseMapping(text: string): Record<string, unknown> | null {
  const data: Record<string, unknown> = {};
  let listKey: string | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? (listKey ? /^-\s+(.*)$/.exec(line) : null);
    if (item && listKey) {
      (data[listKey] as string[]).push(unquote(item[1]!.trim()));
      continue;
    }
    const pair = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/.exec(line);
    if (!pair) return null;
    const key = pair[1]!;
    const value = (pair[2] ?? '').trim();
    if (value === '') {
      data[key] = [];
      listKey = key;
      continue;
    }
    listKey = null;
    data[key] = looseScalar(value);
  }
  return data;
}

function looseScalar(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\[.*\]$/.test(value)) {
    return value
      .slice(1, -1)
      .split(',')
      .map((part) => unquote(part.trim()))
      .filter((part) => part !== '');
  }
  return unquote(value);
}

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) {
    return value.slice(1, -1);
  }
  return value;
}

// ---------------------------------------------------------------------------
// Values from front matter

export function stringValue(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return null;
}

export function booleanValue(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true' || lower === 'yes') return true;
    if (lower === 'false' || lower === 'no') return false;
  }
  return null;
}

/** Strings from a YAML list, or a comma-separated string; trimmed, empty ones dropped. */
export function stringList(value: unknown): string[] {
  const parts: string[] = [];
  const add = (item: unknown): void => {
    const text = stringValue(item);
    if (text === null) return;
    for (const part of splitOutsideBraces(text)) {
      const trimmed = unquote(part.trim());
      if (trimmed !== '' && !parts.includes(trimmed)) parts.push(trimmed);
    }
  };
  if (Array.isArray(value)) for (const item of value) add(item);
  else add(value);
  return parts;
}

/** Splits on commas that are not inside `{a,b}` brace groups of a glob. */
export function splitOutsideBraces(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Globs as a list: split, `./` dropped, `**`-everything globs recognised by `isEverythingGlob`. */
export function globList(value: unknown): string[] {
  return stringList(value).map((glob) => glob.replace(/^(?:\.\/)+/, ''));
}

/** A glob that matches every file, so the rule is really global. */
export function isEverythingGlob(glob: string): boolean {
  return glob === '**' || glob === '**/*' || glob === '*' || glob === '/**' || glob === '**/**';
}

/** Prefixes workspace-relative folder `dir` to globs written relative to it. */
export function globsUnder(dir: string, globs: readonly string[]): string[] {
  if (dir === '') return [...globs];
  return globs.map((glob) => `${dir}/${glob.replace(/^\/+/, '')}`);
}

// ---------------------------------------------------------------------------
// Dates

/** `YYYY-MM-DD` plus optional `-HHMMSS` (ctx) → `YYYY-MM-DDTHH:MM:SSZ`, or null if not a real date. */
export function ctxStampToIso(stamp: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:-(\d{2})(\d{2})(\d{2}))?$/.exec(stamp.trim());
  if (!match) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = match;
  return utcIso(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s));
}

function utcIso(y: number, mo: number, d: number, h: number, mi: number, s: number): string | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A date or date-time from front matter or a `Date:` line → UTC ISO (seconds), or null. */
export function isoDate(value: unknown): string | null {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? null : value.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  const text = stringValue(value);
  if (text === null) return null;
  const day = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (day) return utcIso(Number(day[1]), Number(day[2]), Number(day[3]), 0, 0, 0);
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) {
    const parsed = new Date(/(?:Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
    if (!Number.isNaN(parsed.getTime())) return parsed.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return null;
}

// ---------------------------------------------------------------------------
// Slugs, ids, titles

/** First `length` hex digits of the SHA-256 of `text`: short, stable disambiguators. */
export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, length);
}

/** Hands out ids; a repeated base gets `-2`, `-3`, ... in the order asked. */
export class IdAllocator {
  private readonly used = new Map<string, number>();

  next(base: string): string {
    const seen = this.used.get(base);
    if (seen === undefined) {
      this.used.set(base, 1);
      return base;
    }
    let n = seen + 1;
    while (this.used.has(`${base}-${n}`)) n++;
    this.used.set(base, n);
    this.used.set(`${base}-${n}`, 1);
    return `${base}-${n}`;
  }
}

/** `prefix-slug` (slug bounded), or `prefix-<hash>` when the text has no ASCII to slug. */
export function slugId(prefix: string, text: string, max = 60): string {
  const slug = slugify(text, max);
  return `${prefix}-${slug === '' ? shortHash(text) : slug}`;
}

/** Cuts text to `max` characters at a word boundary, with an ellipsis when cut. */
export function truncate(text: string, max = 80): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space >= max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.—-]+$/, '')}…`;
}

/**
 * A title from free text (a bullet, a rule): a **bold lead-in** if it opens with one
 * ("**Name files by content**: ..."), else the first sentence or clause (a very short
 * first clause such as "P0.9.2:" takes the next one along), as plain text of at most
 * ~80 characters.
 */
export function clauseTitle(text: string, max = 80): string {
  const firstBlock = text.split(/\n\s*\n|\n\s*[-*+] /)[0] ?? text;
  const oneLine = firstBlock.replace(/\s*\n\s*/g, ' ').trim();
  const bold = /^(\*\*|__)(.+?)\1(?=\s*(?:[:.—–-]|$)|\s*$)/.exec(oneLine) ?? /^(\*\*|__)((?:\S+\s+){2,}\S*?[^\s*_]?)\1/.exec(oneLine);
  let title: string;
  if (bold) {
    title = bold[2]!;
  } else {
    title = firstClause(oneLine);
  }
  const plain = stripInline(title).replace(/[\s:;,.]+$/, '');
  return truncate(plain === '' ? stripInline(oneLine) : plain, max);
}

/**
 * Text up to the first sentence or clause boundary (`. `, `: `, `; `, ` — `, ` - `)
 * outside code spans and parentheses; skips boundaries after abbreviations and
 * after a lead-in too short to stand alone ("P0.9.2:", "Note:").
 */
function firstClause(line: string): string {
  let inCode = false;
  let parens = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '`') inCode = !inCode;
    if (inCode) continue;
    if (ch === '(' || ch === '[') parens++;
    else if ((ch === ')' || ch === ']') && parens > 0) parens--;
    if (parens > 0) continue;
    const next = line[i + 1];
    const atEnd = next === undefined || next === ' ' || next === '\t';
    const boundary =
      ((ch === '.' || ch === '!' || ch === '?' || ch === ':' || ch === ';') && atEnd && next !== undefined) ||
      ((ch === '—' || ch === '–' || ch === '-') && line[i - 1] === ' ' && next === ' ');
    if (!boundary) continue;
    const candidate = line.slice(0, i).trim();
    if (/\b(?:e\.g|i\.e|etc|vs|cf|approx|incl)$/i.test(candidate)) continue;
    const words = candidate.split(/\s+/).length;
    if (words <= 2 && (candidate.length <= 12 || !candidate.includes(' '))) continue;
    return candidate;
  }
  return line;
}

function stripInline(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|~~)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Drops exact duplicates, keeping first occurrences in order. */
export function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** Path-scope fields for a list of globs: none → global. */
export function scopeForGlobs(globs: readonly string[]): Pick<ArtifactInput, 'scope' | 'paths'> {
  const real = globs.filter((glob) => !isEverythingGlob(glob));
  if (real.length === 0 || real.length < globs.length) return { scope: 'global', paths: [] };
  return { scope: 'path', paths: real };
}
