/**
 * Architecture Decision Records → `adr` artifacts, plus the supersession relations
 * between them.
 *
 * Reads Nygard / adr-tools files (`# 2. Title`, `Date:` line, `## Status`), MADR 2
 * (`* Status: accepted` bullets under the title), MADR 3+ and other front-matter
 * styles (`status`, `date`, `tags`, `superseded_by` in YAML). The ADR number comes
 * from the file name (`0003-use-x.md`, `adr_0003.md`, `ADR-003-x.md`), else from the
 * title (`ADR-0003:`, `3.`), and is kept in the id (`adr-0003`).
 */
import type { ArtifactInput, ArtifactStatus } from '../model';
import type { ImportResult, Skipped, SourceFile, Supersession } from './common';
import {
  IdAllocator,
  baseName,
  importSource,
  isoDate,
  normalizePath,
  slugify,
  splitFrontMatter,
  stringList,
  stringValue,
} from './common';
import type { Token, Tokens } from './markdown';
import { contentOf, hasContent, headingText, isHeading, lexMarkdown, splitAtHeadings } from './markdown';

/** Front matter keys the ADR importer maps to artifact fields (the rest go to the recorded `frontMatter`). */
const KNOWN_KEYS = new Set([
  'title',
  'status',
  'date',
  'created',
  'updated',
  'last_updated',
  'tags',
  'description',
  'superseded_by',
  'superseded-by',
  'supersededby',
  'supersedes',
]);

const NOT_ADR_FILES = /^(?:readme|index|toc|template|adr-template|0000-template|_template|contributing|changelog)(?:\.[a-z]+)?\.md$/i;

/** `0003-use-x.md`, `adr_0003.md`, `ADR-003-use-x.md`, `adr 3.md` → 3. */
export function adrNumberFromFileName(path: string): number | null {
  const match = /^(?:adr[-_ ]?)?(\d{1,6})(?=[-_ .]|$)/i.exec(baseName(path));
  return match ? Number(match[1]) : null;
}

/** Removes an `ADR-0001:` / `ADR 1 -` / `[ADR-001]` / `1.` prefix; returns the number it held. */
export function stripAdrPrefix(title: string): { title: string; number: number | null } {
  const patterns = [
    /^\[?ADR[-_ ]?#?(\d{1,6})\]?\s*(?:[:.—–-]\s*|\s+)/i,
    /^(\d{1,6})\s*[.:)]\s+/,
    /^(\d{1,6})\s+[—–-]\s+/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(title);
    if (match) {
      const rest = title.slice(match[0].length).trim();
      if (rest !== '') return { title: rest, number: Number(match[1]) };
    }
  }
  return { title: title.trim(), number: null };
}

interface ParsedAdr {
  path: string;
  artifact: ArtifactInput;
  number: number | null;
  statusWord: string | null;
  supersededBy: string[];
  supersedes: string[];
}

/**
 * Imports ADR files (any number of folders). Files are read in path order so ids
 * that need a `-2` suffix (two files with the same number) get it deterministically.
 */
export function parseAdrs(files: readonly SourceFile[]): ImportResult {
  const skipped: Skipped[] = [];
  const ids = new IdAllocator();
  const parsed: ParsedAdr[] = [];
  const ordered = [...files]
    .map((file) => ({ path: normalizePath(file.path), content: file.content }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of ordered) {
    const adr = parseAdr(file, ids, skipped);
    if (adr) parsed.push(adr);
  }

  const supersessions: Supersession[] = [];
  const seen = new Set<string>();
  const relate = (olderId: string, newerId: string): void => {
    if (olderId === newerId || seen.has(`${olderId}>${newerId}`)) return;
    seen.add(`${olderId}>${newerId}`);
    supersessions.push({ olderId, newerId });
  };
  for (const adr of parsed) {
    for (const ref of adr.supersededBy) {
      const target = resolveRef(parsed, adr, ref);
      if (target) relate(adr.artifact.id!, target.artifact.id!);
      else skipped.push({ where: adr.path, reason: `"superseded by ${ref}" names no ADR in this import` });
    }
    for (const ref of adr.supersedes) {
      const target = resolveRef(parsed, adr, ref);
      if (target) relate(target.artifact.id!, adr.artifact.id!);
      else skipped.push({ where: adr.path, reason: `"supersedes ${ref}" names no ADR in this import` });
    }
  }
  const older = new Set(supersessions.map((s) => s.olderId));
  for (const adr of parsed) if (older.has(adr.artifact.id!)) adr.artifact.status = 'superseded';

  return { artifacts: parsed.map((adr) => adr.artifact), supersessions, skipped };
}

function parseAdr(file: SourceFile, ids: IdAllocator, skipped: Skipped[]): ParsedAdr | null {
  const name = baseName(file.path);
  if (NOT_ADR_FILES.test(name)) {
    skipped.push({ where: file.path, reason: 'index, template or README, not an ADR' });
    return null;
  }
  const front = splitFrontMatter(file.content);
  if (front.error) {
    skipped.push({ where: file.path, reason: front.error });
    return null;
  }
  const data = front.data;
  const notes: string[] = [];
  const allTokens = lexMarkdown(front.body, notes);
  for (const reason of notes) skipped.push({ where: file.path, reason });
  // A metadata table at the top (`| Status | Deprecated |`) holds status, date and tags: read, not shown.
  const meta = metadataTable(allTokens);
  const tokens = meta ? allTokens.filter((token) => token !== meta.token) : allTokens;
  const titleIndex = tokens.findIndex((token) => isHeading(token) && token.depth === 1);
  // Without a `#` title, a first heading that names a usual ADR section ("Context") is not the title: the file name is.
  const firstHeading = tokens.findIndex((token) => isHeading(token));
  const fallbackIndex =
    titleIndex >= 0 ? titleIndex : firstHeading >= 0 && !ADR_SECTION.test(headingText(tokens[firstHeading] as Tokens.Heading)) ? firstHeading : -1;
  const titleToken = fallbackIndex >= 0 ? (tokens[fallbackIndex] as Tokens.Heading) : null;
  // The title heading is not part of the body (unless front matter holds the title
  // and the first heading is just the first section).
  const dropIndex = titleIndex >= 0 ? titleIndex : stringValue(data.title) === null ? fallbackIndex : -1;
  const bodyTokens = tokens.filter((_, index) => index !== dropIndex);

  const rawTitle = stringValue(data.title) ?? (titleToken ? headingText(titleToken) : titleFromFileName(name));
  const stripped = stripAdrPrefix(rawTitle);
  const number = adrNumberFromFileName(file.path) ?? stripped.number ?? numberValue(data.number ?? data.id ?? data.adr);
  let title = stripped.title;
  if (title === '' || /^\d+$/.test(title)) title = rawTitle;

  if (!hasContent(tokens) && Object.keys(data).length === 0) {
    skipped.push({ where: file.path, reason: 'empty file' });
    return null;
  }

  // Where the status lives: front matter, a `## Status` section, or MADR 2 /
  // Nygard lines (`* Status: accepted`, `Date: ...`) between the title and the first `##`.
  const sections = splitAtHeadings(tokens, 2);
  // The `## Status` section of the record itself (a `##` right under the title), not any "Status" further down.
  const statusSection = sections.find((section) => section.heading && section.heading.depth <= 2 && /^status$/i.test(headingText(section.heading)));
  const titleSection = titleToken ? sections.find((section) => section.heading === titleToken) : undefined;
  const preamble = [...(sections[0]?.tokens ?? []), ...(titleSection && titleToken!.depth < 2 ? titleSection.tokens : [])];
  const preambleText = contentOf(preamble.filter((token) => !isHeading(token)));
  const statusText = statusSection ? contentOf(statusSection.tokens) : '';
  const preambleStatus = /^\s*(?:[-*+]\s+)?(?:\*\*)?Status(?:\*\*)?\s*:(?:\*\*)?\s*(.+)$/im.exec(preambleText)?.[1] ?? null;

  const metaStatus = meta?.values.get('status') ?? null;
  const statusWord = normalizeStatusWord(stringValue(data.status) ?? metaStatus ?? knownStatusLine(statusText) ?? preambleStatus);
  const linkText = [statusText, preambleStatus ?? '', metaStatus ?? '', meta?.values.get('superseded by') ?? ''].join('\n').replace(/\*\*|__/g, '');
  const supersededBy = [
    ...stringList(data.superseded_by ?? data['superseded-by'] ?? data.supersededBy ?? data.supersededby),
    ...(meta?.values.get('superseded by') ? [meta.values.get('superseded by')!] : []),
    ...refsAfter(linkText, /(?<!partially\s)\bsuperseded\s+by\b\s*:?/gi),
  ];
  const supersedes = [...stringList(data.supersedes), ...refsAfter(linkText, /(?<![\w-])supersedes\b\s*:?(?:\*\*)?/gi)];

  const dateLine = /^\s*(?:[-*+]\s+)?(?:\*\*)?Date(?:\*\*)?\s*:(?:\*\*)?\s*(\S+)/im.exec(preambleText)?.[1];
  const metaDate = meta?.values.get('date') ?? meta?.values.get('created') ?? null;
  const created = isoDate(data.created) ?? isoDate(data.date) ?? isoDate(metaDate?.split(/\s|;/)[0]) ?? isoDate(dateLine);
  const updated = isoDate(data.updated) ?? isoDate(data.last_updated) ?? isoDate(data.date) ?? created;

  let status: ArtifactStatus = 'active';
  if (statusWord === 'superseded' || statusWord === 'replaced' || supersededBy.length > 0) status = 'superseded';
  else if (statusWord !== null && ARCHIVED_WORDS.has(statusWord)) status = 'archived';

  const extraFront: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!KNOWN_KEYS.has(key.toLowerCase())) extraFront[key] = value;
  // The number is how people name the record ("ADR-0057"): it stays in the title.
  if (number !== null) title = `ADR-${String(number).padStart(4, '0')}: ${title}`;
  const idBase = number !== null ? `adr-${String(number).padStart(4, '0')}` : `adr-${slugify(name.replace(/\.md$/i, ''), 50) || 'untitled'}`;

  const artifact: ArtifactInput = {
    id: ids.next(idBase),
    type: 'adr',
    scope: 'global',
    title,
    body: contentOf(bodyTokens),
    summary: stringValue(data.description),
    tags: stringList(data.tags ?? meta?.values.get('tags')),
    status,
    source: importSource('adr', normalizePath(file.path)),
    ...(created ? { createdAt: created } : {}),
    ...(updated ? { updatedAt: updated } : {}),
    ...(number !== null ? { adrNumber: number } : {}),
    ...(statusWord !== null ? { adrStatus: statusWord } : {}),
    ...(Object.keys(extraFront).length > 0 ? { frontMatter: extraFront } : {}),
  };
  return { path: normalizePath(file.path), artifact, number, statusWord, supersededBy, supersedes };
}

/** Section names of the usual ADR templates: never a record's title. */
const ADR_SECTION = /^(?:context(?: and problem statement)?|status|decision(?: outcome| drivers)?|consequences|considered options|problem|background|summary)$/i;

/** Status words ADR templates use; a `## Status` section is read only for one of these. */
const STATUS_WORDS = /^\W*(?:accepted|proposed|draft|approved|implemented|deprecated|superseded|replaced|rejected|withdrawn|obsolete|retired|abandoned|declined|cancelled|canceled|amended|living|final|active|open|in progress|under review)\b/i;

/** `0001-drop-kafka-dependency.md` → "Drop kafka dependency". */
function titleFromFileName(name: string): string {
  const stem = name.replace(/\.md$/i, '').replace(/^(?:adr[-_ ]?)?\d+[-_ .]*/i, '').replace(/[-_]+/g, ' ').trim();
  return stem === '' ? name.replace(/\.md$/i, '') : stem.charAt(0).toUpperCase() + stem.slice(1);
}

/** First line of a `## Status` section that states a status ("Accepted", "Superseded by ADR-12"). */
function knownStatusLine(text: string): string | null {
  const lines = text.split('\n').map((line) => line.replace(/^\s*(?:[-*+]\s+)?/, '').replace(/\*\*|__/g, '').trim()).filter((line) => line !== '');
  return lines.find((line) => STATUS_WORDS.test(line)) ?? null;
}

const META_KEYS = new Set(['status', 'date', 'created', 'tags', 'superseded by', 'deciders', 'author', 'author(s)', 'authors', 'owner', 'owners']);

/**
 * A metadata table before the record's first `##` section: vertical (`| Status | Deprecated |`
 * rows, with or without a `| Field | Value |` header) or horizontal (a header row of keys,
 * `| Status | Date | Author(s) |`, over one row of values). Keys are lower-cased.
 */
function metadataTable(tokens: readonly Token[]): { token: Token; values: Map<string, string> } | null {
  for (const token of tokens) {
    if (isHeading(token) && token.depth >= 2) return null;
    if (token.type !== 'table') continue;
    const table = token as Tokens.Table;
    const cell = (c: Tokens.TableCell): string => c.text.replace(/\*\*|__/g, '').trim();
    const header = table.header.map(cell);
    const rows = table.rows.map((row) => row.map(cell));
    const key = (text: string): string => text.toLowerCase().replace(/:$/, '');
    const values = new Map<string, string>();
    const headerKeys = header.filter((h) => META_KEYS.has(key(h))).length;
    if (headerKeys >= 2 && rows.length >= 1) {
      header.forEach((h, i) => META_KEYS.has(key(h)) && rows[0]![i] && values.set(key(h), rows[0]![i]));
    } else {
      for (const row of [header, ...rows]) if (row.length >= 2 && META_KEYS.has(key(row[0]!)) && row[1]) values.set(key(row[0]!), row[1]);
    }
    return values.has('status') || values.has('date') ? { token, values } : null;
  }
  return null;
}

const ARCHIVED_WORDS = new Set(['deprecated', 'rejected', 'withdrawn', 'obsolete', 'retired', 'abandoned', 'declined', 'cancelled', 'canceled']);

/** "**Superseded** by [ADR-0047](...)" → "superseded"; "Accepted (partially ...)" → "accepted". */
function normalizeStatusWord(text: string | null): string | null {
  if (text === null) return null;
  const word = /[A-Za-z]+/.exec(text.replace(/\[[^\]]*\]\([^)]*\)/g, ''))?.[0];
  return word ? word.toLowerCase() : null;
}

function numberValue(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const text = stringValue(value);
  const match = text === null ? null : /(\d{1,6})/.exec(text);
  return match ? Number(match[1]) : null;
}

/** The references after each "superseded by" / "supersedes": a link, `ADR-n`, or `n.` */
function refsAfter(text: string, marker: RegExp): string[] {
  const refs: string[] = [];
  for (const match of text.matchAll(marker)) {
    const rest = text.slice(match.index + match[0].length).split('\n')[0] ?? '';
    const ref = /^\s*(?:\[[^\]]*\]\([^)]*\)|\[[^\]]*\]|ADR[-_ ]?#?\d+|#?\d+\.?|\S+\.md)/i.exec(rest);
    if (ref) refs.push(ref[0].trim());
  }
  return refs;
}

/** Finds the ADR a reference names: by link target file, then by number. */
function resolveRef(all: readonly ParsedAdr[], from: ParsedAdr, ref: string): ParsedAdr | null {
  const link = /\]\(([^)#\s]+)/.exec(ref)?.[1] ?? (/\.md$/i.test(ref) ? ref : null);
  if (link) {
    const target = baseName(decodeURI(link));
    const byFile = all.filter((adr) => adr !== from && baseName(adr.path) === target);
    const sameDir = byFile.find((adr) => dirOf(adr.path) === dirOf(from.path));
    if (sameDir ?? byFile[0]) return sameDir ?? byFile[0]!;
  }
  const text = ref.replace(/\]\([^)]*\)/, ']');
  const number =
    /ADR[-_ ]?#?(\d+)/i.exec(text)?.[1] ?? /^\[?\s*#?(\d+)\b/.exec(text)?.[1] ?? (link ? adrNumberFromFileName(link)?.toString() : undefined);
  if (number === undefined) return null;
  const matches = all.filter((adr) => adr !== from && adr.number === Number(number));
  return matches.find((adr) => dirOf(adr.path) === dirOf(from.path)) ?? matches[0] ?? null;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** Re-exported so callers can tell which files an ADR folder listing holds. */
export function isAdrFileName(path: string): boolean {
  const name = baseName(path);
  return /\.md$/i.test(name) && !NOT_ADR_FILES.test(name) && adrNumberFromFileName(name) !== null;
}
