import type { Connection } from './connection';
import type { Artifacts } from './artifacts';
import type { FeedbackLog } from './feedback';
import type { TermVectors, TokenCounts } from './derivedCaches';
import { JOURNAL_OPS, type JournalRecord, isJournalRecord } from './journalRecords';

/** Most new term vectors, and dictionary entries, one journal record carries. */
const JOURNAL_VECTORS = 64;
const JOURNAL_TERMS = 4096;

/**
 * Which writes since the last file write a journal can carry instead of a rewrite of the
 * whole database (`take`), and replaying journal records onto the database (`apply`).
 * Every write bumps the connection's generation; a journaled write accounts for its own,
 * so any write left unaccounted for means the file must be written whole.
 */
export class StoreJournal {
  private records: JournalRecord[] = [];
  /** Generations the journaled writes since the last `take()` account for, and the generation then. */
  private journaledGenerations = 0;
  private generationMark = 0;
  /** Kinds of journal record replayed here that this version does not know (a newer one wrote them). */
  private readonly foreignOps = new Set<string>();

  constructor(
    private readonly conn: Connection,
    private readonly artifacts: Artifacts,
    private readonly feedback: FeedbackLog,
    private readonly tokenCounts: TokenCounts,
    private readonly termVectors: TermVectors,
  ) {}

  /** Notes `record` as a write the journal can carry; `generationBefore` is the generation before it. */
  record(record: JournalRecord, generationBefore: number): void {
    this.records.push(record);
    this.journaledGenerations += this.conn.generation - generationBefore;
  }

  /**
   * The writes since the last call, as journal records, if every change since then is one
   * a journal can carry (else undefined: the database must be written whole). Starts over.
   */
  take(): JournalRecord[] | undefined {
    const changes = this.conn.generation - this.generationMark;
    const waiting = this.termVectors.unjournaledCounts();
    // The vectors of a few new bodies (after an add) go in the journal; a first build or
    // one after an import makes thousands, and the write a full one.
    const vectorsFit = waiting.vectors <= JOURNAL_VECTORS && waiting.terms <= JOURNAL_TERMS;
    const carried = changes === this.journaledGenerations && vectorsFit ? [...this.records] : undefined;
    if (carried) {
      const counts = this.tokenCounts.unjournaled();
      if (counts) carried.push(counts);
      const vectors = this.termVectors.unjournaled();
      if (vectors) carried.push(vectors);
    }
    this.records = [];
    this.journaledGenerations = 0;
    this.generationMark = this.conn.generation;
    // Counts and vectors stay pending either way: the next full write puts them in their tables.
    this.tokenCounts.markJournaled();
    this.termVectors.markJournaled();
    return carried;
  }

  /**
   * Replays journal records written by `take()` (in this or another process);
   * with `only`, just the records of those kinds.
   */
  apply(records: readonly unknown[], only?: ReadonlySet<JournalRecord['op']>): void {
    const before = this.conn.generation;
    const countsMark = this.tokenCounts.replayMark();
    const vectorsMark = this.termVectors.replayMark();
    try {
      // A record that is not what `take` writes (a damaged file) is skipped.
      this.conn.transaction(() => {
        for (const record of records) {
          if (!isJournalRecord(record)) {
            const op = (record as { op?: unknown } | null)?.op;
            if (typeof op === 'string' && !Object.hasOwn(JOURNAL_OPS, op)) this.foreignOps.add(op);
            continue;
          }
          if (only && !only.has(record.op)) continue;
          if (record.op === 'log') this.feedback.insertLogRow(record.entry);
          else if (record.op === 'artifact') {
            // Replayed once per database it was written for; a row already there (or a
            // version number taken meanwhile) means the record is not this database's.
            const a = record.artifact;
            if (!this.artifacts.exists(a.id) && !this.artifacts.versionTaken(a.chainId, a.version)) this.artifacts.insert(a);
          }
          else if (record.op === 'injected') this.feedback.incrementInjected(record.ids);
          else if (record.op === 'vectors') this.termVectors.replay(record);
          else for (const [hash, tokenizer, count] of record.counts) this.tokenCounts.putTokenCount(hash, tokenizer, count);
        }
      });
    } finally {
      // What was replayed is on disk already: not a change of this store's to journal again
      // (a migration on opening still is one, and still makes the next write a full one).
      this.generationMark += this.conn.generation - before;
      this.tokenCounts.replayed(countsMark);
      this.termVectors.replayed(vectorsMark);
    }
  }

  /**
   * Kinds of record in the replayed journal that a newer version wrote: writing the
   * database whole would drop them, so the adapter refuses to write.
   */
  get fromNewerVersion(): string[] {
    return [...this.foreignOps].sort();
  }
}
