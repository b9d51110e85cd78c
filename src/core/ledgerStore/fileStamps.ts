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
  constructor(private readonly conn: Connection) {}

  all(): Map<string, FileStamp> {
    const out = new Map<string, FileStamp>();
    for (const [path, chainId, size, mtimeMs, hash] of this.conn.rowValues('SELECT path, chain_id, size, mtime_ms, hash FROM artifact_file')) {
      out.set(String(path), { path: String(path), chainId: String(chainId), size: Number(size), mtimeMs: Number(mtimeMs), hash: String(hash) });
    }
    return out;
  }

  get(path: string): FileStamp | undefined {
    const row = this.conn.rowValues('SELECT path, chain_id, size, mtime_ms, hash FROM artifact_file WHERE path = ?', [path])[0];
    return row ? { path: String(row[0]), chainId: String(row[1]), size: Number(row[2]), mtimeMs: Number(row[3]), hash: String(row[4]) } : undefined;
  }

  put(stamp: FileStamp): void {
    this.conn.writeDerived(() =>
      this.conn.exec('INSERT OR REPLACE INTO artifact_file (path, chain_id, size, mtime_ms, hash) VALUES (?, ?, ?, ?, ?)', [
        stamp.path, stamp.chainId, stamp.size, stamp.mtimeMs, stamp.hash,
      ]),
    );
  }

  remove(path: string): void {
    this.conn.writeDerived(() => this.conn.exec('DELETE FROM artifact_file WHERE path = ?', [path]));
  }
}
