/**
 * What a standing rule in scope is worth to the packer. A record's need follows its text match
 * closely; a rule the agent tools load for the files in play (a root CLAUDE.md section, a
 * folder's AGENTS.md) is needed far more often than the task's words say, so it is worth at
 * least what such rules were measured to be worth (`ruleWorth`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext } from '../../../src/core/assemble';
import { DEFAULT_ASSEMBLE_OPTIONS, resolveOptions } from '../../../src/core/assemble/options';
import { expectedWorth } from '../../../src/core/assemble/score';
import type { LedgerStore } from '../../../src/core/store';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const TASK = { title: 'Give the thread snapshot lifecycle one owner', description: 'Move hydration replay and resume seeding into one session object.' };
const PATHS = ['python/packages/ag-ui/agent_framework_ag_ui/_snapshot_session.py'];

/** The root rules every agent tool loads for any file: procedure that shares no word with the task. */
const ROOT_RULES: Array<[string, string, string]> = [
  ['agents-md-tdd', 'Test first', 'Write the failing test before the fix, one behaviour at a time, and run make check before you ask for review. '],
  ['agents-md-scope', 'Change scope', 'Change only what the task asks for: no drive-by refactors, no new defaults, no reformatting of untouched files. '],
];

/**
 * Twelve decision records that share some of the task's words (about 200 tokens each), the
 * root rules, and a pinned house style that takes the fixed tier's share, so the root rules
 * compete with the records on worth alone.
 */
async function ledger(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  for (let i = 0; i < 12; i++) {
    store.createArtifact({
      id: `adr-${i}`,
      type: 'adr',
      title: `ADR-01${i}: Session ${i} replay budget`,
      body: `The session replay for variant ${i}. ${`Variant ${i} weighs cost ${i * 7} against risk ${i * 3} in the quarterly review. `.repeat(10)}`,
    });
  }
  for (const [id, title, body] of ROOT_RULES) store.createArtifact({ id, type: 'convention', source: 'import:agents-md:AGENTS.md', title, body: body.repeat(2) });
  store.createArtifact({ id: 'house-style', type: 'convention', pinned: true, title: 'House style', body: `Prefer tabs in Makefiles and spaces elsewhere. ${'Keep lines under a hundred columns in every file of the repository. '.repeat(14)}` });
  return store;
}

const shownAs = (items: ReadonlyArray<{ id: string; mode: string }>, id: string): string | undefined => items.find((i) => i.id === id)?.mode;
const list = (items: ReadonlyArray<{ id: string; mode: string; score: number }>): string => items.map((i) => `${i.id} ${i.mode} ${i.score.toFixed(2)}`).join('\n');

describe('the worth of a standing rule in scope', () => {
  test('rules loaded for the file in play are given whole beside records that share a few of the task\'s words; with the floor off they lose that room', async () => {
    const store = await ledger();
    const request = { budget: 1500, now: NOW, task: TASK, paths: PATHS, log: false };
    const result = await assembleContext(store, request);
    for (const [id] of ROOT_RULES) assert.equal(shownAs(result.items, id), 'full', list(result.items));
    assert.ok(result.items.some((i) => i.id.startsWith('adr-')), 'the records still get room');
    assert.ok(result.tokensUsed <= 1500);
    // On the records' curve alone, the rules' weak text match makes them worth a hundredth of a
    // record's: the records' previews and full texts take the room.
    const off = await assembleContext(store, { ...request, options: { ruleWorth: { slope: 0 } } });
    assert.ok(ROOT_RULES.some(([id]) => shownAs(off.items, id) !== 'full'), list(off.items));
  });

  test('a record keeps the steep curve, and a strong rule keeps at least its worth there', () => {
    const options = DEFAULT_ASSEMBLE_OPTIONS;
    // A record sharing a few words: worth almost nothing; a rule in scope at the same score: about a fifth.
    assert.ok(expectedWorth(0.4, options) < 0.01);
    const rule = expectedWorth(0.4, options, true);
    assert.ok(rule > 0.15 && rule < 0.3, String(rule));
    // The best matches: the rule is never worth less than the same score would give a record.
    for (const score of [0.9, 1.2, 1.6, 2.4]) assert.ok(expectedWorth(score, options, true) >= expectedWorth(score, options));
    assert.equal(expectedWorth(2.4, options, true), expectedWorth(2.4, options));
    // Monotone in the score, and bounded by 1.
    let last = 0;
    for (let s = -1; s <= 4; s += 0.25) {
      const w = expectedWorth(s, options, true);
      assert.ok(w >= last && w <= 1);
      last = w;
    }
  });

  test('ruleWorth is checked like the other options: a bad value is refused with its name', () => {
    assert.throws(() => resolveOptions({ ruleWorth: { slope: -1 } }), /ruleWorth/);
    assert.throws(() => resolveOptions({ ruleWorth: { midpoint: Number.NaN } }), /ruleWorth/);
    assert.deepEqual(resolveOptions({ ruleWorth: { slope: 0 } }).ruleWorth, { slope: 0, midpoint: 1.4 });
  });
});
