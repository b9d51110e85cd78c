/**
 * The index's file stamps are read in one piece (ledgerStore/fileStamps.ts): every stamp must
 * come back exactly as written — a name in any script, with quotes, backslashes or control
 * characters, a file time with every digit of its fraction (a time that differs in its last
 * digit is a changed file: a rounded one would re-read every file), a deleted file's stamp.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LedgerStore, type FileStamp } from '../../../src/core/store';
import { loadSqlJs } from '../../../src/node/ledgerFile';
import { memoryStore } from '../helpers';

const STAMPS: FileStamp[] = [
  { path: 'note/ünïcode — 発見 😀.md', chainId: 'c-1', size: 2214, mtimeMs: 1795920519497.9668, hash: 'a'.repeat(64) },
  { path: 'decision/quote "and" back\\slash\ttab\u0001.md', chainId: 'c-"2"', size: 0, mtimeMs: 0.1 + 0.2, hash: '' },
  { path: 'note/deleted.md', chainId: 'c-3', size: -1, mtimeMs: 0, hash: '' },
  { path: 'note/big.md', chainId: 'c-4', size: 2 ** 40, mtimeMs: 1764384000123 + 4567 / 10000, hash: 'b'.repeat(64) },
];

test('stamps read back exactly as written, from the store and from its saved bytes', async () => {
  const store = await memoryStore();
  for (const stamp of STAMPS) store.putFileStamp(stamp);
  const expected = new Map(STAMPS.map((s) => [s.path, s]));
  assert.deepEqual(store.fileStamps(), expected);
  const reopened = LedgerStore.open(await loadSqlJs(), store.export());
  assert.deepEqual(reopened.fileStamps(), expected, 'a fresh read of the table');
  reopened.removeFileStamp('note/deleted.md');
  expected.delete('note/deleted.md');
  assert.deepEqual(LedgerStore.open(await loadSqlJs(), reopened.export()).fileStamps(), expected);
  assert.deepEqual(LedgerStore.open(await loadSqlJs(), (await memoryStore()).export()).fileStamps(), new Map(), 'no stamps: an empty map');
});
