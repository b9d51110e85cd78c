import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleRequest } from '../../../src/core/assemble';
import { memoryStore } from '../helpers';

const request: AssembleRequest = {
  budget: 300,
  now: new Date('2026-03-01T00:00:00.000Z'),
  task: { title: 'Fix the webhook retry queue timeout', description: 'Payments time out under load.' },
  log: false,
  options: { reportOlderVersions: true, unmatchedPathArtifacts: 'exclude' },
};

async function ledger() {
  const store = await memoryStore();
  for (let i = 0; i < 30; i++) {
    store.createArtifact({
      id: `n-${i}`,
      type: 'learning',
      title: i % 2 ? `Webhook retry queue note ${i}` : `Unrelated gardening tip ${i}`,
      body: `${i % 2 ? 'The webhook retry queue times out' : 'Water the roses'} (note ${i}) — ${'more words '.repeat(20 + i)}`,
      ...(i % 7 === 0 ? { scope: 'path', paths: ['src/garden/**'] } : {}),
    });
  }
  store.updateArtifact('n-1', { body: 'A second version of the webhook retry queue note.' });
  store.archive('n-3');
  return store;
}

describe('the excluded list', () => {
  test('is the same list, in the same order, whether read right away or after the ledger closed', async () => {
    const store = await ledger();
    const early = await assembleContext(store, request);
    const earlyList = JSON.stringify(early.excluded);
    const late = await assembleContext(store, request);
    store.close();
    assert.equal(JSON.stringify(late.excluded), earlyList);
    assert.equal(JSON.stringify(late), JSON.stringify(early).replace(/"durationMs":[0-9.]+/, `"durationMs":${late.durationMs}`));
    const reasons = new Set(late.excluded.map((e) => e.reason));
    for (const reason of ['below-threshold', 'budget', 'archived', 'path-mismatch', 'older-version']) assert.ok(reasons.has(reason as never), `has ${reason}`);
    // Every artifact is accounted for once: shown, or left out with a reason.
    assert.equal(late.items.length + late.excluded.filter((e) => e.reason !== 'older-version').length, 30);
    assert.deepEqual(Object.keys(late).slice(0, 7), ['budget', 'tokenizer', 'tokensUsed', 'text', 'items', 'excluded', 'layers']);
  });

  test('a caller may replace it, as markStale does with a copy', async () => {
    const result = await assembleContext(await ledger(), request);
    result.excluded = result.excluded.slice(0, 2);
    assert.equal(result.excluded.length, 2);
    assert.equal({ ...result }.excluded.length, 2);
  });
});
