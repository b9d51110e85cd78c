import type { SqlValue } from 'sql.js';
import { newArtifactId, newVersionId } from '../ids';
import {
  type Artifact,
  type ArtifactInput,
  type ArtifactPatch,
  type ArtifactStatus,
  type ArtifactType,
  type Conditions,
  type Scope,
  UserError,
  adrIdFromRef,
  foldText,
  idFromRef,
  oneLine,
  titleOfReference,
} from '../model';
import { joinExtra, type RecordedFields, splitExtra, withoutRecorded } from '../artifactSchema';
import { normalizeArtifactInput, normalizeConditions, sameContent } from './artifactInput';
import { type Connection, parseJson } from './connection';
import { LatestList } from './latestList';

export interface ArtifactFilter {
  type?: ArtifactType;
  scope?: Scope;
  /** Default: every status. */
  status?: ArtifactStatus;
  tag?: string;
  taskId?: string;
  /** Only artifacts whose source starts with this (`import:`: the ones imported from the workspace's files). */
  sourcePrefix?: string;
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

/** An earlier version's journal record of a new artifact (replayed by the migration: legacyJournal.ts). */
export type ArtifactJournalRecord = { op: 'artifact'; artifact: Artifact };

const ARTIFACT_COLUMNS =
  'id, chain_id, version, type, scope, task_id, paths, title, body, summary, tags, conditions, status, supersedes, pinned, source, created_at, updated_at, content_hash, extra';

/**
 * Artifacts and their version chains: a chain's versions share a `chain_id`, the highest
 * version is the latest (`is_latest`), and an update adds a version instead of changing one.
 */
export class Artifacts {
  private readonly latestList: LatestList;
  /** Chains written since the last `takeChanged()`: the Markdown mirror rewrites their files only. */
  private changed = new Set<string>();

  constructor(private readonly conn: Connection) {
    this.latestList = new LatestList(
      conn,
      () => this.list(),
      (chainIds) => this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE is_latest = 1 AND chain_id IN (${chainIds.map(() => '?').join(', ')})`, [...chainIds]),
    );
  }

  /** Every write to a chain's rows names the chain here: the files to rewrite, and the latest list to patch. */
  private touch(...chainIds: string[]): void {
    for (const chainId of chainIds) {
      this.changed.add(chainId);
      this.latestList.touched(chainId);
    }
  }

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
      ...splitExtra(parseJson<Record<string, unknown>>(row[19], {}), { strict: false }),
    };
  }

  private artifactRows(sqlText: string, params: SqlValue[] = []): Artifact[] {
    return this.conn.rowValues(sqlText, params).map((values) => this.rowToArtifact(values));
  }

  /** Validates and fills defaults; throws UserError naming the bad field. */
  normalizeInput(input: ArtifactInput): Artifact {
    return normalizeArtifactInput(input, () => this.conn.nowIso(), (type) => this.newId(type));
  }

  private newId(type: ArtifactType): string {
    return newArtifactId(type, this.conn.clock.now(), (id) => this.exists(id));
  }

  exists(id: string): boolean {
    return this.conn.scalar('SELECT 1 FROM artifact WHERE id = ?', [id]) !== null;
  }

  /** Whether the chain has a version (from the (chain_id, version) index alone: no row is read). */
  hasChain(chainId: string): boolean {
    return this.conn.scalar('SELECT 1 FROM artifact WHERE chain_id = ? LIMIT 1', [chainId]) !== null;
  }

  /** Whether a version of the chain of any of `ids` has a source starting with `prefix`, in one query per 500 ids. */
  chainsHaveSource(ids: readonly string[], prefix: string): boolean {
    for (let at = 0; at < ids.length; at += 500) {
      const some = ids.slice(at, at + 500);
      const sql = `SELECT 1 FROM artifact WHERE substr(source, 1, ?) = ? AND chain_id IN (SELECT chain_id FROM artifact WHERE id IN (${some.map(() => '?').join(', ')})) LIMIT 1`;
      if (this.conn.scalar(sql, [prefix.length, prefix, ...some]) !== null) return true;
    }
    return false;
  }

  /** The chains written since the last call (a rolled-back write may be among them: rewriting its unchanged file is a no-op). */
  takeChanged(): string[] {
    const chains = [...this.changed];
    this.changed.clear();
    return chains;
  }

  /** Which of `ids` are stored, in one query (a build's items: a few hundred at most). */
  existing(ids: readonly string[]): Set<string> {
    const found = new Set<string>();
    // SQLite's default limit on bound parameters is 999.
    for (let at = 0; at < ids.length; at += 900) {
      const part = ids.slice(at, at + 900);
      for (const row of this.conn.rows(`SELECT id FROM artifact WHERE id IN (${part.map(() => '?').join(',')})`, [...part])) found.add(String(row.id));
    }
    return found;
  }

  insert(a: Artifact): void {
    this.touch(a.chainId);
    const chainHasOthers = this.hasChain(a.chainId);
    this.conn.exec(
      `INSERT INTO artifact (${ARTIFACT_COLUMNS}, is_latest) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)`,
      [
        a.id, a.chainId, a.version, a.type, a.scope, a.taskId, JSON.stringify(a.paths), a.title, a.body, a.summary,
        JSON.stringify(a.tags), JSON.stringify(a.conditions), a.status, a.supersedes, a.pinned ? 1 : 0, a.source,
        a.createdAt, a.updatedAt, a.contentHash, JSON.stringify(joinExtra(a)),
      ],
    );
    // The newest version of a chain is the one with the highest number, whatever order rows arrive in.
    if (chainHasOthers) this.markLatest(a.chainId);
  }

  private markLatest(chainId: string): void {
    this.conn.exec(
      'UPDATE artifact SET is_latest = (version = (SELECT max(version) FROM artifact b WHERE b.chain_id = artifact.chain_id)) WHERE chain_id = ?',
      [chainId],
    );
  }

  /** Creates a new artifact (a new chain unless `chainId` names an existing one). */
  create(input: ArtifactInput): Artifact {
    const artifact = this.normalizeInput(input);
    this.conn.transaction(() => {
      if (this.exists(artifact.id)) throw new UserError(`An artifact with id "${artifact.id}" already exists.`, 'Use `update` to add a new version.');
      if (this.versionTaken(artifact.chainId, artifact.version)) {
        throw new UserError(`Chain "${artifact.chainId}" already has a version ${artifact.version}.`);
      }
      this.insert(artifact);
    });
    return artifact;
  }

  versionTaken(chainId: string, version: number): boolean {
    return this.conn.scalar('SELECT 1 FROM artifact WHERE chain_id = ? AND version = ?', [chainId, version]) !== null;
  }

  get(ref: string): Artifact | undefined {
    const byId = (id: string): Artifact | undefined => this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE id = ?`, [id])[0];
    // "ADR 57" names the imported record adr-0057, unless an artifact has that text as its id.
    const adr = adrIdFromRef(ref);
    return byId(idFromRef(ref)) ?? (adr === undefined ? undefined : byId(adr));
  }

  /**
   * What an agent's reference names: an id or URN (`get`), or else the title of one current
   * artifact as a built context shows it (a whole item's heading carries no id there; see
   * render.ts `fullBlock`). Among several with that title, the active one; when more than
   * one is active, a user error naming their ids, so the agent can pick.
   */
  find(ref: string): Artifact | undefined {
    const byRef = this.get(ref);
    if (byRef) return byRef;
    const title = titleOfReference(ref);
    if (title === '') return undefined;
    const named = this.latest().filter((a) => a.status !== 'archived' && foldText(a.title) === title);
    const active = named.filter((a) => a.status === 'active');
    const pool = active.length > 0 ? active : named;
    if (pool.length > 1) {
      const ids = pool.map((a) => a.id).sort();
      throw new UserError(`${pool.length} artifacts have the title "${oneLine(pool[0]!.title)}": ${ids.join(', ')}.`, 'Name one by its id.');
    }
    return pool[0];
  }

  /** Like get, but a missing artifact is a user error naming the reference. */
  require(ref: string): Artifact {
    const found = this.get(ref);
    if (!found) throw new UserError(`No artifact "${idFromRef(ref)}".`, 'List artifacts with `context-ledger list`.');
    return found;
  }

  latestOfChain(chainId: string): Artifact | undefined {
    return this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE chain_id = ? ORDER BY version DESC LIMIT 1`, [chainId])[0];
  }

  /** Every version of the chain `ref` belongs to, oldest first. */
  history(ref: string): Artifact[] {
    const artifact = this.require(ref);
    return this.artifactRows(`SELECT ${ARTIFACT_COLUMNS} FROM artifact WHERE chain_id = ? ORDER BY version`, [artifact.chainId]);
  }

  /**
   * Adds a new version to the chain of `ref` with `patch` applied; the old version is
   * kept. Returns the new version (or the latest, unchanged, when the patch changes nothing).
   */
  update(ref: string, patch: ArtifactPatch, options: { id?: string; updatedAt?: string } = {}): Artifact {
    const current = this.require(ref);
    const latest = this.latestOfChain(current.chainId)!;
    const merged = this.normalizeInput({
      ...withoutRecorded(latest, 'author'),
      ...patch,
      conditions: patch.conditions ? { ...latest.conditions, ...patch.conditions } : latest.conditions,
      // The author of a version pulled from a teammate's file is not the author of the next one (withoutRecorded above).
      id: options.id ?? this.versionId(latest.chainId, latest.version + 1),
      chainId: latest.chainId,
      version: latest.version + 1,
      status: latest.status,
      createdAt: latest.createdAt,
      updatedAt: options.updatedAt ?? this.conn.nowIso(),
    });
    if (sameContent(latest, merged) && merged.pinned === latest.pinned && merged.source === latest.source) return latest;
    return this.conn.transaction(() => {
      this.insert(merged);
      return merged;
    });
  }

  private versionId(chainId: string, version: number): string {
    return newVersionId(chainId, version, (id) => this.exists(id));
  }

  /** Marks the chain of `oldRef` superseded by the chain of `newRef`. */
  supersede(oldRef: string, newRef: string): { superseded: Artifact; by: Artifact } {
    const old = this.require(oldRef);
    const replacement = this.require(newRef);
    if (old.chainId === replacement.chainId) throw new UserError('An artifact cannot supersede its own chain.');
    return this.conn.transaction(() => {
      const now = this.conn.nowIso();
      this.touch(old.chainId, replacement.chainId);
      this.conn.exec("UPDATE artifact SET status = 'superseded', updated_at = ? WHERE chain_id = ? AND is_latest = 1", [now, old.chainId]);
      this.conn.exec('UPDATE artifact SET supersedes = ?, updated_at = ? WHERE chain_id = ? AND is_latest = 1', [old.chainId, now, replacement.chainId]);
      return { superseded: this.latestOfChain(old.chainId)!, by: this.latestOfChain(replacement.chainId)! };
    });
  }

  /** Creates `input` as a new chain that supersedes the chain of `oldRef`, in one step. */
  supersedeWith(oldRef: string, input: ArtifactInput): { superseded: Artifact; by: Artifact } {
    const old = this.require(oldRef);
    return this.conn.transaction(() => {
      const created = this.create({ ...input, supersedes: old.chainId });
      return this.supersede(old.id, created.id);
    });
  }

  setStatus(ref: string, status: ArtifactStatus): Artifact {
    const artifact = this.require(ref);
    return this.conn.transaction(() => {
      this.touch(artifact.chainId);
      this.conn.exec('UPDATE artifact SET status = ?, updated_at = ? WHERE chain_id = ? AND is_latest = 1', [status, this.conn.nowIso(), artifact.chainId]);
      return this.latestOfChain(artifact.chainId)!;
    });
  }

  setPinned(ref: string, pinned: boolean): Artifact {
    const artifact = this.require(ref);
    return this.conn.transaction(() => {
      this.touch(artifact.chainId);
      this.conn.exec('UPDATE artifact SET pinned = ?, updated_at = ? WHERE chain_id = ? AND is_latest = 1', [pinned ? 1 : 0, this.conn.nowIso(), artifact.chainId]);
      return this.latestOfChain(artifact.chainId)!;
    });
  }

  /** Sets recorded fields (and kept keys, when `fields.extra` is given) on the chain's latest version in place (not a new version). */
  setRecorded(ref: string, fields: RecordedFields & { extra?: Record<string, unknown> }): Artifact {
    const artifact = this.require(ref);
    const latest = this.latestOfChain(artifact.chainId)!;
    return this.conn.transaction(() => {
      this.touch(artifact.chainId);
      this.conn.exec('UPDATE artifact SET extra = ? WHERE chain_id = ? AND is_latest = 1', [JSON.stringify(joinExtra({ ...latest, ...fields })), artifact.chainId]);
      return this.latestOfChain(artifact.chainId)!;
    });
  }

  /** Hard delete: the whole chain by default, or only the one version. Returns rows removed. */
  delete(ref: string, options: { versionOnly?: boolean } = {}): number {
    const artifact = this.require(ref);
    return this.conn.transaction(() => {
      const where = options.versionOnly ? 'id = ?' : 'chain_id = ?';
      const key = options.versionOnly ? artifact.id : artifact.chainId;
      const count = Number(this.conn.scalar(`SELECT count(*) FROM artifact WHERE ${where}`, [key]));
      this.touch(artifact.chainId);
      this.conn.exec(`DELETE FROM artifact WHERE ${where}`, [key]);
      this.conn.exec('DELETE FROM feedback WHERE artifact_id NOT IN (SELECT id FROM artifact)');
      if (options.versionOnly) this.markLatest(artifact.chainId);
      return count;
    });
  }

  list(filter: ArtifactFilter = {}): Artifact[] {
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
    if (filter.sourcePrefix !== undefined) {
      where.push('substr(source, 1, ?) = ?');
      params.push(filter.sourcePrefix.length, filter.sourcePrefix);
    }
    if (filter.tag) {
      where.push('EXISTS (SELECT 1 FROM json_each(artifact.tags) WHERE lower(value) = lower(?))');
      params.push(filter.tag);
    }
    const whereText = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    // (Past a thousand, as many parameters as rows would be too many for one statement: the whole list, cut.)
    if (filter.limit !== undefined && filter.limit > 1000) return this.list({ ...filter, limit: undefined }).slice(0, Math.floor(filter.limit));
    if (filter.limit !== undefined) {
      // The first n by time: sorted by row id alone, then only those n rows read (a sort of whole rows copies every body).
      const order = this.conn.rowValues(`SELECT rowid FROM artifact${whereText} ORDER BY updated_at DESC, id LIMIT ${Math.max(0, Math.floor(filter.limit))}`, params);
      if (order.length === 0) return [];
      const rows = new Map<SqlValue, Artifact>();
      for (const values of this.conn.rowValues(`SELECT rowid, ${ARTIFACT_COLUMNS} FROM artifact WHERE rowid IN (${order.map(() => '?').join(', ')})`, order.map(([rowid]) => rowid!))) {
        rows.set(values[0]!, this.rowToArtifact(values.slice(1)));
      }
      return order.map(([rowid]) => rows.get(rowid!)!);
    }
    // SQLite sorts whole rows, bodies and all, and spills them to a temporary file past a
    // few MB (a third of the time to read 10,000 artifacts). So it sorts only row ids, and
    // the rows come unsorted and are put in that order here.
    const order = this.conn.rowValues(`SELECT rowid FROM artifact${whereText} ORDER BY updated_at DESC, id`, params);
    const byRowid = new Map<SqlValue, Artifact>();
    for (const values of this.conn.rowValues(`SELECT rowid, ${ARTIFACT_COLUMNS} FROM artifact${whereText}`, params)) {
      byRowid.set(values[0]!, this.rowToArtifact(values.slice(1)));
    }
    return order.map(([rowid]) => byRowid.get(rowid!)!);
  }

  /** The latest version of every chain, whatever its status, newest first (the list() order); kept between writes (latestList.ts). */
  latest(): readonly Artifact[] {
    return this.latestList.get();
  }

  count(): { chains: number; versions: number } {
    return {
      chains: Number(this.conn.scalar('SELECT count(*) FROM artifact WHERE is_latest = 1')),
      versions: Number(this.conn.scalar('SELECT count(*) FROM artifact')),
    };
  }

  /**
   * Imports artifacts idempotently: a new id is added; a known id whose content differs
   * from its chain's latest version becomes a new version; identical content is left alone.
   * Explicit chain/version fields (from an export) are honoured so round-trips are exact.
   */
  import(input: ArtifactInput): { outcome: ImportOutcome; artifact: Artifact } {
    const artifact = this.normalizeInput(input);
    const known = this.get(artifact.id);
    if (!known) {
      const chainTaken =
        this.conn.scalar('SELECT 1 FROM artifact WHERE chain_id = ? AND version = ?', [artifact.chainId, artifact.version]) !== null;
      if (chainTaken) {
        // Same chain position under another id: treat as a new version of that chain.
        const latest = this.latestOfChain(artifact.chainId)!;
        if (sameContent(latest, artifact) && latest.status === artifact.status) return { outcome: 'unchanged', artifact: latest };
        artifact.version = latest.version + 1;
      }
      this.conn.transaction(() => this.insert(artifact));
      return { outcome: 'added', artifact };
    }
    const latest = this.latestOfChain(known.chainId)!;
    const compareTo = known.id === artifact.id && input.version !== undefined ? known : latest;
    if (sameContent(compareTo, artifact) && compareTo.status === artifact.status && compareTo.pinned === artifact.pinned) {
      return { outcome: 'unchanged', artifact: compareTo };
    }
    if (sameContent(latest, artifact)) {
      // Only status or pin changed: those live on the latest version, not in a new one.
      const updated = this.conn.transaction(() => {
        this.touch(latest.chainId);
        this.conn.exec('UPDATE artifact SET status = ?, pinned = ?, updated_at = ? WHERE id = ?', [
          artifact.status, artifact.pinned ? 1 : 0, artifact.updatedAt, latest.id,
        ]);
        return this.get(latest.id)!;
      });
      return { outcome: 'updated', artifact: updated };
    }
    const next: Artifact = {
      ...artifact,
      id: this.versionId(latest.chainId, latest.version + 1),
      chainId: latest.chainId,
      version: latest.version + 1,
      createdAt: latest.createdAt,
      updatedAt: input.updatedAt && input.updatedAt !== known.updatedAt ? artifact.updatedAt : this.conn.nowIso(),
    };
    this.conn.transaction(() => this.insert(next));
    return { outcome: 'updated', artifact: next };
  }

  /** Imports many artifacts in one transaction; see import. */
  importMany(inputs: readonly ArtifactInput[]): ImportReport {
    const report: ImportReport = { added: [], updated: [], unchanged: [] };
    this.conn.transaction(() => {
      for (const input of inputs) {
        const { outcome, artifact } = this.import(input);
        report[outcome].push(artifact.id);
      }
    });
    return report;
  }
}

