/**
 * The index's delta, `<db>.delta`: the changes saved since the database file was last written
 * whole, so that a save of a few changes (a build's log row, a pull of a hundred files, an
 * `add`'s new file) writes kilobytes instead of the whole sql.js database (tens of MB at 10,000
 * artifacts). docs/storage.md, "Cost", says when a save is whole and when it is a delta.
 *
 * JSON lines. The first names the database file the delta belongs to (its inode, size and
 * time): a delta left beside a database written whole since (a kill between the two steps of a
 * whole save) names another file and is ignored. Each further line is one save: the write
 * statements it ran (`changes`), or an artifact file an `add` wrote without loading the index
 * (`file`: the file's stamp and what it holds). The file is only ever replaced whole (a new
 * temporary file, renamed over it: never written through a link) under the ledger's lock.
 *
 * Like the database, the delta is this machine's index and state, never the ledger itself:
 * losing it costs the local rows it held (build log, feedback counts) and a re-read of the
 * artifact files whose stamps it held; the files are the ledger.
 */
import * as fs from 'node:fs';
import type { SqlValue } from 'sql.js';
import type { ArtifactInput } from '../../core/model';
import type { Change, FileStamp, LedgerStore } from '../../core/store';
import { replaceFileAtomically } from '../atomicWrite';
import { type FileIdentity, readWithIdentity } from './fileIdentity';

/** A delta grows to this share of the database (and at most DELTA_MAX_BYTES) before a save folds it in. */
const DELTA_SHARE = 1 / 8;
const DELTA_MAX_BYTES = 4 * 1024 * 1024;

export interface LoadedDelta {
  identity: FileIdentity;
  /** The text read, when it belongs to the database loaded with it (a save appends to it); else undefined. */
  text: string | undefined;
}

type Line = { changes: Array<[string, unknown[]]> } | { file: { stamp: FileStamp; input: ArtifactInput } };

export function deltaFileOf(dbFile: string): string {
  return `${dbFile}.delta`;
}

export function baseOf(identity: FileIdentity): string {
  return `${identity.ino}:${identity.size}:${identity.mtimeMs}`;
}

/**
 * Which saved index a store loaded from `db` and its delta holds (LedgerFile.savedAs): what a
 * session records beside the index about its content is keyed by it.
 */
export function indexIdentity(db: FileIdentity, delta: FileIdentity | undefined): string {
  return delta ? `${baseOf(db)}+${baseOf(delta)}` : baseOf(db);
}

function header(base: FileIdentity): string {
  return `${JSON.stringify({ delta: 1, base: baseOf(base) })}\n`;
}

/** Blobs (term vectors) as base64: JSON has no bytes. */
function encodeParam(value: SqlValue): unknown {
  return value instanceof Uint8Array ? { b64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') } : value;
}

function decodeParam(value: unknown): SqlValue {
  if (value !== null && typeof value === 'object' && typeof (value as { b64?: unknown }).b64 === 'string') return new Uint8Array(Buffer.from((value as { b64: string }).b64, 'base64'));
  return value as SqlValue;
}

export function changesLine(changes: readonly Change[]): string {
  return `${JSON.stringify({ changes: changes.map(([sql, params]) => [sql, params.map(encodeParam)]) })}\n`;
}

export function fileLine(stamp: FileStamp, input: ArtifactInput): string {
  return `${JSON.stringify({ file: { stamp, input } })}\n`;
}

/**
 * Reads the delta beside `dbFile` and applies it to `store` (just loaded from the database
 * file `base`). Returns what was read (undefined: no delta), and whether every line applied:
 * when one did not (a line SQLite refuses), what came before it stays and the next save must
 * write the whole database.
 */
export function applyDelta(dbFile: string, base: FileIdentity | undefined, store: LedgerStore): { delta: LoadedDelta | undefined; whole: boolean } {
  const { bytes, identity } = readWithIdentity(deltaFileOf(dbFile));
  if (!bytes || !identity) return { delta: undefined, whole: true };
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  if (base === undefined || lines[0] !== header(base).trimEnd()) return { delta: { identity, text: undefined }, whole: true };
  for (const raw of lines.slice(1)) {
    if (raw === '') continue;
    try {
      const line = JSON.parse(raw) as Line;
      if ('changes' in line) store.replayChanges(line.changes.map(([sql, params]) => [sql, params.map(decodeParam)]));
      else applyOwnFile(store, line.file.stamp, line.file.input);
    } catch {
      // Only a kill can cut a line (and the file is replaced whole, so it cannot): what applied stays, the rest is read again from the files.
      return { delta: { identity, text: undefined }, whole: false };
    }
  }
  return { delta: { identity, text }, whole: true };
}

/**
 * An `add`'s new file, taken as the refresh would take it. Not when its name held another
 * chain's file by then (that chain lost its file: the refresh reads the folder and archives
 * it) or its chain is known: the refresh reads the file instead.
 */
function applyOwnFile(store: LedgerStore, stamp: FileStamp, input: ArtifactInput): void {
  const chainId = input.chainId ?? input.id;
  if (chainId === undefined || store.fileStamp(stamp.path) !== undefined || store.latestOfChain(chainId) !== undefined) return;
  store.transaction(() => {
    store.importArtifact(input);
    store.putFileStamp(stamp);
  });
}

/**
 * Statements that write artifact rows or file stamps cost about a millisecond each to replay at
 * 10,000 artifacts (a row and its index entries rewritten), against microseconds for a log row or
 * a feedback count, and every load replays them until a whole save: past this many, the whole
 * database is written instead (a pull of a hundred files costs one whole save, not a tenth of a
 * second on every later command). An `add`'s file line counts as its three statements.
 */
const REPLAYED_ARTIFACT_WRITES = 64;

function artifactWrites(text: string): number {
  return (text.match(/\["(?:INSERT (?:OR REPLACE )?INTO|UPDATE|DELETE FROM) artifact/g)?.length ?? 0) + 3 * (text.match(/^\{"file":/gm)?.length ?? 0);
}

/** Whether `line` may go into the delta rather than a save of the whole database of `dbSize` bytes. */
export function fitsDelta(delta: LoadedDelta | undefined, line: string, dbSize: number): boolean {
  const size = (delta?.text?.length ?? 0) + line.length;
  if (size > Math.min(DELTA_MAX_BYTES, dbSize * DELTA_SHARE)) return false;
  return artifactWrites(delta?.text ?? '') + artifactWrites(line) <= REPLAYED_ARTIFACT_WRITES;
}

/**
 * Appends `line` to the delta of the database file `base` (a delta for another file starts
 * over), written aside exclusively and renamed over it; fsynced when `durable`. The caller
 * holds the lock. Returns the new delta.
 */
export function writeDelta(dbFile: string, base: FileIdentity, delta: LoadedDelta | undefined, line: string, durable = false): LoadedDelta {
  const file = deltaFileOf(dbFile);
  const text = (delta?.text ?? header(base)) + line;
  replaceFileAtomically(file, text, { durable });
  const stat = fs.statSync(file);
  return { identity: { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs }, text };
}

/** The delta of `dbFile` as it is now, for an `add` that appends to it without loading the index. */
export function readDelta(dbFile: string): LoadedDelta | undefined {
  const { bytes, identity } = readWithIdentity(deltaFileOf(dbFile));
  return bytes && identity ? { identity, text: bytes.toString('utf8') } : undefined;
}

/** Whether `delta` belongs to the database file `base` (a delta left by a kill mid-save does not). */
export function deltaBelongsTo(delta: LoadedDelta | undefined, base: FileIdentity): boolean {
  return delta?.text !== undefined && delta.text.startsWith(header(base));
}
