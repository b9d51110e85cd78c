/**
 * Results that cost a parse or a process (outlines, split docs, git queries), kept per
 * file and reused while the file is unchanged. The stamp is whatever says "unchanged" to
 * the caller: a content hash, `mtime:size`, or a document version. A different stamp is
 * a miss and replaces the entry, so a changed file never serves a stale result.
 */
export class SourceCache<T> {
  private readonly entries = new Map<string, { stamp: string; value: T }>();
  hits = 0;
  misses = 0;

  constructor(private readonly limit = 5000) {}

  get(key: string, stamp: string, compute: () => T): T {
    const entry = this.entries.get(key);
    if (entry && entry.stamp === stamp) {
      this.hits++;
      // Re-insert so the map's order is least recently used first.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    this.misses++;
    const value = compute();
    this.entries.delete(key);
    this.entries.set(key, { stamp, value });
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** Drops one key (a file changed or was deleted) or, with no key, everything. */
  invalidate(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
