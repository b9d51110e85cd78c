import type { Feedback, TokenizerName } from '../model';
import { type Connection, parseJson } from './connection';

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
 * Logged builds the assembly log keeps: the newest 50. Its one reader, the Context
 * Inspector's history, shows these 50; feedback and injection counts live in their own
 * table, keyed by artifact, so nothing else needs an older row. A row is 15–35 kB (what
 * was in, cut and left out), and sql.js holds the whole database in memory and writes it
 * whole: a log kept forever grew every save by megabytes a day of builds.
 */
export const ASSEMBLY_LOG_KEPT = 50;

/** An earlier version's journal records of a logged build: its log row and the injection counts (replayed by the migration). */
export type BuildJournalRecord = { op: 'log'; entry: AssemblyLogEntry } | { op: 'injected'; ids: string[] };

/**
 * What came of each build: how often each artifact was injected and judged useful or not
 * (feedback), and the assembly log of the newest logged builds (ASSEMBLY_LOG_KEPT).
 */
export class FeedbackLog {
  constructor(private readonly conn: Connection) {}

  /** Counts a verdict on the artifact `artifactId` (which must exist). */
  record(artifactId: string, verdict: 'useful' | 'not_useful'): Feedback {
    this.conn.run(
      `INSERT INTO feedback (artifact_id, ${verdict}) VALUES (?, 1)
       ON CONFLICT(artifact_id) DO UPDATE SET ${verdict} = ${verdict} + 1`,
      [artifactId],
    );
    return this.feedbackFor(artifactId);
  }

  recordInjected(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.incrementInjected(ids);
  }

  incrementInjected(ids: readonly string[]): void {
    this.conn.transaction(() => {
      for (const id of ids) {
        this.conn.exec(
          'INSERT INTO feedback (artifact_id, times_injected) VALUES (?, 1) ON CONFLICT(artifact_id) DO UPDATE SET times_injected = times_injected + 1',
          [id],
        );
      }
    });
  }

  feedbackFor(id: string): Feedback {
    const row = this.conn.rows('SELECT * FROM feedback WHERE artifact_id = ?', [id])[0];
    return {
      artifactId: id,
      timesInjected: Number(row?.times_injected ?? 0),
      useful: Number(row?.useful ?? 0),
      notUseful: Number(row?.not_useful ?? 0),
    };
  }

  allFeedback(): Map<string, Feedback> {
    const map = new Map<string, Feedback>();
    for (const row of this.conn.rows('SELECT * FROM feedback')) {
      map.set(String(row.artifact_id), {
        artifactId: String(row.artifact_id),
        timesInjected: Number(row.times_injected),
        useful: Number(row.useful),
        notUseful: Number(row.not_useful),
      });
    }
    return map;
  }

  logAssembly(entry: AssemblyLogEntry): number {
    return this.conn.transaction(() => this.insertLogRow(entry));
  }

  /**
   * Inserts the log row and drops those more than ASSEMBLY_LOG_KEPT ids older, in one
   * statement on the primary key: ids only grow (AUTOINCREMENT, never reused), so the
   * newest rows are the highest ids. Replaying an earlier version's journal does the same.
   */
  insertLogRow(entry: AssemblyLogEntry): number {
    this.conn.exec(
      `INSERT INTO assembly_log (at, task_id, budget, tokens_used, tokenizer, candidates, included, degraded, excluded, layers, duration_ms, output_hash, trigger)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      [
        entry.at, entry.taskId, entry.budget, entry.tokensUsed, entry.tokenizer, entry.candidates, JSON.stringify(entry.included),
        JSON.stringify(entry.degraded), JSON.stringify(entry.excluded), JSON.stringify(entry.layers), entry.durationMs,
        entry.outputHash, entry.trigger,
      ],
    );
    const id = Number(this.conn.scalar('SELECT last_insert_rowid()'));
    this.conn.exec('DELETE FROM assembly_log WHERE id <= ?', [id - ASSEMBLY_LOG_KEPT]);
    return id;
  }

  recentAssemblies(limit = ASSEMBLY_LOG_KEPT): AssemblyLogRow[] {
    return this.conn.rows('SELECT * FROM assembly_log ORDER BY id DESC LIMIT ?', [limit]).map((row) => ({
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
