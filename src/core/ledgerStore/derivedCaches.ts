import type { TokenizerName } from '../model';
import type { TermVectorStore } from '../assemble/termVectors';
import type { TokenCountCache } from '../tokens';
import type { Connection } from './connection';

/*
 * Derived data: facts about content (token counts, the search index's term vectors), not
 * ledger data. Both are kept in memory and written in one transaction before the next
 * export.
 */

/** An earlier version's journal record of new token counts (replayed by the migration). */
export type TokensJournalRecord = { op: 'tokens'; counts: Array<[string, TokenizerName, number]> };

/** An earlier version's journal record of new term-dictionary entries (numbered from `firstTerm`) and term vectors (key, version, bytes). */
export type VectorsJournalRecord = { op: 'vectors'; firstTerm: number; terms: string[]; vectors: Array<[string, string, number[]]> };

/** Token counts by content hash and tokenizer. */
export class TokenCounts implements TokenCountCache {
  private readonly counts = new Map<TokenizerName, Map<string, number>>();
  private pending: Array<[string, TokenizerName, number]> = [];

  constructor(private readonly conn: Connection) {}

  getTokenCount(hash: string, tokenizer: TokenizerName): number | undefined {
    return this.countsOf(tokenizer).get(hash);
  }

  /** Kept in memory and written to the table in one transaction before the next export. */
  putTokenCount(hash: string, tokenizer: TokenizerName, count: number): void {
    this.countsOf(tokenizer).set(hash, count);
    this.pending.push([hash, tokenizer, count]);
  }

  /**
   * A build looks up hundreds of counts: one query for the whole table costs less than a
   * query each, and one transaction for the new ones far less than a statement each at once.
   */
  private countsOf(tokenizer: TokenizerName): Map<string, number> {
    let counts = this.counts.get(tokenizer);
    if (!counts) {
      counts = new Map();
      for (const [hash, count] of this.conn.rowValues('SELECT content_hash, count FROM token_count WHERE tokenizer = ?', [tokenizer])) {
        counts.set(String(hash), Number(count));
      }
      this.counts.set(tokenizer, counts);
    }
    return counts;
  }

  /** Token counts are facts about content, not ledger data: writing them is not a generation. */
  flush(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    this.conn.writeDerived(() => {
      for (const row of pending) this.conn.exec('INSERT OR REPLACE INTO token_count (content_hash, tokenizer, count) VALUES (?, ?, ?)', row);
    });
  }

}

/*
 * The search index's term vectors (see assemble/termVectors.ts) are derived data, like
 * token counts: their tables are created by the first write that needs them, not by a
 * migration, so a version of Context Ledger that does not know them still opens the file.
 */

/** The term dictionary and the term vectors of one extraction version. */
export class TermVectors implements TermVectorStore {
  private dict: string[] | undefined;
  /** Dictionary entries up to here are in the table. */
  private dictSaved = 0;
  /** `others`: the table holds vectors of another extraction version, which the next flush deletes. */
  private cache: { version: string; vectors: Map<string, Uint8Array>; others: boolean } | undefined;
  private pending: Array<[string, string, Uint8Array]> = [];

  constructor(private readonly conn: Connection) {}

  termDictionary(): string[] {
    if (!this.dict) {
      const dict: string[] = [];
      if (this.conn.hasTable('term_dict')) for (const [id, term] of this.conn.rowValues('SELECT id, term FROM term_dict ORDER BY id')) dict[Number(id)] = String(term);
      this.dict = dict;
      this.dictSaved = dict.length;
    }
    return this.dict;
  }

  termVectors(version: string): Map<string, Uint8Array> {
    if (this.cache?.version !== version) {
      const vectors = new Map<string, Uint8Array>();
      let others = false;
      if (this.conn.hasTable('term_vector')) {
        // Every row is read either way (the table is keyed by body, not version): its version says whether a flush has any to delete.
        for (const [key, rowVersion, data] of this.conn.rowValues('SELECT key, version, data FROM term_vector')) {
          if (rowVersion !== version) others = true;
          else if (data instanceof Uint8Array) vectors.set(String(key), data);
        }
      }
      this.cache = { version, vectors, others };
    }
    return this.cache.vectors;
  }

  /** Kept in memory and written before the next export, like token counts. */
  putTermVector(key: string, version: string, data: Uint8Array): void {
    this.termVectors(version).set(key, data);
    this.pending.push([key, version, data]);
  }

  private get isPending(): boolean {
    return this.pending.length > 0 || (this.dict?.length ?? 0) > this.dictSaved;
  }

  flush(): void {
    if (!this.isPending) return;
    const dict = this.dict ?? [];
    const vectors = this.pending;
    this.conn.writeDerived(() => {
      this.conn.execRaw('CREATE TABLE IF NOT EXISTS term_dict (id INTEGER PRIMARY KEY, term TEXT NOT NULL)');
      this.conn.execRaw('CREATE TABLE IF NOT EXISTS term_vector (key TEXT PRIMARY KEY, version TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID');
      for (let id = this.dictSaved; id < dict.length; id++) this.conn.exec('INSERT OR REPLACE INTO term_dict (id, term) VALUES (?, ?)', [id, dict[id]!]);
      for (const row of vectors) this.conn.exec('INSERT OR REPLACE INTO term_vector (key, version, data) VALUES (?, ?, ?)', row);
      // Vectors of another extraction version are never read again. Deleted only when there are
      // any: the statement scans the whole table, here and again at every load that replays it
      // from the index's delta.
      const last = vectors[vectors.length - 1];
      if (last !== undefined && (this.cache?.version !== last[1] || this.cache.others)) {
        this.conn.exec('DELETE FROM term_vector WHERE version <> ?', [last[1]]);
        if (this.cache?.version === last[1]) this.cache.others = false;
      }
    });
    this.pending = [];
    this.dictSaved = dict.length;
  }

  /**
   * Adds an earlier version's journaled dictionary entries and vectors (pending, like new
   * ones, for the next save). Entries that disagree with the dictionary (another database's
   * journal) or leave a gap in it void the whole record: a vector read through the wrong
   * dictionary would index the wrong words.
   */
  replay(record: VectorsJournalRecord): void {
    const dict = this.termDictionary();
    if (record.firstTerm > dict.length) return;
    for (let i = 0; i < record.terms.length; i++) {
      const known = dict[record.firstTerm + i];
      if (known !== undefined && known !== record.terms[i]) return;
    }
    record.terms.forEach((term, i) => (dict[record.firstTerm + i] = term));
    for (const [key, version, bytes] of record.vectors) this.putTermVector(key, version, Uint8Array.from(bytes));
  }
}
