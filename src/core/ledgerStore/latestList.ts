import type { Artifact } from '../model';
import type { Connection } from './connection';

/** Past this many chains written since the last read, the whole list is read again. */
const PATCH_LIMIT = 256;

/**
 * The latest version of every chain (`Artifacts.latest()`), kept between writes. Every write
 * bumps the connection's generation, and a whole re-read of 10,000 rows took 130-190 ms after
 * any of them — a logged build, a task's event, one changed file in the hook server. It also
 * gave every unchanged artifact a new object, and builds keep what they derive from an
 * artifact (its rendered blocks and their costs) per object. So a write that names its chains
 * (`touched`) costs a read of those chains' latest rows, and every other object stays; a write
 * of other tables costs nothing. A rollback or a replayed delta (`Connection.untracked`: rows
 * changed that no chain was named for), or many chains at once, reads the whole list again.
 */
export class LatestList {
  private cache: { generation: number; untracked: number; artifacts: Artifact[] } | undefined;
  private readonly stale = new Set<string>();

  constructor(
    private readonly conn: Connection,
    /** Every chain's latest row, ordered as `compareLatest` orders them. */
    private readonly readAll: () => Artifact[],
    /** The latest rows of these chains (none for a chain deleted whole), in any order. */
    private readonly readChains: (chainIds: readonly string[]) => Artifact[],
  ) {}

  /** A write to the chain's rows (call before or after the statement, within its generation). */
  touched(chainId: string): void {
    if (this.cache !== undefined) this.stale.add(chainId);
  }

  /** The list, newest first; callers must not change it (it is patched in place of a re-read). */
  get(): readonly Artifact[] {
    const { conn } = this;
    const cache = this.cache;
    if (cache !== undefined && cache.generation === conn.generation) return cache.artifacts;
    if (cache === undefined || cache.untracked !== conn.untracked || this.stale.size > PATCH_LIMIT) {
      this.stale.clear();
      this.cache = { generation: conn.generation, untracked: conn.untracked, artifacts: this.readAll() };
      return this.cache.artifacts;
    }
    const artifacts = this.stale.size === 0 ? cache.artifacts : patched(cache.artifacts, this.stale, this.readChains([...this.stale]));
    this.stale.clear();
    this.cache = { generation: conn.generation, untracked: conn.untracked, artifacts };
    return artifacts;
  }
}

/** `list` without the chains in `stale`, with `fresh` (their latest rows now) put in order. */
function patched(list: readonly Artifact[], stale: ReadonlySet<string>, fresh: Artifact[]): Artifact[] {
  const kept = list.filter((a) => !stale.has(a.chainId));
  for (const artifact of fresh.sort(compareLatest)) {
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareLatest(kept[mid]!, artifact) < 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, artifact);
  }
  return kept;
}

/** The order of `ORDER BY updated_at DESC, id`, as SQLite compares text (UTF-8 bytes, i.e. code points). */
export function compareLatest(a: Artifact, b: Artifact): number {
  return byCodePoint(b.updatedAt, a.updatedAt) || byCodePoint(a.id, b.id);
}

/**
 * Code point order. JavaScript's `<` compares UTF-16 code units, which differs from it only
 * where a surrogate (a character past U+FFFF) meets U+E000-U+FFFF: those code units are moved
 * to put the surrogates last, as their code points are.
 */
function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}
