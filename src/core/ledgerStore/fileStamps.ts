import type { Connection } from './connection';

/** What the index last read of one artifact file (relative to the artifacts folder, `/`-separated). */
export interface FileStamp {
  path: string;
  chainId: string;
  size: number;
  mtimeMs: number;
  /** sha-256 of the file's text (line endings normalised). */
  hash: string;
}

/**
 * The artifact files as the index last read or wrote them (`artifact_file`). A stamp is a
 * fact about a file, not ledger data: changing one is not a generation, but it is saved with
 * the index (the session saves whenever it records one).
 */
export class FileStamps {
  /**
   * The table as read once and kept in step by `put` and `remove`: a refresh, its import and the
   * write after it each ask for every stamp (10,000 rows at 10,000 artifacts, tens of ms each), and
   * a long-running session (the hook server, the MCP server, the editor) asks at every change.
   * Read again after a rollback or a replayed delta (`Connection.untracked`).
   */
  private cache: { map: Map<string, FileStamp>; untracked: number } | undefined;

  constructor(private readonly conn: Connection) {}

  /** Every stamp by path: a copy, which the caller's own puts and removes do not change. */
  all(): Map<string, FileStamp> {
    return new Map(this.current());
  }

  /** One stamp: from the kept table when it is read, else one row (a replayed add asks before anything reads them all). */
  get(path: string): FileStamp | undefined {
    if (this.cache?.untracked === this.conn.untracked) return this.cache.map.get(path);
    const row = this.conn.rowValues('SELECT path, chain_id, size, mtime_ms, hash FROM artifact_file WHERE path = ?', [path])[0];
    return row && { path: String(row[0]), chainId: String(row[1]), size: Number(row[2]), mtimeMs: Number(row[3]), hash: String(row[4]) };
  }

  put(stamp: FileStamp): void {
    const map = this.current();
    this.conn.writeDerived(() =>
      this.conn.exec('INSERT OR REPLACE INTO artifact_file (path, chain_id, size, mtime_ms, hash) VALUES (?, ?, ?, ?, ?)', [
        stamp.path, stamp.chainId, stamp.size, stamp.mtimeMs, stamp.hash,
      ]),
    );
    map.set(stamp.path, { ...stamp });
  }

  remove(path: string): void {
    const map = this.current();
    this.conn.writeDerived(() => this.conn.exec('DELETE FROM artifact_file WHERE path = ?', [path]));
    map.delete(path);
  }

  private current(): Map<string, FileStamp> {
    if (this.cache?.untracked !== this.conn.untracked) {
      const map = new Map<string, FileStamp>();
      // One JSON text for the whole table: sql.js asks SQLite for each column of each row through its JS glue
      // (50,000 calls at 10,000 files); one string and JSON.parse cost a fraction of that.
      const table = this.conn.scalar('SELECT json_group_array(json_array(path, chain_id, size, mtime_ms, hash)) FROM artifact_file');
      for (const [path, chainId, size, mtimeMs, hash] of JSON.parse(String(table ?? '[]')) as unknown[][]) {
        map.set(String(path), { path: String(path), chainId: String(chainId), size: Number(size), mtimeMs: Number(mtimeMs), hash: String(hash) });
      }
      this.cache = { map, untracked: this.conn.untracked };
    }
    return this.cache.map;
  }
}
