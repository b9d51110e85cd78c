/**
 * The one definition of an artifact's fields. Everything that reads or writes an artifact
 * takes its field list and its checks from here: the `Artifact`, `ArtifactInput` and
 * `ArtifactPatch` types (src/core/model.ts), the artifact files' front matter
 * (formats/mirror.ts), JSONL (jsonl.ts), the index's `extra` column (ledgerStore) and the
 * agent tools' schemas (tools/tool.ts builds its zod pieces from these names and limits).
 *
 * Two kinds of field:
 * - `ARTIFACT_FIELDS`: the artifact proper, each its own front matter key, JSONL key and column.
 * - `RECORDED_FIELDS`: what the ledger records about an artifact — review state, provenance,
 *   supersession, where an import came from. Typed on the artifact, but on disk they stay
 *   where every ledger so far wrote them: inside the front matter's `extra:` map, beside the
 *   other keys of a JSONL line, in the index's `extra` column. So a file written before this
 *   schema reads to the same artifact and is written back byte for byte.
 * Any other key (a team's own) is kept in `extra`, in its place, and written back.
 *
 * Plain checks rather than zod: reading the artifact files is on every command's start-up
 * path, and zod is a 770 KB file the commands that only read do not load (esbuild.config.mjs).
 */

export const ARTIFACT_TYPES = [
  'constitution',
  'adr',
  'pattern',
  'plan',
  'module_memory',
  'convention',
  'decision',
  'learning',
  'research',
  'dependency',
  'changelog',
  'note',
] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export const SCOPES = ['global', 'task', 'path'] as const;
export type Scope = (typeof SCOPES)[number];

export const STATUSES = ['active', 'superseded', 'archived'] as const;
export type ArtifactStatus = (typeof STATUSES)[number];

export const REVIEW_STATES = ['unreviewed', 'approved', 'rejected'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** Gating: AND across kinds, OR within a kind. An empty kind does not gate. */
export interface Conditions {
  labels: string[];
  keywords: string[];
  paths: string[];
}

/** What an imported artifact remembers of the file it was read from (formats/linked.ts). */
export interface SourceLink {
  /** Workspace-relative file the artifact was read from. */
  file: string;
  /** The section of that file (its title), or null for a whole file. */
  section: string | null;
  /** Hash of what the source said: content, status and pin as parsed. */
  hash: string;
  /** Hash of the content as the import wrote it: a different latest version means a person edited it. */
  wrote: string;
  /** Status and pin as the source said them, to tell a source change from a ledger change. */
  status: string;
  pinned: boolean;
  /** Set when the artifact was detached from its file; imports leave it alone. */
  detached?: { at: string; reason: string };
}

/** A value that failed its check; `expect` says what it should have been. */
const INVALID: unique symbol = /* @__PURE__ */ Symbol('invalid');
type Invalid = typeof INVALID;

interface Field<V> {
  /** The value, or INVALID. */
  read(value: unknown): V | Invalid;
  /** What a valid value is, for the error ("a string", "one of a, b"). */
  expect: string;
}

/** Longest text a recorded field may hold: names, times, ids and a one-line reason are far shorter. */
export const MAX_RECORDED_CHARS = 2_000;

const isString = (value: unknown): value is string => typeof value === 'string';
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function oneOf<T extends string>(values: readonly T[]): Field<T> {
  return { read: (v) => (isString(v) && (values as readonly string[]).includes(v) ? (v as T) : INVALID), expect: `one of ${values.join(', ')}` };
}
const string: Field<string> = { read: (v) => (isString(v) ? v : INVALID), expect: 'a string' };
const nullableString: Field<string | null> = { read: (v) => (v === null || isString(v) ? v : INVALID), expect: 'a string or null' };
const stringList: Field<string[]> = { read: (v) => (Array.isArray(v) && v.every(isString) ? (v) : INVALID), expect: 'a list of strings' };
const boolean: Field<boolean> = { read: (v) => (typeof v === 'boolean' ? v : INVALID), expect: 'true or false' };
// Past 2^53 a number is no longer exact (9007199254740993 reads as ...992): two versions would be stored as one.
const versionNumber: Field<number> = {
  read: (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : INVALID),
  expect: `a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`,
};
const conditions: Field<Conditions> = {
  read: (v) => {
    if (!isRecord(v)) return INVALID;
    const out: Conditions = { labels: [], keywords: [], paths: [] };
    for (const key of ['labels', 'keywords', 'paths'] as const) {
      const list = v[key];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || !list.every(isString)) return INVALID;
      out[key] = list;
    }
    return out;
  },
  expect: 'a mapping of labels, keywords, paths (lists of strings)',
};

/** A short recorded text: a name, a time, an id, a one-line reason. */
const recordedText: Field<string> = {
  read: (v) => (isString(v) && v.length <= MAX_RECORDED_CHARS && !v.includes('\u0000') ? v : INVALID),
  expect: `a string of at most ${MAX_RECORDED_CHARS} characters`,
};
const wholeNumber: Field<number> = { read: (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : INVALID), expect: 'a whole number' };
const mapping: Field<Record<string, unknown>> = { read: (v) => (isRecord(v) ? v : INVALID), expect: 'a mapping' };
const sourceLink: Field<SourceLink> = {
  read: (v) => {
    if (!isRecord(v)) return INVALID;
    const { file, section, hash, wrote, status, pinned, detached } = v;
    const texts = [file, hash, wrote, status, ...(section === null ? [] : [section])];
    if (!texts.every((s) => recordedText.read(s) !== INVALID) || typeof pinned !== 'boolean') return INVALID;
    if (detached !== undefined && !(isRecord(detached) && recordedText.read(detached.at) !== INVALID && recordedText.read(detached.reason) !== INVALID)) return INVALID;
    return v as unknown as SourceLink;
  },
  expect: 'a mapping of file, section, hash, wrote, status (strings) and pinned (true or false)',
};

/** The artifact proper, in the order the artifact files' front matter lists them (`body` is the file's body). */
export const ARTIFACT_FIELDS = {
  id: string,
  chainId: string,
  version: versionNumber,
  type: /* @__PURE__ */ oneOf(ARTIFACT_TYPES),
  title: string,
  scope: /* @__PURE__ */ oneOf(SCOPES),
  taskId: nullableString,
  paths: stringList,
  tags: stringList,
  conditions,
  status: /* @__PURE__ */ oneOf(STATUSES),
  /** Chain id of the chain this one replaces. */
  supersedes: nullableString,
  pinned: boolean,
  /** Who or what wrote it: `user`, `agent:<name>`, `import:<format>:<path>`. */
  source: string,
  createdAt: string,
  updatedAt: string,
  summary: nullableString,
  body: string,
  /** Hash of the body; computed by the store, never read from a file. */
  contentHash: string,
} as const;

/** What the ledger records about an artifact; on disk inside `extra` (see above). In the order the ledger writes them. */
export const RECORDED_FIELDS = {
  /** ADR imports: the record's number, its status word, the front matter keys the importer does not map. */
  adrNumber: wholeNumber,
  adrStatus: recordedText,
  frontMatter: mapping,
  /** Imports: the file and section this artifact mirrors. */
  linked: sourceLink,
  /** Review state of agent-written knowledge (src/core/review.ts). */
  review: /* @__PURE__ */ oneOf(REVIEW_STATES),
  /** Provenance of an agent's proposal: the channel (mcp, lm-tool, chat, inbox), the agent's name, when. */
  proposedVia: recordedText,
  proposedBy: recordedText,
  proposedAt: recordedText,
  /** Who decided on an agent's proposal, and when. */
  reviewedBy: recordedText,
  reviewedAt: recordedText,
  /** Supersession as an agent proposed it: the version it revises, the artifact it replaces, why. */
  previousVersion: recordedText,
  supersedesId: recordedText,
  changeNote: recordedText,
  /** Supersession an import recorded: the id of what replaced it. */
  supersededBy: recordedText,
  /** The git author of a version pulled from a teammate's file. */
  author: recordedText,
} as const;

type ValueOf<F> = F extends Field<infer V> ? V : never;
type ArtifactFieldValues = { -readonly [K in keyof typeof ARTIFACT_FIELDS]: ValueOf<(typeof ARTIFACT_FIELDS)[K]> };
export type RecordedFieldName = keyof typeof RECORDED_FIELDS;
/** The recorded fields an artifact carries (each only when set). */
export type RecordedFields = { -readonly [K in RecordedFieldName]?: ValueOf<(typeof RECORDED_FIELDS)[K]> };

interface Kept {
  /** Keys the ledger does not model, from an imported file or line: kept and written back. Never a field above. */
  extra: Record<string, unknown>;
  /**
   * The order a file listed its `extra` keys in, when it is not the order the ledger writes them
   * (files from older versions, a person's edit): kept so the file is written back byte for byte.
   */
  extraOrder?: string[];
}

export type Artifact = ArtifactFieldValues & RecordedFields & Kept;

/** The fields a caller must give to create an artifact; the rest have defaults. */
type RequiredInput = 'type' | 'title' | 'body';
/** What a caller supplies to create an artifact. */
export type ArtifactInput = Pick<ArtifactFieldValues, RequiredInput> &
  Partial<Omit<ArtifactFieldValues, RequiredInput | 'conditions' | 'contentHash'>> & { conditions?: Partial<Conditions> } & RecordedFields &
  Partial<Kept>;

/** The fields an update may change; the update becomes a new version of the chain. */
export const PATCH_FIELDS = ['type', 'scope', 'taskId', 'paths', 'title', 'body', 'summary', 'tags', 'conditions', 'pinned', 'source'] as const;
export type ArtifactPatch = Partial<Pick<ArtifactInput, (typeof PATCH_FIELDS)[number]>>;

export const ARTIFACT_FIELD_NAMES = /* @__PURE__ */ Object.keys(ARTIFACT_FIELDS) as Array<keyof typeof ARTIFACT_FIELDS>;
export const RECORDED_FIELD_NAMES = /* @__PURE__ */ Object.keys(RECORDED_FIELDS) as RecordedFieldName[];
const RECORDED = /* @__PURE__ */ new Set<string>(RECORDED_FIELD_NAMES);

export function isRecordedField(key: string): key is RecordedFieldName {
  return RECORDED.has(key);
}

/** A field that failed its check: which one (as the file names it), and what it should be. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly expect: string,
    readonly value: unknown,
  ) {
    super(`"${field}" must be ${expect}, not ${describe(value)}.`);
    this.name = 'FieldError';
  }
}

/** A value named for an error message: short, on one line, whatever it holds. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return value.length > 40 ? `a text of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'a mapping' : typeof value;
}

/** Checks one artifact field; throws FieldError naming it as `label` (default: its name). */
export function readArtifactField<K extends keyof typeof ARTIFACT_FIELDS>(key: K, value: unknown, label: string = key): ArtifactFieldValues[K] {
  const field = ARTIFACT_FIELDS[key] as Field<ArtifactFieldValues[K]>;
  const read = field.read(value);
  if (read === INVALID) throw new FieldError(label, field.expect, value);
  return read;
}

/**
 * Splits what a file or line keeps under `extra` into the typed recorded fields and the rest.
 * `strict` (files, lines): a recorded field with a bad value is a FieldError named
 * `<prefix><key>`, and nothing is read. Not strict (the index, which older versions filled
 * with whatever an import brought): a bad value stays in `extra`, kept, and is written back.
 */
export function splitExtra(wire: Record<string, unknown>, options: { strict: boolean; prefix?: string }): RecordedFields & Kept {
  const out: RecordedFields & Kept = { extra: {} };
  const fields = out as unknown as Record<string, unknown>;
  const order: string[] = [];
  // Read at every index load, for every artifact (most have nothing here): a plain loop, no copies.
  for (const key in wire) {
    if (!Object.prototype.hasOwnProperty.call(wire, key)) continue;
    const value = wire[key];
    if (value === undefined) continue;
    order.push(key);
    if (!isRecordedField(key)) {
      keep(out.extra, key, value);
      continue;
    }
    const field = RECORDED_FIELDS[key] as Field<unknown>;
    const read = field.read(value);
    if (read !== INVALID) fields[key] = read;
    else if (options.strict) throw new FieldError(`${options.prefix ?? ''}${key}`, field.expect, value);
    else keep(out.extra, key, value);
  }
  if (order.length > 1) {
    const canonical = canonicalOrder(out);
    if (order.some((key, i) => canonical[i] !== key)) out.extraOrder = order;
  }
  return out;
}

/** Sets `key` as an own key, even `__proto__` (a file's key, not the object's prototype). */
export function keep(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** The keys `joinExtra` writes when no order was kept: the team's own first (as imports put them), then the recorded ones. */
function canonicalOrder(artifact: RecordedFields & Partial<Kept>): string[] {
  const fields = artifact as unknown as Record<string, unknown>;
  const extra = artifact.extra ?? {};
  return [...Object.keys(extra), ...RECORDED_FIELD_NAMES.filter((key) => fields[key] !== undefined && !Object.prototype.hasOwnProperty.call(extra, key))];
}

/** The recorded fields and the kept keys as one `extra` map, in the file's order when one was kept: what files, lines and the index hold. */
export function joinExtra(artifact: RecordedFields & Partial<Kept>): Record<string, unknown> {
  const fields = artifact as unknown as Record<string, unknown>;
  if (artifact.extraOrder === undefined && RECORDED_FIELD_NAMES.every((key) => fields[key] === undefined)) return artifact.extra ?? {};
  const extra = artifact.extra ?? {};
  const valueOf = (key: string): unknown =>
    isRecordedField(key) && fields[key] !== undefined ? fields[key] : Object.prototype.hasOwnProperty.call(extra, key) ? extra[key] : undefined;
  const wire: Record<string, unknown> = {};
  for (const key of artifact.extraOrder ?? []) {
    if (Object.prototype.hasOwnProperty.call(wire, key)) continue;
    const value = valueOf(key);
    if (value !== undefined) keep(wire, key, value);
  }
  for (const key of canonicalOrder(artifact)) if (!Object.prototype.hasOwnProperty.call(wire, key)) keep(wire, key, valueOf(key));
  return wire;
}

/** The recorded fields `source` carries, and nothing else (for copying them onto a new artifact). */
export function recordedOf(source: RecordedFields): RecordedFields {
  const from = source as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of RECORDED_FIELD_NAMES) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/** `artifact` without the recorded fields `keys` (a value that no longer holds for a new version). */
export function withoutRecorded<T extends RecordedFields>(artifact: T, ...keys: RecordedFieldName[]): T {
  if (!keys.some((key) => artifact[key] !== undefined)) return artifact;
  const copy = { ...artifact };
  for (const key of keys) delete copy[key];
  return copy;
}
