/**
 * The latest list is kept between writes and patched with the chains a write names: whatever
 * the writes, it must equal a fresh read of the database, in the same order, and a write of
 * one chain must leave every other artifact's object as it was (builds keep what they derive
 * from an artifact per object).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clock } from '../../../src/core/store';
import { compareLatest } from '../../../src/core/ledgerStore/latestList';
import { memoryStore, seededRandom } from '../helpers';

/** A clock that often repeats a time, so the order by id among equal times is exercised too. */
function stutteringClock(rand: () => number): Clock {
  let time = Date.parse('2026-01-01T00:00:00.000Z');
  return { now: () => new Date((time += rand() < 0.4 ? 0 : 1000)) };
}

const IDS = ['alpha', 'beta', 'gamma', 'delta', 'épée', 'zeta', '日本', 'emoji-😀', 'x\uE000', 'x😀'];

test('after any sequence of writes, rollbacks and replays, the kept list equals a fresh read, in order', async () => {
  const rand = seededRandom(7);
  const store = await memoryStore(stutteringClock(rand));
  const pick = <T>(all: readonly T[]): T => all[Math.floor(rand() * all.length)]!;
  const live = (): string[] => store.listArtifacts().map((a) => a.id);
  for (let step = 0; step < 600; step++) {
    const ids = live();
    const op = rand();
    try {
      if (op < 0.2 || ids.length === 0) {
        const id = `${pick(IDS)}-${step}`;
        store.createArtifact({ id, type: 'note', title: `Note ${step}`, body: `Body ${step}` });
      } else if (op < 0.4) store.updateArtifact(pick(ids), { body: `Edited at ${step}` });
      else if (op < 0.48) store.setStatus(pick(ids), pick(['active', 'archived', 'superseded'] as const));
      else if (op < 0.55) store.setPinned(pick(ids), rand() < 0.5);
      else if (op < 0.6 && ids.length > 1) store.supersede(ids[0]!, ids[ids.length - 1]!);
      else if (op < 0.65) store.deleteArtifact(pick(ids), { versionOnly: rand() < 0.5 });
      else if (op < 0.72) store.importArtifact({ id: pick(ids), type: 'note', title: `Imported ${step}`, body: `Imported body ${step}` });
      else if (op < 0.8) {
        // A write that fails half-way: ROLLBACK undoes what it wrote.
        assert.throws(() =>
          store.transaction(() => {
            store.updateArtifact(pick(ids), { title: `Rolled back ${step}` });
            throw new Error('fails');
          }),
        );
      } else if (op < 0.9) store.recordFeedback(pick(ids), 'useful');
      else {
        store.logAssembly({ at: '2026-01-01T00:00:00.000Z', taskId: null, budget: 100, tokensUsed: 1, tokenizer: 'o200k_base', candidates: 1, included: [pick(ids)], degraded: [], excluded: [], layers: {}, durationMs: 1, outputHash: 'h', trigger: 'test' });
      }
    } catch (error) {
      // A write the store refuses (an archived artifact superseded, …) changes nothing.
      if (!(error instanceof Error)) throw error;
    }
    const kept = store.latestArtifacts();
    const fresh = store.listArtifacts();
    assert.deepEqual(kept, fresh, `after step ${step}`);
  }
});

test('a write of one chain keeps every other artifact object; a write of other tables keeps them all', async () => {
  const store = await memoryStore();
  for (let i = 0; i < 50; i++) store.createArtifact({ id: `note-${i}`, type: 'note', title: `Note ${i}`, body: `Body ${i}` });
  const before = store.latestArtifacts();
  store.updateArtifact('note-7', { body: 'Edited' });
  const after = store.latestArtifacts();
  assert.equal(after.length, 50);
  assert.equal(after[0]!.body, 'Edited', 'the edited one is newest, first');
  for (const a of after.slice(1)) assert.ok(before.includes(a), `${a.id} is the same object`);
  store.recordFeedback('note-3', 'useful');
  assert.equal(store.latestArtifacts(), after, 'feedback writes no artifact row: the very same list');
});

test('the order is SQLite\'s: newest first, then ids by code point (a character past U+FFFF after U+E000)', async () => {
  const store = await memoryStore({ now: () => new Date('2026-01-01T00:00:00.000Z') });
  for (const id of ['x😀', 'x\uE000', 'xa', 'x日']) store.createArtifact({ id, type: 'note', title: id, body: id });
  store.latestArtifacts();
  store.updateArtifact('xa', { body: 'again' });
  assert.deepEqual(store.latestArtifacts().map((a) => a.id), store.listArtifacts().map((a) => a.id));
  const ordered = [...store.listArtifacts()].sort(compareLatest).map((a) => a.id);
  assert.deepEqual(ordered, store.listArtifacts().map((a) => a.id));
});
