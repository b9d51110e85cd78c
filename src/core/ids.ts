/**
 * Artifact ids that two machines never both make: a ledger is shared through git, and two
 * people adding (or editing the same artifact) at the same second must not produce one id
 * for two different things.
 *
 * A new chain's id is `<type>-<ULID>`: 48 bits of milliseconds then 80 random bits, in
 * Crockford base32 (26 characters, no I L O U), so ids sort by creation time and a clash
 * needs two machines to draw the same 80 random bits in the same millisecond. A version's
 * id is `<chain>-v<n>-<8 random characters>`: both sides of a conflict make a "v2" of one
 * chain, and 40 random bits keep those two apart. Ids of older ledgers (timestamps,
 * `<chain>-v<n>`) are ids like any other: nothing parses them.
 */
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let text = '';
  for (const byte of bytes) text += CROCKFORD[byte & 31];
  return text;
}

/** A ULID: 10 characters of time (ms since 1970), 16 random. */
export function timeOrderedId(now: Date): string {
  let time = Math.max(0, Math.floor(now.getTime()));
  let stamp = '';
  for (let i = 0; i < 10; i++) {
    stamp = CROCKFORD[time % 32]! + stamp;
    time = Math.floor(time / 32);
  }
  return stamp + randomBase32(16);
}

/** `taken` is asked only as a safeguard: with 80 random bits a retry never happens in practice. */
export function newArtifactId(type: string, now: Date, taken: (id: string) => boolean): string {
  const prefix = type.replace(/_/g, '-');
  let id: string;
  do id = `${prefix}-${timeOrderedId(now)}`;
  while (taken(id));
  return id;
}

export function newVersionId(chainId: string, version: number, taken: (id: string) => boolean): string {
  let id: string;
  do id = `${chainId}-v${version}-${randomBase32(8)}`;
  while (taken(id));
  return id;
}
