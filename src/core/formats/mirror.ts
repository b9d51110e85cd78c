/**
 * The Markdown mirror: one file per artifact chain at `<type>/<slug>.md`, YAML front
 * matter carrying every artifact field, the body verbatim after it.
 *
 * Layout of a file (exactly):
 *
 *     ---\n<front matter YAML>---\n\n<body>\n
 *
 * so parsing takes the text between the first blank line after the closing `---` and
 * the final newline, byte for byte: leading and trailing whitespace, CRLF inside the
 * body, emoji, CJK all survive. A file whose line endings were all converted to CRLF
 * (git autocrlf) still parses.
 *
 * Each front matter value is written on one line in JSON form (`title: "A: b"`,
 * `tags: ["x", "y"]`), which is valid YAML 1.2 that any YAML tool reads the same way,
 * survives every string exactly, and reads back with `JSON.parse` (fast: a mirror can
 * hold thousands of files). A hand-edited file in any other YAML style is read with
 * the YAML parser.
 */
import { parse as parseYaml } from 'yaml';
import { ARTIFACT_FIELD_NAMES, FieldError, joinExtra, keep, readArtifactField, splitExtra } from '../artifactSchema';
import type { Artifact, ArtifactInput, Conditions } from '../model';
import { ARTIFACT_TYPES, UserError, isArtifactType } from '../model';
import { shortHash, slugify } from './common';

/** An artifact as the mirror needs it (the content hash is recomputed by the store). */
export type MirrorArtifact = Omit<Artifact, 'contentHash' | 'extra'> & { contentHash?: string; extra?: Record<string, unknown> };

export interface MirrorFile {
  /** `<type>/<slug>.md`, relative to the mirror folder. */
  path: string;
  content: string;
}

/** Front matter keys, in the order they are written: every artifact field but the body (the file's body) and the hash (the store's). */
const FIELD_ORDER = ARTIFACT_FIELD_NAMES.filter((key) => key !== 'body' && key !== 'contentHash');
const KNOWN = new Set<string>([...FIELD_ORDER, 'extra']);

const SLUG_MAX = 60;
/** Names Windows refuses for a file whatever the extension. */
const RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9]|conin|conout|clock)$/;

/**
 * File-name-safe slug of a title: ASCII `[a-z0-9-]`, at most 60 characters, never a
 * Windows device name, never empty (a title with no ASCII letters — CJK, emoji —
 * becomes `item-<hash of the chain id>`).
 */
export function mirrorSlug(title: string, chainId: string): string {
  const slug = slugify(title, SLUG_MAX);
  if (slug === '') return `item-${shortHash(chainId)}`;
  return RESERVED.test(slug) ? `${slug}-item` : slug;
}

/** `slug-<8 hex of the chain id>`: the form used when two chains would share a path. */
function suffixed(slug: string, chainId: string): string {
  const hash = shortHash(chainId);
  return slug.endsWith(hash) ? slug : `${slug.slice(0, SLUG_MAX - 9).replace(/-+$/, '')}-${hash}`;
}

/** Renders one artifact (the latest version of its chain) at `<type>/<slug>.md`. */
export function renderMirrorFile(artifact: MirrorArtifact, slug?: string): MirrorFile {
  const front: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) {
    const value = (artifact as unknown as Record<string, unknown>)[key];
    front[key] = key === 'conditions' ? normalizeConditions(value as Partial<Conditions> | undefined) : value ?? null;
  }
  const extra = joinExtra(artifact);
  if (Object.keys(extra).length > 0) front.extra = extra;
  let yaml = '';
  for (const [key, value] of Object.entries(front)) yaml += `${key}: ${flow(value)}\n`;
  const name = slug ?? mirrorSlug(artifact.title, artifact.chainId);
  return { path: `${artifact.type}/${name}.md`, content: `---\n${yaml}---\n\n${artifact.body}\n` };
}

/**
 * Renders the mirror of a whole ledger: the latest version of every chain, one file
 * each, paths unique. When two chains of a type slug alike, the older one (by
 * `createdAt`, then chain id) keeps the plain slug and the others get `-<hash>`.
 */
export function renderMirror(artifacts: readonly MirrorArtifact[]): MirrorFile[] {
  const latest = new Map<string, MirrorArtifact>();
  for (const artifact of artifacts) {
    const seen = latest.get(artifact.chainId);
    if (!seen || artifact.version > seen.version) latest.set(artifact.chainId, artifact);
  }
  const chains = [...latest.values()].sort(
    (a, b) => compare(a.type, b.type) || compare(a.createdAt, b.createdAt) || compare(a.chainId, b.chainId),
  );
  const taken = new Set<string>();
  const files: MirrorFile[] = [];
  for (const artifact of chains) {
    let slug = mirrorSlug(artifact.title, artifact.chainId);
    if (taken.has(`${artifact.type}/${slug}`)) slug = suffixed(slug, artifact.chainId);
    taken.add(`${artifact.type}/${slug}`);
    files.push(renderMirrorFile(artifact, slug));
  }
  return files.sort((a, b) => compare(a.path, b.path));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A value as one line of JSON with a space after `,` and `:` (still JSON, and a YAML
 * flow value). Characters some editors or YAML 1.1 readers take for line breaks
 * (U+0085, U+2028, U+2029) and a stray BOM are escaped.
 */
function flow(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u0085\u2028\u2029\uFEFF]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => flow(item)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${flow(key)}: ${flow(item)}`).join(', ')}}`;
  }
  return 'null';
}

/** Reads `key: <JSON>` lines; null when any line is something else (then YAML reads it). */
function readJsonLines(text: string): Record<string, unknown> | null {
  const data: Record<string, unknown> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    const match = /^([A-Za-z_][\w-]*): (.+)$/.exec(line);
    if (!match || Object.prototype.hasOwnProperty.call(data, match[1]!)) return null;
    try {
      keep(data, match[1]!, JSON.parse(match[2]!));
    } catch {
      return null;
    }
  }
  return data;
}

function normalizeConditions(value: Partial<Conditions> | undefined): Conditions {
  return { labels: value?.labels ?? [], keywords: value?.keywords ?? [], paths: value?.paths ?? [] };
}

/**
 * Reads a mirror file back. Fields absent from the front matter are left out of the
 * result (so the store's defaults apply); the recorded fields come out typed
 * (src/core/artifactSchema.ts) and unknown keys land in `extra`, in their order. A file the
 * mirror could not have written (no front matter, bad field values) is a UserError
 * naming the file and the field.
 */
export function parseMirrorFile(path: string, content: string): ArtifactInput {
  const fail = (message: string): never => {
    throw new UserError(`${path}: ${message}`, 'Mirror files start with --- YAML front matter --- followed by the body.');
  };
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  const eol = text.startsWith('---\r\n') ? '\r\n' : text.startsWith('---\n') ? '\n' : null;
  if (eol === null) return fail('no front matter (the file must start with a --- line)');
  const start = 3 + eol.length;
  const rest = text.slice(start);
  const close = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (!close) return fail('front matter is not closed by a --- line');
  const yamlText = rest.slice(0, close.index);
  let body = rest.slice(close.index + close[0].length);
  if (body.startsWith(eol)) body = body.slice(eol.length);
  if (body.endsWith(eol)) body = body.slice(0, -eol.length);

  let data: unknown = readJsonLines(yamlText);
  if (data === null) {
    try {
      data = parseYaml(yamlText, { schema: 'core', uniqueKeys: true, version: '1.2' });
    } catch (error) {
      return fail(`malformed front matter: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
    }
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return fail('front matter is not a key: value mapping');
  const front = data as Record<string, unknown>;

  const input: Partial<ArtifactInput> & { body: string } = { body };
  const typeValue = front.type ?? path.replace(/\\/g, '/').split('/').slice(-2, -1)[0];
  if (!isArtifactType(typeValue)) return fail(`"type" must be one of ${ARTIFACT_TYPES.join(', ')}`);
  input.type = typeValue;
  if (typeof front.title !== 'string') return fail('"title" is missing or not a string');
  input.title = front.title;

  const fields = input as Record<string, unknown>;
  try {
    for (const key of FIELD_ORDER) {
      if (key === 'type' || key === 'title') continue;
      const value = front[key];
      // Absent or null: the store's default (a nullable field's default is null).
      if (value === undefined || value === null) continue;
      fields[key] = readArtifactField(key, value);
    }
  } catch (error) {
    if (error instanceof FieldError) return fail(error.message);
    throw error;
  }
  for (const key of ['taskId', 'supersedes', 'summary'] as const) if (front[key] === null) input[key] = null;

  if (front.extra !== undefined && front.extra !== null && (typeof front.extra !== 'object' || Array.isArray(front.extra))) return fail('"extra" must be a mapping');
  const inExtra = (front.extra ?? {}) as Record<string, unknown>;
  const wire: Record<string, unknown> = { ...inExtra };
  for (const [key, value] of Object.entries(front)) if (!KNOWN.has(key)) keep(wire, key, value);
  try {
    const kept = splitExtra(wire, { strict: true });
    Object.assign(input, kept);
    if (Object.keys(kept.extra).length === 0 && !kept.extraOrder) delete input.extra;
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    const key = error.field;
    return fail(error.message.replace(`"${key}"`, `"${key in inExtra ? `extra.${key}` : key}"`) + ' Fix the value or remove the key; nothing was read from the file.');
  }
  return input as ArtifactInput;
}

/** The two sides of a file git left with conflict markers: what this clone had, and what came in. */
export interface ConflictSides {
  ours: string;
  theirs: string;
}

/**
 * Splits a file holding git's conflict markers (`<<<<<<<`, optional diff3 `|||||||`,
 * `=======`, `>>>>>>>` at the start of a line) into its two whole versions; undefined when
 * it holds none. A file with half a hunk (markers a person left unbalanced) yields sides
 * with the stray lines kept on both, which then fail to parse like any broken file.
 */
export function splitConflictMarkers(text: string): ConflictSides | undefined {
  if (!/^<{7}(?: |$)/m.test(text)) return undefined;
  const ours: string[] = [];
  const theirs: string[] = [];
  let side: 'both' | 'ours' | 'base' | 'theirs' = 'both';
  for (const line of text.split(/(?<=\n)/)) {
    const bare = line.replace(/\r?\n$/, '');
    if (/^<{7}(?: |$)/.test(bare) && side === 'both') side = 'ours';
    else if (/^\|{7}(?: |$)/.test(bare) && side === 'ours') side = 'base';
    else if (/^={7}$/.test(bare) && (side === 'ours' || side === 'base')) side = 'theirs';
    else if (/^>{7}(?: |$)/.test(bare) && side === 'theirs') side = 'both';
    else {
      if (side === 'both' || side === 'ours') ours.push(line);
      if (side === 'both' || side === 'theirs') theirs.push(line);
    }
  }
  return { ours: ours.join(''), theirs: theirs.join('') };
}
