import type { Database, SqlJsStatic } from 'sql.js';
import type {
  Artifact,
  ArtifactInput,
  ArtifactPatch,
  ArtifactStatus,
  Feedback,
  FileActivity,
  Task,
  TaskEvent,
  TaskEventKind,
  TokenizerName,
} from './model';
import type { RecordedFields } from './artifactSchema';
import type { TermVectorStore } from './assemble/termVectors';
import type { TokenCountCache } from './tokens';
import { Activity } from './ledgerStore/activity';
import { type ArtifactFilter, Artifacts, type ImportOutcome, type ImportReport } from './ledgerStore/artifacts';
import { type Change, type Clock, Connection, systemClock } from './ledgerStore/connection';
import { TermVectors, TokenCounts } from './ledgerStore/derivedCaches';
import { ASSEMBLY_LOG_KEPT, type AssemblyLogEntry, type AssemblyLogRow, FeedbackLog } from './ledgerStore/feedback';
import { type FileStamp, FileStamps } from './ledgerStore/fileStamps';
import { replayJournal } from './ledgerStore/journal';
import { compactIfMostlyFree, migrate, mostlyFree, openDatabase, schemaVersion } from './ledgerStore/schema';
import { type TaskInput, Tasks } from './ledgerStore/tasks';

export { MAX_BODY_BYTES, utf8ByteLength, validateBody } from './ledgerStore/artifactInput';
export { type ArtifactFilter, type ImportOutcome, type ImportReport } from './ledgerStore/artifacts';
export { type Change, type Clock, systemClock } from './ledgerStore/connection';
export { ASSEMBLY_LOG_KEPT, type AssemblyLogEntry, type AssemblyLogRow } from './ledgerStore/feedback';
export { type FileStamp } from './ledgerStore/fileStamps';
export { CorruptDatabaseError, looksLikeSqlite } from './ledgerStore/schema';
export { type TaskInput } from './ledgerStore/tasks';

/**
 * The workspace ledger: artifacts with version chains, tasks and their events, file
 * activity, feedback, the assembly log and the token-count cache, in one sql.js
 * database held in memory. Persisting the bytes is the adapter's job (`export()`).
 *
 * A facade: each concern lives in its own module under `ledgerStore/`, over one
 * `Connection`; this class keeps the one API every caller uses.
 */
export class LedgerStore implements TokenCountCache, TermVectorStore {
  private readonly conn: Connection;
  private readonly artifacts: Artifacts;
  private readonly tasks: Tasks;
  private readonly activity: Activity;
  private readonly feedback: FeedbackLog;
  private readonly tokenCounts: TokenCounts;
  private readonly vectors: TermVectors;
  private readonly stamps: FileStamps;

  private constructor(
    private readonly db: Database,
    readonly clock: Clock,
  ) {
    this.conn = new Connection(db, clock);
    this.artifacts = new Artifacts(this.conn);
    this.tasks = new Tasks(this.conn);
    this.activity = new Activity(this.conn);
    this.feedback = new FeedbackLog(this.conn);
    this.tokenCounts = new TokenCounts(this.conn);
    this.vectors = new TermVectors(this.conn);
    this.stamps = new FileStamps(this.conn);
  }

  /** Opens `bytes` (or a new, empty database) and brings its schema up to date. */
  static open(sql: SqlJsStatic, bytes?: Uint8Array, clock: Clock = systemClock): LedgerStore {
    const store = new LedgerStore(openDatabase(sql, bytes), clock);
    migrate(store.conn);
    return store;
  }

  /** Bumped on every write so callers can cache derived data (e.g. a search index). */
  get generation(): number {
    return this.conn.generation;
  }

  get schemaVersion(): number {
    return schemaVersion(this.conn);
  }

  export(): Uint8Array {
    this.tokenCounts.flush();
    this.vectors.flush();
    compactIfMostlyFree(this.conn);
    return this.db.export();
  }

  /**
   * The write statements since the store was loaded or last saved, the pending token counts
   * and term vectors included (flushed first); undefined when the next save must write the
   * whole database (too many, or a schema migration). See src/node/indexDelta.ts.
   */
  pendingChanges(): readonly Change[] | undefined {
    this.tokenCounts.flush();
    this.vectors.flush();
    return this.conn.pendingChanges;
  }

  /** Deleted rows left over a quarter of the database free (and over 1 MB): a whole save gives the space back (VACUUM). */
  get mostlyFree(): boolean {
    return mostlyFree(this.conn);
  }

  /** The adapter saved what `pendingChanges` held (the whole database or its delta). */
  changesSaved(): void {
    this.conn.changesSaved();
  }

  /** The next save writes the whole database (what is loaded is not the saved file plus a list of statements). */
  mustSaveWhole(): void {
    this.conn.changesNotReplayable();
  }

  /** Applies statements a saved delta holds (not pending: they are saved already). */
  replayChanges(changes: readonly Change[]): void {
    this.conn.replay(changes);
  }

  close(): void {
    this.conn.close();
  }

  /** Runs `fn` in one SQLite transaction: all of it applies or none. */
  transaction<T>(fn: () => T): T {
    return this.conn.transaction(fn);
  }

  // ---------------------------------------------------------------- artifact files

  /** The artifact files as the index last read or wrote them, by path. */
  fileStamps(): Map<string, FileStamp> {
    return this.stamps.all();
  }

  fileStamp(path: string): FileStamp | undefined {
    return this.stamps.get(path);
  }

  putFileStamp(stamp: FileStamp): void {
    this.stamps.put(stamp);
  }

  removeFileStamp(path: string): void {
    this.stamps.remove(path);
  }

  // ---------------------------------------------------------------- artifacts

  /** Validates and fills defaults; throws UserError naming the bad field. */
  normalizeInput(input: ArtifactInput): Artifact {
    return this.artifacts.normalizeInput(input);
  }

  /** Creates a new artifact (a new chain unless `chainId` names an existing one). */
  createArtifact(input: ArtifactInput): Artifact {
    return this.artifacts.create(input);
  }

  getArtifact(ref: string): Artifact | undefined {
    return this.artifacts.get(ref);
  }

  /** An id, a URN, or the title of one current artifact as a built context shows it (see Artifacts.find). */
  findArtifact(ref: string): Artifact | undefined {
    return this.artifacts.find(ref);
  }

  /** Which of `ids` name a stored artifact version (one query; no row read). */
  existingArtifactIds(ids: readonly string[]): Set<string> {
    return this.artifacts.existing(ids);
  }

  /** Like getArtifact, but a missing artifact is a user error naming the reference. */
  requireArtifact(ref: string): Artifact {
    return this.artifacts.require(ref);
  }

  latestOfChain(chainId: string): Artifact | undefined {
    return this.artifacts.latestOfChain(chainId);
  }

  hasChain(chainId: string): boolean {
    return this.artifacts.hasChain(chainId);
  }

  /** Whether a version of the chain of any of the artifacts `ids` came from a source starting with `prefix` (`import:`). */
  chainsHaveSource(ids: readonly string[], prefix: string): boolean {
    return this.artifacts.chainsHaveSource(ids, prefix);
  }

  /** Every version of the chain `ref` belongs to, oldest first. */
  history(ref: string): Artifact[] {
    return this.artifacts.history(ref);
  }

  /**
   * Adds a new version to the chain of `ref` with `patch` applied; the old version is
   * kept. Returns the new version (or the latest, unchanged, when the patch changes nothing).
   */
  updateArtifact(ref: string, patch: ArtifactPatch, options: { id?: string; updatedAt?: string } = {}): Artifact {
    return this.artifacts.update(ref, patch, options);
  }

  /** Marks the chain of `oldRef` superseded by the chain of `newRef`. */
  supersede(oldRef: string, newRef: string): { superseded: Artifact; by: Artifact } {
    return this.artifacts.supersede(oldRef, newRef);
  }

  /** Creates `input` as a new chain that supersedes the chain of `oldRef`, in one step. */
  supersedeWith(oldRef: string, input: ArtifactInput): { superseded: Artifact; by: Artifact } {
    return this.artifacts.supersedeWith(oldRef, input);
  }

  setStatus(ref: string, status: ArtifactStatus): Artifact {
    return this.artifacts.setStatus(ref, status);
  }

  archive(ref: string): Artifact {
    return this.setStatus(ref, 'archived');
  }

  setPinned(ref: string, pinned: boolean): Artifact {
    return this.artifacts.setPinned(ref, pinned);
  }

  /**
   * Sets recorded fields of the chain's latest version in place (not a new version): for
   * bookkeeping about the artifact, such as the link to the file it was imported from.
   */
  setRecorded(ref: string, fields: RecordedFields & { extra?: Record<string, unknown> }): Artifact {
    return this.artifacts.setRecorded(ref, fields);
  }

  /** Hard delete: the whole chain by default, or only the one version. Returns rows removed. */
  deleteArtifact(ref: string, options: { versionOnly?: boolean } = {}): number {
    return this.artifacts.delete(ref, options);
  }

  /** The artifact chains written since the last call (what the Markdown mirror must rewrite), and starts over. */
  takeChangedChains(): string[] {
    return this.artifacts.takeChanged();
  }

  listArtifacts(filter: ArtifactFilter = {}): Artifact[] {
    return this.artifacts.list(filter);
  }

  /** The latest version of every chain, whatever its status, newest first; kept between writes and patched by them (ledgerStore/latestList.ts). */
  latestArtifacts(): readonly Artifact[] {
    return this.artifacts.latest();
  }

  countArtifacts(): { chains: number; versions: number } {
    return this.artifacts.count();
  }

  /** Imports one artifact idempotently; see Artifacts.import. */
  importArtifact(input: ArtifactInput): { outcome: ImportOutcome; artifact: Artifact } {
    return this.artifacts.import(input);
  }

  /** Imports many artifacts in one transaction; see importArtifact. */
  importArtifacts(inputs: readonly ArtifactInput[]): ImportReport {
    return this.artifacts.importMany(inputs);
  }

  // ---------------------------------------------------------------- derived caches

  getTokenCount(hash: string, tokenizer: TokenizerName): number | undefined {
    return this.tokenCounts.getTokenCount(hash, tokenizer);
  }

  /** Kept in memory and written to the table in one transaction before the next export. */
  putTokenCount(hash: string, tokenizer: TokenizerName, count: number): void {
    this.tokenCounts.putTokenCount(hash, tokenizer, count);
  }

  termDictionary(): string[] {
    return this.vectors.termDictionary();
  }

  termVectors(version: string): Map<string, Uint8Array> {
    return this.vectors.termVectors(version);
  }

  /** Kept in memory and written before the next export, like token counts. */
  putTermVector(key: string, version: string, data: Uint8Array): void {
    this.vectors.putTermVector(key, version, data);
  }

  // ---------------------------------------------------------------- tasks

  createTask(input: TaskInput): Task {
    return this.tasks.create(input);
  }

  getTask(id: string): Task | undefined {
    return this.tasks.get(id);
  }

  requireTask(id: string): Task {
    return this.tasks.require(id);
  }

  listTasks(): Task[] {
    return this.tasks.list();
  }

  getActiveTask(): Task | undefined {
    return this.tasks.getActive();
  }

  /** Makes `id` the one active task, or clears the active task with `undefined`. */
  setActiveTask(id: string | undefined): Task | undefined {
    return this.tasks.setActive(id);
  }

  updateTask(id: string, patch: Partial<Pick<Task, 'title' | 'description' | 'labels' | 'status'>>): Task {
    return this.tasks.update(id, patch);
  }

  /** Moves a task to `stage` and records a stage_entered event (workflow memory). */
  setTaskStage(id: string, stage: string): Task {
    return this.tasks.setStage(id, stage);
  }

  addTaskEvent(taskId: string, kind: TaskEventKind, payload: Record<string, unknown> = {}, at?: string): void {
    this.tasks.addEvent(taskId, kind, payload, at);
  }

  taskEvents(taskId: string): TaskEvent[] {
    return this.tasks.events(taskId);
  }

  // ---------------------------------------------------------------- file activity

  recordFileActivity(path: string, kind: 'open' | 'edit' | 'save', at?: string): void {
    this.activity.record(path, kind, at);
  }

  fileActivity(): FileActivity[] {
    return this.activity.all();
  }

  // ---------------------------------------------------------------- feedback and the assembly log

  recordFeedback(ref: string, verdict: 'useful' | 'not_useful'): Feedback {
    return this.feedback.record(this.artifacts.require(ref).id, verdict);
  }

  recordInjected(ids: readonly string[]): void {
    this.feedback.recordInjected(ids);
  }

  feedbackFor(id: string): Feedback {
    return this.feedback.feedbackFor(id);
  }

  allFeedback(): Map<string, Feedback> {
    return this.feedback.allFeedback();
  }

  /** Logs a build and drops the rows past the newest ASSEMBLY_LOG_KEPT; returns the new row's id. */
  logAssembly(entry: AssemblyLogEntry): number {
    return this.feedback.logAssembly(entry);
  }

  /** The newest logged builds, newest first (at most ASSEMBLY_LOG_KEPT are kept). */
  recentAssemblies(limit = ASSEMBLY_LOG_KEPT): AssemblyLogRow[] {
    return this.feedback.recentAssemblies(limit);
  }

  // ---------------------------------------------------------------- migration

  /**
   * Replays the records of an earlier version's journal (src/node/persistence/journal.ts);
   * the next save puts them in the database. Damaged records are skipped.
   */
  applyLegacyJournal(records: readonly unknown[]): void {
    replayJournal({ conn: this.conn, artifacts: this.artifacts, feedback: this.feedback, tokenCounts: this.tokenCounts, termVectors: this.vectors }, records);
  }
}
