import type { FileActivity } from '../model';
import type { Connection } from './connection';

/** How often each file was opened, edited and saved, and when last: a signal for ranking. */
export class Activity {
  constructor(private readonly conn: Connection) {}

  record(path: string, kind: 'open' | 'edit' | 'save', at?: string): void {
    const when = at ?? this.conn.nowIso();
    const column = kind === 'open' ? 'opens' : kind === 'edit' ? 'edits' : 'saves';
    const stamp = kind === 'open' ? 'last_opened_at' : kind === 'edit' ? 'last_edited_at' : 'last_saved_at';
    this.conn.run(
      `INSERT INTO file_activity (path, ${column}, ${stamp}) VALUES (?, 1, ?)
       ON CONFLICT(path) DO UPDATE SET ${column} = ${column} + 1, ${stamp} = excluded.${stamp}`,
      [path, when],
    );
  }

  all(): FileActivity[] {
    return this.conn.rows('SELECT * FROM file_activity ORDER BY path').map((row) => ({
      path: String(row.path),
      opens: Number(row.opens),
      edits: Number(row.edits),
      saves: Number(row.saves),
      lastOpenedAt: row.last_opened_at === null ? null : String(row.last_opened_at),
      lastEditedAt: row.last_edited_at === null ? null : String(row.last_edited_at),
      lastSavedAt: row.last_saved_at === null ? null : String(row.last_saved_at),
    }));
  }
}
