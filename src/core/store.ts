import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import {
  type Artifact,
  type ArtifactInput,
  type ArtifactPatch,
  type ArtifactStatus,
  type ArtifactType,
  type Conditions,
  type Feedback,
  type FileActivity,
  type Scope,
  type Task,
  type TaskEvent,
  type TaskEventKind,
  type TaskStatus,
  type TokenizerName,
  UserError,
  ARTIFACT_TYPES,
  idFromRef,
  isArtifactType,
  isScope,
  isStatus,
  isTokenizerName,
  TASK_EVENT_KINDS,
} from './model';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import type { TermVectorStore } from './assemble/termVectors';
import { contentHash, type TokenCountCache } from './tokens';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ArtifactFilter {
  type?: ArtifactType;
  scope?: Scope;
  /** Default: every status. */
  status?: ArtifactStatus;
  tag?: string;
  /** Case-insensitive substring of title, body or id. */
  text?: string;
  taskId?: string;
  /** Default: only the latest version of each chain. */
  allVersions?: boolean;
  limit?: number;
}

export type ImportOutcome = 'added' | 'updated' | 'unchanged';

export interface ImportReport {
  added: string[];
  updated: string[];
  unchanged: string[];
}

export interface TaskInput {
  id?: string;
  title: string;
  description?: string;
  labels?: string[];
  stage?: string;
  status?: TaskStatus;
}

export interface AssemblyLogEntry {
  at: string;
  taskId: string | null;
  budget: number;
  tokensUsed: number;
  tokenizer: TokenizerName;
  candidates: number;
  included: unknown;
  degraded: unknown;
  excluded: unknown;
  layers: unknown;
  durationMs: number;
  outputHash: string;
  trigger: string;
}

export interface AssemblyLogRow extends AssemblyLogEntry {
  id: number;
}

/**
 * A write an append-only journal beside the database can carry instead of a rewrite of
 * the whole file: what every logged build records (its log row, injection counts and the
 * token counts it made), and a new artifact (an agent's or a user's `add`: rewriting a
 * large ledger to add one note cost most of the write). Readers replay it onto the
 * database (`applyJournal`).
 */
export type JournalRecord =
  | { op: 'artifact'; artifact: Artifact }
  /** New term-dictionary entries (numbered from `firstTerm`) and term vectors (key, version, bytes). */
  | { op: 'vectors'; firstTerm: number; terms: string[]; vectors: Array<[string, string, number[]]> }
  | { op: 'log'; entry: AssemblyLogEntry }
  | { op: 'injected'; ids: string[] }
  | { op: 'tokens'; counts: Array<[string, TokenizerName, number]> };

/** Every op this version replays: a Record so that a new op left out of it fails to compile. */
const JOURNAL_OPS: Readonly<Record<JournalRecord['op'], true>> = { artifact: true, vectors: true, log: true, injected: true, tokens: true };

/** Most new term vectors, and dictionary entries, one journal record carries. */
const JOURNAL_VECTORS = 64;
const JOURNAL_TERMS = 4096;

/** The fields that make two versions "the same"; timestamps and ids do not. */
const CONTENT_FIELDS = ['type', 'scope', 'taskId', 'paths', 'title', 'body', 'summary', 'tags', 'conditions'] as const;

const ARTIFACT_COLUMNS =
  'id, chain_id, version, type, scope, task_id, paths, title, body, summary, tags, conditions, status, supersedes, pinned, source, created_at, updated_at, content_hash, extra';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** Whether `bytes` start like an SQLite database; an empty file counts as a new database. */
export function looksLikeSqlite(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return true;
  if (bytes.length < 100) return false;
  for (let i = 0; i < SQLITE_MAGIC.length; i++) if (bytes[i] !== SQLITE_MAGIC.charCodeAt(i)) return false;
  return true;
}

/** Thrown when bytes are not a ledger database; the adapter moves the file aside. */
export class CorruptDatabaseError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CorruptDatabaseError';
  }
}

function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback;
  // Most rows hold empty lists and objects: skip the parser for them.
  if (text === '[]') return [] as T;
  if (text === '{}') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function normalizeConditions(value: Partial<Conditions> | undefined): Conditions {
  return {
    labels: [...(value?.labels ?? [])],
    keywords: [...(value?.keywords ?? [])],
    paths: [...(value?.paths ?? [])],
  };
}

function stringList(value: unknown, field: string): string[] {
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
export function validateBody(body: string): void {
  if (body.includes('\u0000')) {
    throw new UserError('The body contains NUL bytes; it looks like a binary file, not Markdown text.');
  }
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(body)) {
    throw new UserError('The body is not valid Unicode text (lone surrogates); save it as UTF-8 and try again.');
  }
}

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The workspace ledger: artifacts with version chains, tasks and their events, file
 * activity, feedback, the assembly log and the token-count cache, in one sql.js
 * database held in memory. Persisting the bytes is the adapter's job (`export()`).
 */
export class LedgerStore implements TokenCountCache, TermVectorStore {
  /** Bumped on every write so callers can cache derived data (e.g. a search index). */
  generation = 0;
  private latestCache: { generation: number; artifacts: Artifact[] } | undefined;
  private transactionDepth = 0;
  /** Prepared once, reused: preparing a statement per call dominated bulk imports. */
  private readonly statements = new Map<string, Statement>();
  private readonly tokenCounts = new Map<TokenizerName, Map<string, number>>();
  private pendingTokenCounts: Array<[string, TokenizerName, number]> = [];
  /** Journal-able writes since the last `takeJournal()`, and the generations they account for. */
  private journal: JournalRecord[] = [];
  private journaledGenerations = 0;
  private journalGenerationMark = 0;
  private tokenCountMark = 0;
  private termDict: string[] | undefined;
  private termDictSaved = 0;
  private termVectorCache: { version: string; vectors: Map<string, Uint8Array> } | undefined;
  private pendingTermVectors: Array<[string, string, Uint8Array]> = [];
  /** Kinds of journal record replayed here that this version does not know (a newer one wrote them). */
  private readonly foreignJournalOps = new Set<string>();
  /** Pending vectors, and dictionary entries, up to these are on disk (saved or journaled) already. */
  private termVectorMark = 0;
  private termDictJournaled = 0;

  private constructor(
    private readonly db: Database,
    readonly clock: Clock,
  ) {}

  /** Opens `bytes` (or a new, empty database) and brings its schema up to date. */
  static open(sql: SqlJsStatic, bytes?: Uint8Array, clock: Clock = systemClock): LedgerStore {
    if (bytes && !looksLikeSqlite(bytes)) throw new CorruptDatabaseError('the file is not an SQLite database');
    let db: Database;
    try {
      db = bytes && bytes.length > 0 ? new sql.Database(bytes) : new sql.Database();
      // Bodies average a few kB: 16 kB pages pack them with far less slack than 4 kB (1.3x vs 1.6x the text).
      if (!bytes || bytes.length === 0) db.exec('PRAGMA page_size = 16384');
    } catch (error) {
      throw new CorruptDatabaseError(`SQLite cannot read it (${(error as Error).message})`);
    }
    const store = new LedgerStore(db, clock);
    store.migrate();
    return store;
  }

  get schemaVersion(): number {
    return Number(this.scalar('PRAGMA user_version'));
  }

  private migrate(): void {
    let current: number;
    try {
      current = this.schemaVersion;
      // Reading a table proves the file is not garbage behind a valid header.
      this.db.exec('SELECT name FROM sqlite_master LIMIT 1');
    } catch (error) {
      throw new CorruptDatabaseError(`SQLite cannot read it (${(error as Error).message})`);
    }
    if (current > SCHEMA_VERSION) {
      throw new UserError(
        `This ledger was written by a newer Context Ledger (schema ${current}; this version knows ${SCHEMA_VERSION}).`,
        'Update Context Ledger to open it.',
      );
    }
    if (current === 0 && this.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'") !== 0) {
      throw new CorruptDatabaseError('it is an SQLite database, but not a Context Ledger one');
    }
    if (current === SCHEMA_VERSION) return;
    this.transaction(() => {
      for (let i = current; i < SCHEMA_VERSION; i++) this.db.exec(MIGRATIONS[i]!);
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  }

  export(): Uint8Array {
    this.flushTokenCounts();
    this.flushTermVectors();
    return this.db.export();
  }

  close(): void {
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
    this.db.close();
  }

  private prepared(sqlText: string): Statement {
    let statement = this.statements.get(sqlText);
    if (!statement) {
      statement = this.db.prepare(sqlText);
      this.statements.set(sqlText, statement);
    }
    return statement;
  }

  /** Runs `fn` in one SQLite transaction: all of it applies or none. */
  transaction<T>(fn: () => T): T {
    // Nested calls join the outermost transaction; SQLite has no nested BEGIN.
    if (this.transactionDepth > 0) {
      this.transactionDepth++;
      try {
        return fn();
      } finally {
        this.transactionDepth--;
      }
    }
    this.db.exec('BEGIN');
    this.transactionDepth = 1;
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.transactionDepth = 0;
      this.generation++;
    }
  }

  private nowIso(): string {
    return this.clock.now().toISOString();
  }

  private scalar(sqlText: string, params: SqlValue[] = []): SqlValue {
    const stmt = this.prepared(sqlText);
    try {
      stmt.bind(params);
      return stmt.step() ? (stmt.get()[0] ?? null) : null;
    } finally {
      stmt.reset();
    }
  }

  private rows(sqlText: string, params: SqlValue[] = []): Record<string, SqlValue>[] {
    const rows = this.rowValues(sqlText, params);
    if (rows.length === 0) return [];
    // Column names once per query: sql.js's getAsObject() asks SQLite for them on every row.
    const names = this.prepared(sqlText).getColumnNames();
    return rows.map((values) => {
      const row: Record<string, SqlValue> = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]!;
      return row;
    });
  }

  /** Rows as arrays of column values, in the query's column order. */
  private rowValues(sqlText: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.prepared(sqlText);
    const out: SqlValue[][] = [];
    try {
      stmt.bind(params);
      while (stmt.step()) out.push(stmt.get());
    } finally {
      stmt.reset();
    }
    return out;
  }

  private artifactRows(sqlText: string, params: SqlValue[] = []): Artifact[] {
    return this.rowValues(sqlText, params).map((values) => this.rowToArtifact(values));
  }

  /** Executes a write statement (prepared once and cached). */
  private exec(sqlText: string, params: SqlValue[] = []): void {
    this.prepared(sqlText).run(params);
  }

  private run(sqlText: string, params: SqlValue[] = []): void {
    this.exec(sqlText, params);
    this.generation++;
  }

  // ---------------------------------------------------------------- artifacts

  /** `row` holds ARTIFACT_COLUMNS in order. */
  private rowToArtifact(row: SqlValue[]): Artifact {
    return {
      id: String(row[0]),
      chainId: String(row[1]),
      version: Number(row[2]),
      type: String(row[3]) as ArtifactType,
      scope: String(row[4]) as Scope,
      taskId: row[5] === null ? null : String(row[5]),
      paths: parseJson<string[]>(row[6], []),
      title: String(row[7]),
      body: String(row[8]),
      summary: row[9] === null ? null : String(row[9]),
      tags: parseJson<string[]>(row[10], []),
      conditions: normalizeConditions(parseJson<Partial<Conditions>>(row[11], {})),
      status: String(row[12]) as ArtifactStatus,
      supersedes: row[13] === null ? null : String(row[13]),
      pinned: Number(row[14]) === 1,
      source: String(row[15]),
      createdAt: String(row[16]),
      updatedAt: String(row[17]),
      contentHash: String(row[18]),
      extra: parseJson<Record<string, unknown>>(row[19], {}),
    };
  }

  /** Validates and fills defaults; throws UserError naming the bad field. */
  normalizeInput(input: ArtifactInput): Artifact {
    if (input === null || typeof input !== 'object') throw new UserError('An artifact must be an object.');
    if (!isArtifactType(input.type)) {
      throw new UserError(`Unknown type ${JSON.stringify(input.type)}.`, `Use one of: ${listTypes()}.`);
    }
    const scope = input.scope ?? 'global';
    if (!isScope(scope)) throw new UserError(`Unknown scope ${JSON.stringify(scope)}.`, 'Use one of: global, task, path.');
    const status = input.status ?? 'active';
    if (!isStatus(status)) throw new UserError(`Unknown status ${JSON.stringify(status)}.`, 'Use one of: active, superseded, archived.');
    if (typeof input.title !== 'string' || input.title.trim() === '') throw new UserError('An artifact needs a non-empty "title".');
    if (typeof input.body !== 'string') throw new UserError('An artifact needs a "body" (Markdown text; it may be empty).');
    validateBody(input.body);
    validateBody(input.title);
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
    const now = this.nowIso();
    const createdAt = isoOrThrow(input.createdAt, 'createdAt', now);
    const id = input.id !== undefined ? String(input.id).trim() : this.newId(input.type);
    if (id === '' || /\s/.test(id)) throw new UserError(`An artifact id must be non-empty and contain no spaces: ${JSON.stringify(input.id)}.`);
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
      extra: input.extra ?? {},
    };
  }

  private newId(type: ArtifactType): string {
    const stamp = this.clock.now().toISOString().replace(/[-:TZ.]/g, '').slice(0, 14);
    const base = `${type.replace('_', '-')}-${stamp}`;
    let id = base;
    for (let n = 2; this.exists(id); n++) id = `${base}-${n}`;
    return id;
  }

  private exists(id: string): boolean {
    return this.scalar('SELECT 1 FROM artifact WHERE id = ?', [id]) !== null;
  }

  private insert(a: Artifact): void {
    const chainHasOthers = this.scalar('SELECT 1 FROM artifact WHERE chain_id = ? LIMIT 1', [a.chainId]) !== null;
    this.exec(
      `INSERT INTO artifact (${ARTIFACT_COLUMNS}, is_latest) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)`,
      [
        a.id, a.chainId, a.version, a.type, a.scope, a.taskId, JSON.stringify(a.paths), a.title, a.body, a.summary,
        JSON.stringify(a.tags), JSON.stringify(a.conditions), a.status, a.supersedes, a.pinned ? 1 : 0, a.source,
        a.createdAt, a.updatedAt, a.contentHash, JSON.stringify(a.extra),
      ],
    );
    // The newest version of a chain is the one with the highest number, whatever order rows arrive in.
    if (chainHasOthers) this.markLatest(a.chainId);
  }

  private markLatest(chainId: string): void {
    this.exec(
      'UPDATE artifact SET is_latest = (version = (SELECT max(version) FROM artifact b WHERE b.chain_id = artifact.chain_id)) WHERE chain_id = ?',
      [chainId],
    );
  }

  /** Creates a new artifact (a new chain unless `chainId` names an existing one). */
  createArtifact(input: ArtifactInput): Artifact {
    const artifact = this.normalizeInput(input);
    const before = this.generation;
    this.transaction(() => {
      if (this.exists(artifact.id)) throw new UserError(`An artifact with id "${artifact.id}" already exists.`, 'Use `update` to add a new version.');
      if (this.versionTaken(artifact.chainId, artifact.version)) {
        throw new UserError(`Chain "${artifact.chainId}" already has a version ${artifact.version}.`);
      }
      this.insert(artifact);
    });
    this.journaled({ op: 'artifact', artifact }, before);
    return artifact;
  }

  private versionTaken(chainId: string, version: number): boolean {
    return this.scalar('SELECT 1 FROM artifact WHERE chain_id = ? AND version = ?', [chainId, version]) !== null;
  }

  getArtifact(ref: string): Artifact | undefined {
    return this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE id = ?`, [idFromRef(ref)])[0];
  }

  /** Like getArtifact, but a missing artifact is a user error naming the reference. */
  requireArtifact(ref: string): Artifact {
    const found = this.getArtifact(ref);
    if (!found) throw new UserError(`No artifact "${idFromRef(ref)}".`, 'List artifacts with `context-ledger list`.');
    return found;
  }

  latestOfChain(chainId: string): Artifact | undefined {
    return this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE chain_id = ? ORDER BY version DESC LIMIT 1`, [chainId])[0];
  }

  /** Every version of the chain `ref` belongs to, oldest first. */
  history(ref: string): Artifact[] {
    const artifact = this.requireArtifact(ref);
    return this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE chain_id = ? ORDER BY version`, [artifact.chainId]);
  }

  /**
   * Adds a new version to the chain of `ref` with `patch` applied; the old version is
   * kept. Returns the new version (or the latest, unchanged, when the patch changes nothing).
   */
  updateArtifact(ref: string, patch: ArtifactPatch, options: { id?: string; updatedAt?: string } = {}): Artifact {
    const current = this.requireArtifact(ref);
    const latest = this.latestOfChain(current.chainId)!;
    const merged = this.normalizeInput({
      ...latest,
      ...patch,
      conditions: patch.conditions ? { ...latest.conditions, ...patch.conditions } : latest.conditions,
      id: options.id ?? this.versionId(latest.chainId, latest.version + 1),
      chainId: latest.chainId,
      version: latest.version + 1,
      status: latest.status,
      createdAt: latest.createdAt,
      updatedAt: options.updatedAt ?? this.nowIso(),
    });
    if (sameContent(latest, merged) && merged.pinned === latest.pinned && merged.source === latest.source) return latest;
    return this.transaction(() => {
      this.insert(merged);
      return merged;
    });
  }

  /**
   * Brings an older version back: a new version of its chain with that version's content
   * (type, scope, paths, title, body, summary, tags, conditions). Nothing is lost; the
   * versions in between stay in the history. Status and pin stay as the chain has them.
   */
  restoreVersion(ref: string): Artifact {
    const old = this.requireArtifact(ref);
    const latest = this.latestOfChain(old.chainId)!;
    if (old.id === latest.id) throw new UserError(`"${old.title}" is already the latest version (v${old.version}); pick an older one to restore.`);
    const content = Object.fromEntries(CONTENT_FIELDS.map((field) => [field, old[field]])) as ArtifactPatch;
    const restored = this.updateArtifact(latest.id, content);
    if (restored.id === latest.id) throw new UserError(`v${old.version} of "${old.title}" has the same content as the latest version (v${latest.version}): nothing to restore.`);
    return restored;
  }

  private versionId(chainId: string, version: number): string {
    let id = `${chainId}-v${version}`;
    for (let n = 2; this.exists(id); n++) id = `${chainId}-v${version}-${n}`;
    return id;
  }

  /** Marks the chain of `oldRef` superseded by the chain of `newRef`. */
  supersede(oldRef: string, newRef: string): { superseded: Artifact; by: Artifact } {
    const old = this.requireArtifact(oldRef);
    const replacement = this.requireArtifact(newRef);
    if (old.chainId === replacement.chainId) throw new UserError('An artifact cannot supersede its own chain.');
    return this.transaction(() => {
      const now = this.nowIso();
      this.exec("UPDATE artifact SET status = 'superseded', updated_at = ? WHERE chain_id = ? AND is_latest = 1", [now, old.chainId]);
      this.exec('UPDATE artifact SET supersedes = ?, updated_at = ? WHERE chain_id = ? AND is_latest = 1', [old.chainId, now, replacement.chainId]);
      return { superseded: this.latestOfChain(old.chainId)!, by: this.latestOfChain(replacement.chainId)! };
    });
  }

  /** Creates `input` as a new chain that supersedes the chain of `oldRef`, in one step. */
  supersedeWith(oldRef: string, input: ArtifactInput): { superseded: Artifact; by: Artifact } {
    const old = this.requireArtifact(oldRef);
    return this.transaction(() => {
      const created = this.createArtifact({ ...input, supersedes: old.chainId });
      return this.supersede(old.id, created.id);
    });
  }

  setStatus(ref: string, status: ArtifactStatus): Artifact {
    const artifact = this.requireArtifact(ref);
    return this.transaction(() => {
      this.exec('UPDATE artifact SET status = ?, updated_at = ? WHERE chain_id = ? AND is_latest = 1', [status, this.nowIso(), artifact.chainId]);
      return this.latestOfChain(artifact.chainId)!;
    });
  }

  archive(ref: string): Artifact {
    return this.setStatus(ref, 'archived');
  }

  setPinned(ref: string, pinned: boolean): Artifact {
    const artifact = this.requireArtifact(ref);
    return this.transaction(() => {
      this.exec('UPDATE artifact SET pinned = ?, updated_at = ? WHERE chain_id = ? AND is_latest = 1', [pinned ? 1 : 0, this.nowIso(), artifact.chainId]);
      return this.latestOfChain(artifact.chainId)!;
    });
  }

  /**
   * Replaces the `extra` of the chain's latest version in place (not a new version): for
   * bookkeeping about the artifact, such as the link to the file it was imported from.
   */
  setExtra(ref: string, extra: Record<string, unknown>): Artifact {
    const artifact = this.requireArtifact(ref);
    return this.transaction(() => {
      this.exec('UPDATE artifact SET extra = ? WHERE chain_id = ? AND is_latest = 1', [JSON.stringify(extra), artifact.chainId]);
      return this.latestOfChain(artifact.chainId)!;
    });
  }

  /** Hard delete: the whole chain by default, or only the one version. Returns rows removed. */
  deleteArtifact(ref: string, options: { versionOnly?: boolean } = {}): number {
    const artifact = this.requireArtifact(ref);
    return this.transaction(() => {
      const where = options.versionOnly ? 'id = ?' : 'chain_id = ?';
      const key = options.versionOnly ? artifact.id : artifact.chainId;
      const count = Number(this.scalar(`SELECT count(*) FROM artifact WHERE ${where}`, [key]));
      this.exec(`DELETE FROM artifact WHERE ${where}`, [key]);
      this.exec('DELETE FROM feedback WHERE artifact_id NOT IN (SELECT id FROM artifact)');
      if (options.versionOnly) this.markLatest(artifact.chainId);
      return count;
    });
  }

  listArtifacts(filter: ArtifactFilter = {}): Artifact[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (!filter.allVersions) where.push('is_latest = 1');
    if (filter.type) {
      where.push('type = ?');
      params.push(filter.type);
    }
    if (filter.scope) {
      where.push('scope = ?');
      params.push(filter.scope);
    }
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.taskId) {
      where.push('task_id = ?');
      params.push(filter.taskId);
    }
    if (filter.tag) {
      where.push('EXISTS (SELECT 1 FROM json_each(artifact.tags) WHERE lower(value) = lower(?))');
      params.push(filter.tag);
    }
    if (filter.text) {
      where.push("(instr(lower(title), lower(?)) > 0 OR instr(lower(body), lower(?)) > 0 OR instr(lower(id), lower(?)) > 0)");
      params.push(filter.text, filter.text, filter.text);
    }
    const whereText = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    if (filter.limit !== undefined) {
      return this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact${whereText} ORDER BY updated_at DESC, id LIMIT ${Math.max(0, Math.floor(filter.limit))}`, params);
    }
    // SQLite sorts whole rows, bodies and all, and spills them to a temporary file past a
    // few MB (a third of the time to read 10,000 artifacts). So it sorts only row ids, and
    // the rows come unsorted and are put in that order here.
    const order = this.rowValues(`SELECT rowid FROM artifact${whereText} ORDER BY updated_at DESC, id`, params);
    const byRowid = new Map<SqlValue, Artifact>();
    for (const values of this.rowValues(`SELECT rowid, ${ARTIFACT_COLUMNS} FROM artifact${whereText}`, params)) {
      byRowid.set(values[0]!, this.rowToArtifact(values.slice(1)));
    }
    return order.map(([rowid]) => byRowid.get(rowid!)!);
  }

  /** The latest version of every chain, whatever its status; cached until the next write. */
  latestArtifacts(): Artifact[] {
    if (this.latestCache?.generation !== this.generation) {
      this.latestCache = { generation: this.generation, artifacts: this.listArtifacts() };
    }
    return this.latestCache.artifacts;
  }

  countArtifacts(): { chains: number; versions: number } {
    return {
      chains: Number(this.scalar('SELECT count(*) FROM artifact WHERE is_latest = 1')),
      versions: Number(this.scalar('SELECT count(*) FROM artifact')),
    };
  }

  /**
   * Imports artifacts idempotently: a new id is added; a known id whose content differs
   * from its chain's latest version becomes a new version; identical content is left alone.
   * Explicit chain/version fields (from an export) are honoured so round-trips are exact.
   */
  importArtifact(input: ArtifactInput): { outcome: ImportOutcome; artifact: Artifact } {
    const artifact = this.normalizeInput(input);
    const known = this.getArtifact(artifact.id);
    if (!known) {
      const chainTaken =
        this.scalar('SELECT 1 FROM artifact WHERE chain_id = ? AND version = ?', [artifact.chainId, artifact.version]) !== null;
      if (chainTaken) {
        // Same chain position under another id: treat as a new version of that chain.
        const latest = this.latestOfChain(artifact.chainId)!;
        if (sameContent(latest, artifact) && latest.status === artifact.status) return { outcome: 'unchanged', artifact: latest };
        artifact.version = latest.version + 1;
      }
      this.transaction(() => this.insert(artifact));
      return { outcome: 'added', artifact };
    }
    const latest = this.latestOfChain(known.chainId)!;
    const compareTo = known.id === artifact.id && input.version !== undefined ? known : latest;
    if (sameContent(compareTo, artifact) && compareTo.status === artifact.status && compareTo.pinned === artifact.pinned) {
      return { outcome: 'unchanged', artifact: compareTo };
    }
    if (sameContent(latest, artifact)) {
      // Only status or pin changed: those live on the latest version, not in a new one.
      const updated = this.transaction(() => {
        this.exec('UPDATE artifact SET status = ?, pinned = ?, updated_at = ? WHERE id = ?', [
          artifact.status, artifact.pinned ? 1 : 0, artifact.updatedAt, latest.id,
        ]);
        return this.getArtifact(latest.id)!;
      });
      return { outcome: 'updated', artifact: updated };
    }
    const next: Artifact = {
      ...artifact,
      id: this.versionId(latest.chainId, latest.version + 1),
      chainId: latest.chainId,
      version: latest.version + 1,
      createdAt: latest.createdAt,
      updatedAt: input.updatedAt && input.updatedAt !== known.updatedAt ? artifact.updatedAt : this.nowIso(),
    };
    this.transaction(() => this.insert(next));
    return { outcome: 'updated', artifact: next };
  }

  /** Imports many artifacts in one transaction; see importArtifact. */
  importArtifacts(inputs: readonly ArtifactInput[]): ImportReport {
    const report: ImportReport = { added: [], updated: [], unchanged: [] };
    this.transaction(() => {
      for (const input of inputs) {
        const { outcome, artifact } = this.importArtifact(input);
        report[outcome].push(artifact.id);
      }
    });
    return report;
  }

  // ---------------------------------------------------------------- tokens

  getTokenCount(hash: string, tokenizer: TokenizerName): number | undefined {
    return this.tokenCountsOf(tokenizer).get(hash);
  }

  /** Kept in memory and written to the table in one transaction before the next export. */
  putTokenCount(hash: string, tokenizer: TokenizerName, count: number): void {
    this.tokenCountsOf(tokenizer).set(hash, count);
    this.pendingTokenCounts.push([hash, tokenizer, count]);
  }

  /**
   * A build looks up hundreds of counts: one query for the whole table costs less than a
   * query each, and one transaction for the new ones far less than a journal write each.
   */
  private tokenCountsOf(tokenizer: TokenizerName): Map<string, number> {
    let counts = this.tokenCounts.get(tokenizer);
    if (!counts) {
      counts = new Map();
      for (const [hash, count] of this.rowValues('SELECT content_hash, count FROM token_count WHERE tokenizer = ?', [tokenizer])) {
        counts.set(String(hash), Number(count));
      }
      this.tokenCounts.set(tokenizer, counts);
    }
    return counts;
  }

  /** Token counts are facts about content, not ledger data: writing them is not a generation. */
  private flushTokenCounts(): void {
    if (this.pendingTokenCounts.length === 0) return;
    const pending = this.pendingTokenCounts;
    this.pendingTokenCounts = [];
    this.tokenCountMark = 0;
    const write = (): void => {
      for (const row of pending) this.exec('INSERT OR REPLACE INTO token_count (content_hash, tokenizer, count) VALUES (?, ?, ?)', row);
    };
    if (this.transactionDepth > 0) {
      write();
      return;
    }
    this.db.exec('BEGIN');
    try {
      write();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  // ---------------------------------------------------------------- term vectors

  /*
   * The search index's term vectors (see assemble/termVectors.ts) are derived data, like
   * token counts: their tables are created by the first write that needs them, not by a
   * migration, so a version of Context Ledger that does not know them still opens the file.
   */

  private hasTable(name: string): boolean {
    return this.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) !== null;
  }

  termDictionary(): string[] {
    if (!this.termDict) {
      const dict: string[] = [];
      if (this.hasTable('term_dict')) for (const [id, term] of this.rowValues('SELECT id, term FROM term_dict ORDER BY id')) dict[Number(id)] = String(term);
      this.termDict = dict;
      this.termDictSaved = dict.length;
      this.termDictJournaled = dict.length;
    }
    return this.termDict;
  }

  termVectors(version: string): Map<string, Uint8Array> {
    if (this.termVectorCache?.version !== version) {
      const vectors = new Map<string, Uint8Array>();
      if (this.hasTable('term_vector')) {
        for (const [key, data] of this.rowValues('SELECT key, data FROM term_vector WHERE version = ?', [version])) {
          if (data instanceof Uint8Array) vectors.set(String(key), data);
        }
      }
      this.termVectorCache = { version, vectors };
    }
    return this.termVectorCache.vectors;
  }

  /** Kept in memory and written before the next export, like token counts. */
  putTermVector(key: string, version: string, data: Uint8Array): void {
    this.termVectors(version).set(key, data);
    this.pendingTermVectors.push([key, version, data]);
  }

  private get termVectorsPending(): boolean {
    return this.pendingTermVectors.length > 0 || (this.termDict?.length ?? 0) > this.termDictSaved;
  }

  private flushTermVectors(): void {
    if (!this.termVectorsPending) return;
    const dict = this.termDict ?? [];
    const vectors = this.pendingTermVectors;
    const write = (): void => {
      this.db.exec('CREATE TABLE IF NOT EXISTS term_dict (id INTEGER PRIMARY KEY, term TEXT NOT NULL)');
      this.db.exec('CREATE TABLE IF NOT EXISTS term_vector (key TEXT PRIMARY KEY, version TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID');
      for (let id = this.termDictSaved; id < dict.length; id++) this.exec('INSERT OR REPLACE INTO term_dict (id, term) VALUES (?, ?)', [id, dict[id]!]);
      for (const row of vectors) this.exec('INSERT OR REPLACE INTO term_vector (key, version, data) VALUES (?, ?, ?)', row);
      // Vectors of another extraction version are never read again.
      if (vectors.length > 0) this.exec('DELETE FROM term_vector WHERE version <> ?', [vectors[vectors.length - 1]![1]]);
    };
    if (this.transactionDepth > 0) write();
    else {
      this.db.exec('BEGIN');
      try {
        write();
        this.db.exec('COMMIT');
      } catch (error) {
        this.db.exec('ROLLBACK');
        throw error;
      }
    }
    this.pendingTermVectors = [];
    this.termVectorMark = 0;
    this.termDictSaved = dict.length;
    this.termDictJournaled = dict.length;
  }

  // ---------------------------------------------------------------- tasks

  private rowToTask(row: Record<string, SqlValue>): Task {
    return {
      id: String(row.id),
      title: String(row.title),
      description: String(row.description),
      labels: parseJson<string[]>(row.labels, []),
      stage: String(row.stage),
      status: String(row.status) as TaskStatus,
      active: Number(row.active) === 1,
      createdAt: String(row.created_at),
      updatedAt: String(row.updated_at),
    };
  }

  createTask(input: TaskInput): Task {
    if (typeof input.title !== 'string' || input.title.trim() === '') throw new UserError('A task needs a non-empty title.');
    const now = this.nowIso();
    let id = input.id ?? `task-${now.replace(/[-:TZ.]/g, '').slice(0, 14)}`;
    if (!input.id) for (let n = 2; this.getTask(id); n++) id = `task-${now.replace(/[-:TZ.]/g, '').slice(0, 14)}-${n}`;
    if (this.getTask(id)) throw new UserError(`A task with id "${id}" already exists.`);
    return this.transaction(() => {
      this.exec('INSERT INTO task (id, title, description, labels, stage, status, active, created_at, updated_at) VALUES (?,?,?,?,?,?,0,?,?)', [
        id, input.title.trim(), input.description ?? '', JSON.stringify(stringList(input.labels, 'labels')), input.stage ?? 'plan',
        input.status ?? 'open', now, now,
      ]);
      return this.getTask(id)!;
    });
  }

  getTask(id: string): Task | undefined {
    const row = this.rows('SELECT * FROM task WHERE id = ?', [id])[0];
    return row ? this.rowToTask(row) : undefined;
  }

  requireTask(id: string): Task {
    const task = this.getTask(id);
    if (!task) throw new UserError(`No task "${id}".`, 'List tasks with `context-ledger task list`.');
    return task;
  }

  listTasks(): Task[] {
    return this.rows('SELECT * FROM task ORDER BY active DESC, updated_at DESC, id').map((r) => this.rowToTask(r));
  }

  getActiveTask(): Task | undefined {
    const row = this.rows('SELECT * FROM task WHERE active = 1 LIMIT 1')[0];
    return row ? this.rowToTask(row) : undefined;
  }

  /** Makes `id` the one active task, or clears the active task with `undefined`. */
  setActiveTask(id: string | undefined): Task | undefined {
    if (id !== undefined) this.requireTask(id);
    return this.transaction(() => {
      this.exec('UPDATE task SET active = 0 WHERE active = 1');
      if (id === undefined) return undefined;
      this.exec('UPDATE task SET active = 1, updated_at = ? WHERE id = ?', [this.nowIso(), id]);
      return this.getTask(id);
    });
  }

  updateTask(id: string, patch: Partial<Pick<Task, 'title' | 'description' | 'labels' | 'status'>>): Task {
    const task = this.requireTask(id);
    const next = { ...task, ...patch };
    return this.transaction(() => {
      this.exec('UPDATE task SET title = ?, description = ?, labels = ?, status = ?, updated_at = ? WHERE id = ?', [
        next.title, next.description, JSON.stringify(next.labels), next.status, this.nowIso(), id,
      ]);
      return this.getTask(id)!;
    });
  }

  /** Moves a task to `stage` and records a stage_entered event (workflow memory). */
  setTaskStage(id: string, stage: string): Task {
    const task = this.requireTask(id);
    if (task.stage === stage) return task;
    return this.transaction(() => {
      const now = this.nowIso();
      this.exec('UPDATE task SET stage = ?, updated_at = ? WHERE id = ?', [stage, now, id]);
      this.addTaskEvent(id, 'stage_entered', { stage, from: task.stage });
      return this.getTask(id)!;
    });
  }

  addTaskEvent(taskId: string, kind: TaskEventKind, payload: Record<string, unknown> = {}, at?: string): void {
    if (!(TASK_EVENT_KINDS as readonly string[]).includes(kind)) throw new UserError(`Unknown task event kind "${kind}".`);
    this.run('INSERT INTO task_event (task_id, kind, payload, at) VALUES (?, ?, ?, ?)', [taskId, kind, JSON.stringify(payload), at ?? this.nowIso()]);
  }

  taskEvents(taskId: string): TaskEvent[] {
    return this.rows('SELECT * FROM task_event WHERE task_id = ? ORDER BY at, id', [taskId]).map((row) => ({
      id: Number(row.id),
      taskId: String(row.task_id),
      kind: String(row.kind) as TaskEventKind,
      payload: parseJson<Record<string, unknown>>(row.payload, {}),
      at: String(row.at),
    }));
  }

  // ---------------------------------------------------------------- file activity

  recordFileActivity(path: string, kind: 'open' | 'edit' | 'save', at?: string): void {
    const when = at ?? this.nowIso();
    const column = kind === 'open' ? 'opens' : kind === 'edit' ? 'edits' : 'saves';
    const stamp = kind === 'open' ? 'last_opened_at' : kind === 'edit' ? 'last_edited_at' : 'last_saved_at';
    this.run(
      `INSERT INTO file_activity (path, ${column}, ${stamp}) VALUES (?, 1, ?)
       ON CONFLICT(path) DO UPDATE SET ${column} = ${column} + 1, ${stamp} = excluded.${stamp}`,
      [path, when],
    );
  }

  fileActivity(): FileActivity[] {
    return this.rows('SELECT * FROM file_activity ORDER BY path').map((row) => ({
      path: String(row.path),
      opens: Number(row.opens),
      edits: Number(row.edits),
      saves: Number(row.saves),
      lastOpenedAt: row.last_opened_at === null ? null : String(row.last_opened_at),
      lastEditedAt: row.last_edited_at === null ? null : String(row.last_edited_at),
      lastSavedAt: row.last_saved_at === null ? null : String(row.last_saved_at),
    }));
  }

  // ---------------------------------------------------------------- feedback

  recordFeedback(ref: string, verdict: 'useful' | 'not_useful'): Feedback {
    const artifact = this.requireArtifact(ref);
    this.run(
      `INSERT INTO feedback (artifact_id, ${verdict}) VALUES (?, 1)
       ON CONFLICT(artifact_id) DO UPDATE SET ${verdict} = ${verdict} + 1`,
      [artifact.id],
    );
    return this.feedbackFor(artifact.id);
  }

  recordInjected(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const before = this.generation;
    this.incrementInjected(ids);
    this.journaled({ op: 'injected', ids: [...ids] }, before);
  }

  private incrementInjected(ids: readonly string[]): void {
    this.transaction(() => {
      for (const id of ids) {
        this.exec(
          'INSERT INTO feedback (artifact_id, times_injected) VALUES (?, 1) ON CONFLICT(artifact_id) DO UPDATE SET times_injected = times_injected + 1',
          [id],
        );
      }
    });
  }

  feedbackFor(id: string): Feedback {
    const row = this.rows('SELECT * FROM feedback WHERE artifact_id = ?', [id])[0];
    return {
      artifactId: id,
      timesInjected: Number(row?.times_injected ?? 0),
      useful: Number(row?.useful ?? 0),
      notUseful: Number(row?.not_useful ?? 0),
    };
  }

  allFeedback(): Map<string, Feedback> {
    const map = new Map<string, Feedback>();
    for (const row of this.rows('SELECT * FROM feedback')) {
      map.set(String(row.artifact_id), {
        artifactId: String(row.artifact_id),
        timesInjected: Number(row.times_injected),
        useful: Number(row.useful),
        notUseful: Number(row.not_useful),
      });
    }
    return map;
  }

  // ---------------------------------------------------------------- assembly log

  logAssembly(entry: AssemblyLogEntry): number {
    const before = this.generation;
    this.insertLogRow(entry);
    this.journaled({ op: 'log', entry }, before);
    return Number(this.scalar('SELECT last_insert_rowid()'));
  }

  private insertLogRow(entry: AssemblyLogEntry): void {
    this.run(
      `INSERT INTO assembly_log (at, task_id, budget, tokens_used, tokenizer, candidates, included, degraded, excluded, layers, duration_ms, output_hash, trigger)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      [
        entry.at, entry.taskId, entry.budget, entry.tokensUsed, entry.tokenizer, entry.candidates, JSON.stringify(entry.included),
        JSON.stringify(entry.degraded), JSON.stringify(entry.excluded), JSON.stringify(entry.layers), entry.durationMs,
        entry.outputHash, entry.trigger,
      ],
    );
  }

  // ---------------------------------------------------------------- journal

  private journaled(record: JournalRecord, generationBefore: number): void {
    this.journal.push(record);
    this.journaledGenerations += this.generation - generationBefore;
  }

  /**
   * The writes since the last call, as journal records, if every change since then is one
   * a journal can carry (else undefined: the database must be written whole). Starts over.
   */
  takeJournal(): JournalRecord[] | undefined {
    const changes = this.generation - this.journalGenerationMark;
    const vectors = this.pendingTermVectors.slice(this.termVectorMark);
    const dict = this.termDict ?? [];
    const firstTerm = this.termDictJournaled;
    // The vectors of a few new bodies (after an add) go in the journal; a first build or
    // one after an import makes thousands, and the write a full one.
    const vectorsFit = vectors.length <= JOURNAL_VECTORS && dict.length - firstTerm <= JOURNAL_TERMS;
    const carried = changes === this.journaledGenerations && vectorsFit ? [...this.journal] : undefined;
    const counts = this.pendingTokenCounts.slice(this.tokenCountMark);
    if (carried && counts.length > 0) carried.push({ op: 'tokens', counts });
    if (carried && (vectors.length > 0 || dict.length > firstTerm)) {
      carried.push({ op: 'vectors', firstTerm, terms: dict.slice(firstTerm), vectors: vectors.map(([key, version, data]) => [key, version, Array.from(data)]) });
    }
    this.journal = [];
    this.journaledGenerations = 0;
    this.journalGenerationMark = this.generation;
    // Counts and vectors stay pending either way: the next full write puts them in their tables.
    this.tokenCountMark = this.pendingTokenCounts.length;
    this.termVectorMark = this.pendingTermVectors.length;
    this.termDictJournaled = dict.length;
    return carried;
  }

  /**
   * Replays journal records written by `takeJournal()` (in this or another process);
   * with `only`, just the records of those kinds.
   */
  applyJournal(records: readonly unknown[], only?: ReadonlySet<JournalRecord['op']>): void {
    const before = this.generation;
    const countsBefore = this.pendingTokenCounts.length;
    const vectorsBefore = this.pendingTermVectors.length;
    const termsBefore = this.termDict?.length ?? 0;
    try {
      // A record that is not what `takeJournal` writes (a damaged file) is skipped.
      this.transaction(() => {
        for (const record of records) {
          if (!isJournalRecord(record)) {
            const op = (record as { op?: unknown } | null)?.op;
            if (typeof op === 'string' && !Object.hasOwn(JOURNAL_OPS, op)) this.foreignJournalOps.add(op);
            continue;
          }
          if (only && !only.has(record.op)) continue;
          if (record.op === 'log') this.insertLogRow(record.entry);
          else if (record.op === 'artifact') {
            // Replayed once per database it was written for; a row already there (or a
            // version number taken meanwhile) means the record is not this database's.
            const a = record.artifact;
            if (!this.exists(a.id) && !this.versionTaken(a.chainId, a.version)) this.insert(a);
          }
          else if (record.op === 'injected') this.incrementInjected(record.ids);
          else if (record.op === 'vectors') this.replayTermVectors(record);
          else for (const [hash, tokenizer, count] of record.counts) this.putTokenCount(hash, tokenizer, count);
        }
      });
    } finally {
      // What was replayed is on disk already: not a change of this store's to journal again
      // (a migration on opening still is one, and still makes the next write a full one).
      this.journalGenerationMark += this.generation - before;
      if (this.tokenCountMark === countsBefore) this.tokenCountMark = this.pendingTokenCounts.length;
      if (this.termVectorMark === vectorsBefore) this.termVectorMark = this.pendingTermVectors.length;
      if (this.termDictJournaled >= termsBefore) this.termDictJournaled = this.termDict?.length ?? 0;
    }
  }

  /**
   * Adds journaled dictionary entries and vectors. Entries that disagree with the
   * dictionary (another database's journal) or leave a gap in it void the whole record:
   * a vector read through the wrong dictionary would index the wrong words.
   */
  private replayTermVectors(record: Extract<JournalRecord, { op: 'vectors' }>): void {
    const dict = this.termDictionary();
    if (record.firstTerm > dict.length) return;
    for (let i = 0; i < record.terms.length; i++) {
      const known = dict[record.firstTerm + i];
      if (known !== undefined && known !== record.terms[i]) return;
    }
    record.terms.forEach((term, i) => (dict[record.firstTerm + i] = term));
    for (const [key, version, bytes] of record.vectors) this.putTermVector(key, version, Uint8Array.from(bytes));
  }

  /**
   * Kinds of record in the replayed journal that a newer version wrote: writing the
   * database whole would drop them, so the adapter refuses to write.
   */
  get journalFromNewerVersion(): string[] {
    return [...this.foreignJournalOps].sort();
  }

  recentAssemblies(limit = 50): AssemblyLogRow[] {
    return this.rows('SELECT * FROM assembly_log ORDER BY id DESC LIMIT ?', [limit]).map((row) => ({
      id: Number(row.id),
      at: String(row.at),
      taskId: row.task_id === null ? null : String(row.task_id),
      budget: Number(row.budget),
      tokensUsed: Number(row.tokens_used),
      tokenizer: String(row.tokenizer) as TokenizerName,
      candidates: Number(row.candidates),
      included: parseJson<unknown>(row.included, []),
      degraded: parseJson<unknown>(row.degraded, []),
      excluded: parseJson<unknown>(row.excluded, []),
      layers: parseJson<unknown>(row.layers, {}),
      durationMs: Number(row.duration_ms),
      outputHash: String(row.output_hash),
      trigger: String(row.trigger),
    }));
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';

function isJournalRecord(value: unknown): value is JournalRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (record.op === 'injected') return Array.isArray(record.ids) && record.ids.every(isString);
  if (record.op === 'artifact') return isJournaledArtifact(record.artifact);
  if (record.op === 'vectors') {
    const isByte = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;
    return (
      Number.isSafeInteger(record.firstTerm) && (record.firstTerm as number) >= 0 &&
      Array.isArray(record.terms) && record.terms.every(isString) &&
      Array.isArray(record.vectors) &&
      record.vectors.every((v) => Array.isArray(v) && v.length === 3 && isString(v[0]) && isString(v[1]) && Array.isArray(v[2]) && v[2].every(isByte))
    );
  }
  if (record.op === 'tokens') {
    return (
      Array.isArray(record.counts) &&
      record.counts.every((c) => Array.isArray(c) && c.length === 3 && isString(c[0]) && isTokenizerName(c[1]) && isNumber(c[2]) && c[2] >= 0)
    );
  }
  if (record.op !== 'log' || record.entry === null || typeof record.entry !== 'object') return false;
  const e = record.entry as Record<string, unknown>;
  return (
    isString(e.at) && (e.taskId === null || isString(e.taskId)) && isNumber(e.budget) && isNumber(e.tokensUsed) && isTokenizerName(e.tokenizer) &&
    isNumber(e.candidates) && isNumber(e.durationMs) && isString(e.outputHash) && isString(e.trigger)
  );
}

/**
 * Whether a journal's artifact is one `createArtifact` wrote: every field of its type,
 * and a body that still has its content hash (a damaged or edited line is not replayed).
 */
function isJournaledArtifact(value: unknown): value is Artifact {
  if (value === null || typeof value !== 'object') return false;
  const a = value as Record<string, unknown>;
  const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every(isString);
  const isObject = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);
  const conditions = a.conditions as Record<string, unknown> | null;
  return (
    isString(a.id) && a.id !== '' && !/\s/.test(a.id) && isString(a.chainId) && a.chainId !== '' &&
    Number.isSafeInteger(a.version) && (a.version as number) >= 1 &&
    isArtifactType(a.type) && isScope(a.scope) && isStatus(a.status) &&
    (a.taskId === null || isString(a.taskId)) && (a.summary === null || isString(a.summary)) && (a.supersedes === null || isString(a.supersedes)) &&
    isStrings(a.paths) && isStrings(a.tags) && isString(a.title) && isString(a.body) && typeof a.pinned === 'boolean' &&
    isString(a.source) && isString(a.createdAt) && isString(a.updatedAt) && isObject(a.extra) &&
    isObject(conditions) && isStrings(conditions!.labels) && isStrings(conditions!.keywords) && isStrings(conditions!.paths) &&
    a.contentHash === contentHash(a.body)
  );
}

function sameContent(a: Artifact, b: Artifact): boolean {
  return CONTENT_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]));
}

function listTypes(): string {
  return ARTIFACT_TYPES.join(', ');
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
