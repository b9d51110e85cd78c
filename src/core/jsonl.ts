/**
 * The JSONL interchange format (DESIGN.md section 3): one artifact per line, camelCase
 * fields, unknown fields kept for the round-trip.
 */
import { type Artifact, type ArtifactInput, UserError } from './model';
import type { LedgerStore } from './store';

/** Fields the ledger models; anything else on a line is carried in `extra`. */
const KNOWN_FIELDS = new Set([
  'id', 'chainId', 'version', 'type', 'scope', 'taskId', 'paths', 'title', 'body', 'summary', 'tags', 'conditions',
  'status', 'supersedes', 'pinned', 'source', 'createdAt', 'updatedAt', 'contentHash',
]);

export interface JsonlLineError {
  line: number;
  message: string;
}

export interface ParsedJsonl {
  artifacts: Array<{ line: number; input: ArtifactInput }>;
  errors: JsonlLineError[];
}

function optionalString(record: Record<string, unknown>, field: string): string | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new UserError(`"${field}" must be a string.`);
  return value;
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
  const extra: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(record)) if (!KNOWN_FIELDS.has(key)) extra[key] = field;
  const version = record.version;
  if (version !== undefined && version !== null && (typeof version !== 'number' || !Number.isInteger(version) || version < 1)) {
    throw new UserError('"version" must be a positive whole number.');
  }
  const taskId = optionalString(record, 'taskId');
  return {
    id: String(record.id),
    type: record.type as ArtifactInput['type'],
    title: record.title,
    body: record.body,
    chainId: optionalString(record, 'chainId'),
    version: typeof version === 'number' ? version : undefined,
    scope: record.scope as ArtifactInput['scope'],
    taskId: taskId ?? null,
    paths: record.paths as string[] | undefined,
    summary: optionalString(record, 'summary') ?? null,
    tags: record.tags as string[] | undefined,
    conditions: (record.conditions ?? undefined),
    status: record.status as ArtifactInput['status'],
    supersedes: optionalString(record, 'supersedes') ?? null,
    pinned: record.pinned === undefined || record.pinned === null ? undefined : record.pinned === true,
    source: optionalString(record, 'source'),
    createdAt: optionalString(record, 'createdAt'),
    updatedAt: optionalString(record, 'updatedAt'),
    extra,
  };
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

/** One artifact as an interchange object: every modelled field, then the kept unknown ones. */
export function artifactToJson(artifact: Artifact): Record<string, unknown> {
  return {
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
    ...Object.fromEntries(Object.entries(artifact.extra).filter(([key]) => !KNOWN_FIELDS.has(key))),
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
export function importJsonl(store: LedgerStore, text: string): JsonlImportReport {
  const parsed = parseJsonl(text, (input) => void store.normalizeInput(input));
  const report: JsonlImportReport = { added: [], updated: [], unchanged: [], errors: [...parsed.errors] };
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
