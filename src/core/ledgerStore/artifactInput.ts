import {
  type Artifact,
  type ArtifactInput,
  type ArtifactType,
  type Conditions,
  UserError,
  ARTIFACT_TYPES,
  isArtifactType,
  isScope,
  isStatus,
} from '../model';
import { contentHash } from '../tokens';
import { joinExtra, recordedOf, splitExtra } from '../artifactSchema';

/**
 * The recorded fields and kept keys of a new artifact: a known key a caller left in `extra`
 * (code written before the fields were typed) becomes its typed field, so `extra` never holds one.
 */
function keptAndRecorded(input: ArtifactInput): Pick<Artifact, 'extra' | 'extraOrder'> & ReturnType<typeof recordedOf> {
  const split = splitExtra(joinExtra({ ...recordedOf(input), extra: input.extra ?? {}, ...(input.extraOrder ? { extraOrder: input.extraOrder } : {}) }), { strict: false });
  return split;
}

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The fields that make two versions "the same"; timestamps and ids do not. */
export const CONTENT_FIELDS = ['type', 'scope', 'taskId', 'paths', 'title', 'body', 'summary', 'tags', 'conditions'] as const;

export function sameContent(a: Artifact, b: Artifact): boolean {
  return CONTENT_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]));
}

export function normalizeConditions(value: Partial<Conditions> | undefined): Conditions {
  return {
    labels: [...(value?.labels ?? [])],
    keywords: [...(value?.keywords ?? [])],
    paths: [...(value?.paths ?? [])],
  };
}

export function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new UserError(`"${field}" must be a list of strings.`);
  }
  return value as string[];
}

function isoOrThrow(value: string | undefined, field: string, fallback: string): string {
  if (value === undefined || value === null || value === '') return fallback;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new UserError(`"${field}" is not a date: ${JSON.stringify(value)}. Use ISO 8601, e.g. 2026-07-25T19:04:10Z.`);
  return value;
}

/** Checks a body is text a person could read: valid UTF-16 and no NUL bytes. */
export function validateBody(body: string, field: 'body' | 'title' = 'body'): void {
  if (body.includes('\u0000')) {
    throw new UserError(`The ${field} contains NUL bytes; it looks like a binary file, not Markdown text.`);
  }
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(body)) {
    throw new UserError(`The ${field} is not valid Unicode text (lone surrogates); save it as UTF-8 and try again.`);
  }
}

/** UTF-8 length without allocating a copy of a multi-megabyte body. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    }
    else bytes += 3;
  }
  return bytes;
}

/**
 * Validates `input` and fills its defaults; throws UserError naming the bad field.
 * `now` and `newId` are asked only once the input is known to be valid.
 */
export function normalizeArtifactInput(input: ArtifactInput, now: () => string, newId: (type: ArtifactType) => string): Artifact {
  if (input === null || typeof input !== 'object') throw new UserError('An artifact must be an object.');
  if (!isArtifactType(input.type)) {
    throw new UserError(`Unknown type ${JSON.stringify(input.type)}.`, `Use one of: ${ARTIFACT_TYPES.join(', ')}.`);
  }
  const scope = input.scope ?? 'global';
  if (!isScope(scope)) throw new UserError(`Unknown scope ${JSON.stringify(scope)}.`, 'Use one of: global, task, path.');
  const status = input.status ?? 'active';
  if (!isStatus(status)) throw new UserError(`Unknown status ${JSON.stringify(status)}.`, 'Use one of: active, superseded, archived.');
  if (typeof input.title !== 'string' || input.title.trim() === '') throw new UserError('An artifact needs a non-empty "title".');
  if (typeof input.body !== 'string') throw new UserError('An artifact needs a "body" (Markdown text; it may be empty).');
  validateBody(input.body);
  validateBody(input.title, 'title');
  const bodyBytes = utf8ByteLength(input.body);
  if (bodyBytes > MAX_BODY_BYTES) {
    throw new UserError(
      `The body is ${(bodyBytes / 1048576).toFixed(1)} MB; the limit is ${MAX_BODY_BYTES / 1048576} MB.`,
      'Split it into several artifacts, or link to the file instead of pasting it.',
    );
  }
  const paths = stringList(input.paths, 'paths');
  if (scope === 'path' && paths.length === 0) throw new UserError('A path-scope artifact needs at least one path glob ("paths").');
  if (scope === 'task' && !input.taskId) throw new UserError('A task-scope artifact needs a "taskId".');
  const createdAt = isoOrThrow(input.createdAt, 'createdAt', now());
  const id = input.id !== undefined ? String(input.id).trim() : newId(input.type);
  // Control characters (NUL among them) would be ids nobody can type, and file names nothing can write.
  if (id === '' || /[\s\p{Cc}]/u.test(id)) throw new UserError(`An artifact id must be non-empty and contain no spaces or control characters: ${JSON.stringify(input.id)}.`);
  return {
    id,
    chainId: input.chainId ?? id,
    version: input.version ?? 1,
    type: input.type,
    scope,
    taskId: input.taskId ?? null,
    paths,
    title: input.title.trim(),
    body: input.body,
    summary: input.summary ?? null,
    tags: stringList(input.tags, 'tags'),
    conditions: normalizeConditions(input.conditions),
    status,
    supersedes: input.supersedes ?? null,
    pinned: input.pinned ?? false,
    source: input.source ?? 'user',
    createdAt,
    updatedAt: isoOrThrow(input.updatedAt, 'updatedAt', createdAt),
    contentHash: contentHash(input.body),
    ...keptAndRecorded(input),
  };
}
