/**
 * The JSONL interchange format (DESIGN.md section 3): one artifact per line, camelCase
 * fields, unknown fields kept for the round-trip.
 */
import { ARTIFACT_FIELD_NAMES, type ARTIFACT_FIELDS, FieldError, joinExtra, keep, readArtifactField, splitExtra } from './artifactSchema';
import { type Artifact, type ArtifactInput, UserError } from './model';
import type { LedgerStore } from './store';

/** The artifact's own fields; the recorded ones (review, provenance, ...) and a team's own keys sit beside them on a line. */
const KNOWN_FIELDS = new Set<string>(ARTIFACT_FIELD_NAMES);

export interface JsonlLineError {
  line: number;
  message: string;
}

export interface ParsedJsonl {
  artifacts: Array<{ line: number; input: ArtifactInput }>;
  errors: JsonlLineError[];
}

function optionalString(record: Record<string, unknown>, field: 'chainId' | 'taskId' | 'summary' | 'supersedes' | 'source' | 'createdAt' | 'updatedAt'): string | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  return checked(() => readArtifactField('source', value, field));
}

/** A FieldError as the UserError a bad line reports. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) throw new UserError(error.message);
    throw error;
  }
}

/** Checks one decoded JSON value and turns it into an ArtifactInput; throws UserError on a bad field. */
export function artifactInputFromJson(value: unknown): ArtifactInput {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UserError('a line must be a JSON object.');
  const record = value as Record<string, unknown>;
  for (const field of ['id', 'type', 'title', 'body'] as const) {
    if (record[field] === undefined || record[field] === null) throw new UserError(`"${field}" is required.`);
  }
  if (typeof record.id !== 'string' && typeof record.id !== 'number') throw new UserError('"id" must be a string.');
  if (typeof record.title !== 'string') throw new UserError('"title" must be a string.');
  if (typeof record.body !== 'string') throw new UserError('"body" must be a string.');
  const wire: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(record)) if (!KNOWN_FIELDS.has(key)) keep(wire, key, field);
  const kept = checked(() => splitExtra(wire, { strict: true }));
  const version = record.version === undefined || record.version === null ? undefined : checked(() => readArtifactField('version', record.version));
  const pinned = record.pinned === undefined || record.pinned === null ? undefined : checked(() => readArtifactField('pinned', record.pinned));
  const taskId = optionalString(record, 'taskId');
  return {
    id: String(record.id),
    type: record.type as ArtifactInput['type'],
    title: record.title,
    body: record.body,
    chainId: optionalString(record, 'chainId'),
    version,
    scope: record.scope as ArtifactInput['scope'],
    taskId: taskId ?? null,
    paths: record.paths as string[] | undefined,
    summary: optionalString(record, 'summary') ?? null,
    tags: record.tags as string[] | undefined,
    conditions: (record.conditions ?? undefined),
    status: record.status as ArtifactInput['status'],
    supersedes: optionalString(record, 'supersedes') ?? null,
    pinned,
    source: optionalString(record, 'source'),
    createdAt: optionalString(record, 'createdAt'),
    updatedAt: optionalString(record, 'updatedAt'),
    ...kept,
  };
}

/**
 * Deepest nesting of objects and lists a line may have. An artifact needs three
 * (conditions, kept unknown fields); a line nested ten thousand deep overflowed the stack
 * when its fields were stored, and the error took the good lines with it.
 */
export const MAX_JSON_DEPTH = 64;

/** Deepest nesting of `[` and `{` in a JSON text, outside strings: one linear pass, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

/**
 * Decodes the bytes of a JSONL file line by line, so that a NUL byte or bytes that are
 * not UTF-8 cost only their own line: it is reported by number and left blank; the rest
 * of the file imports.
 */
export function decodeJsonl(bytes: Uint8Array): { text: string; errors: JsonlLineError[] } {
  const strict = new TextDecoder('utf-8', { fatal: true });
  const lines: string[] = [];
  const errors: JsonlLineError[] = [];
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    const chunk = bytes.subarray(start, end);
    start = end + 1;
    if (chunk.includes(0)) {
      errors.push({ line, message: 'contains a NUL byte (binary data, not text); the line was skipped.' });
      lines.push('');
      continue;
    }
    try {
      lines.push(strict.decode(chunk));
    } catch {
      errors.push({ line, message: 'is not UTF-8 text; the line was skipped (save the file as UTF-8).' });
      lines.push('');
    }
  }
  return { text: lines.join('\n'), errors };
}

/**
 * Parses JSONL text. Blank lines are skipped; a bad line is reported with its
 * 1-based number and does not stop the good lines. `validate` lets the caller apply
 * the store's checks (type, scope, sizes) per line.
 */
export function parseJsonl(text: string, validate?: (input: ArtifactInput) => void): ParsedJsonl {
  const result: ParsedJsonl = { artifacts: [], errors: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    const depth = jsonDepth(raw);
    if (depth > MAX_JSON_DEPTH) {
      result.errors.push({ line, message: `nested deeper than ${MAX_JSON_DEPTH} levels of objects and lists; an artifact needs ${MAX_JSON_DEPTH} at most.` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      result.errors.push({ line, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    try {
      const input = artifactInputFromJson(value);
      validate?.(input);
      result.artifacts.push({ line, input });
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      result.errors.push({ line, message: error.hint ? `${error.message} ${error.hint}` : error.message });
    }
  });
  return result;
}

/** One artifact as an interchange object: every modelled field, then the recorded and the kept ones (in the order they came). */
export function artifactToJson(artifact: Artifact): Record<string, unknown> {
  // Every artifact field but the hash, in the order exports have always had (checked against the schema below).
  const fields = {
    id: artifact.id,
    type: artifact.type,
    scope: artifact.scope,
    title: artifact.title,
    body: artifact.body,
    summary: artifact.summary,
    tags: artifact.tags,
    paths: artifact.paths,
    status: artifact.status,
    createdAt: artifact.createdAt,
    updatedAt: artifact.updatedAt,
    source: artifact.source,
    chainId: artifact.chainId,
    version: artifact.version,
    taskId: artifact.taskId,
    supersedes: artifact.supersedes,
    pinned: artifact.pinned,
    conditions: artifact.conditions,
  } satisfies Record<Exclude<keyof typeof ARTIFACT_FIELDS, 'contentHash'>, unknown>;
  return {
    ...fields,
    ...Object.fromEntries(Object.entries(joinExtra(artifact)).filter(([key]) => !KNOWN_FIELDS.has(key))),
  };
}

export function toJsonl(artifacts: readonly Artifact[]): string {
  return artifacts.map((artifact) => JSON.stringify(artifactToJson(artifact))).join('\n') + (artifacts.length ? '\n' : '');
}

/** What importing a JSONL text did: artifact ids per outcome, and the lines that were skipped. */
export interface JsonlImportReport {
  added: string[];
  updated: string[];
  unchanged: string[];
  errors: JsonlLineError[];
}

/**
 * Imports a JSONL text into `store` in one transaction (the CLI `import` and the editor's
 * "Import JSONL" both come here). Bad lines are reported by number and skipped; the good
 * lines still import.
 */
export function importJsonl(store: LedgerStore, text: string, decodeErrors: readonly JsonlLineError[] = []): JsonlImportReport {
  const parsed = parseJsonl(text, (input) => void store.normalizeInput(input));
  const report: JsonlImportReport = { added: [], updated: [], unchanged: [], errors: [...decodeErrors, ...parsed.errors] };
  store.transaction(() => {
    for (const { line, input } of parsed.artifacts) {
      try {
        const { outcome, artifact } = store.importArtifact(input);
        report[outcome].push(artifact.id);
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        report.errors.push({ line, message: error.message });
      }
    }
  });
  report.errors.sort((a, b) => a.line - b.line);
  return report;
}

/** The artifacts an export writes: every version (or the latest only), chains in creation order, oldest version first. */
export function artifactsForExport(store: LedgerStore, options: { latestOnly?: boolean } = {}): Artifact[] {
  return store
    .listArtifacts({ allVersions: options.latestOnly !== true })
    .sort((a, b) => (a.chainId === b.chainId ? a.version - b.version : a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.chainId < b.chainId ? -1 : 1));
}
