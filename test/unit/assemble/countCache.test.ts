import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleRequest } from '../../../src/core/assemble';
import { tokenCounter } from '../../../src/core/assemble/cache';
import { LedgerStore } from '../../../src/core/store';
import { TokenCounter } from '../../../src/core/tokens';
import { loadSqlJs } from '../../../src/node/ledgerFile';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');

async function seeded(): Promise<LedgerStore> {
  const store = await memoryStore();
  for (let i = 0; i < 40; i++) {
    store.createArtifact({
      id: `d-${i}`,
      type: i % 3 === 0 ? 'adr' : 'learning',
      title: `Webhook retry note ${i} — 数据 ${'🚀'.repeat(i % 3)}`,
      body: `## Context\n\nThe webhook queue ${i} retries payments under a lock; timeouts ${'double '.repeat(i * 12)}bookings.\n\n- keep it idempotent`,
      tags: ['payments'],
    });
  }
  return store;
}

const request = (budget: number): AssembleRequest => ({
  budget,
  now: NOW,
  task: { title: 'Fix the webhook retry queue timeout', description: 'Payments time out under load.' },
  log: false,
});

describe('token counts kept in the ledger', () => {
  test('a build whose counts a previous build kept needs no tokenizer, and its output is the same', async () => {
    const first = await seeded();
    const built = await assembleContext(first, request(1200));
    assert.ok(built.items.some((i) => i.mode === 'full') && built.items.some((i) => i.mode !== 'full'), 'a build with full texts and previews');
    // What a later process sees: the same database, read from its bytes.
    const reopened = LedgerStore.open(await loadSqlJs(), first.export(), fixedClock());
    const again = await assembleContext(reopened, request(1200));
    assert.equal(again.text, built.text);
    assert.equal(again.tokensUsed, built.tokensUsed);
    assert.equal(tokenCounter(reopened, 'o200k_base').isLoaded, false, 'every count came from the ledger');
  });

  test('an artifact nobody counted yet is counted exactly, and the budget holds', async () => {
    const first = await seeded();
    await assembleContext(first, request(1200));
    const reopened = LedgerStore.open(await loadSqlJs(), first.export(), fixedClock());
    reopened.createArtifact({
      id: 'fresh',
      type: 'adr',
      title: 'Webhook retry queue timeout: use a lock per booking',
      body: 'Payments webhook retries take a lock per booking; the queue times out after 30 s. 日本語 🚀 <|endoftext|>',
    });
    const exact = await TokenCounter.load('o200k_base');
    for (const budget of [0, 50, 100, 1200, 4000]) {
      const result = await assembleContext(reopened, request(budget));
      assert.equal(result.tokensUsed, exact.count(result.text), `budget ${budget}: the reported count is the tokenizer's`);
      assert.ok(result.tokensUsed <= budget, `budget ${budget}: ${result.tokensUsed} tokens`);
      if (budget >= 1200) assert.ok(result.items.some((i) => i.id === 'fresh' && i.mode === 'full'), 'the new artifact is in, in full');
    }
    assert.equal(tokenCounter(reopened, 'o200k_base').isLoaded, true);
  });

  test('the kept cost of a block is used only for a block made the same way: other preview lengths or masking give the fresh output', async () => {
    const secretBody = 'Webhook queue token: ghp_0123456789abcdefABCDEF0123456789abcd, rotated monthly.';
    const seed = async (): Promise<LedgerStore> => {
      const store = await seeded();
      store.createArtifact({ id: 'secret', type: 'learning', title: 'Webhook retry secret rotation', body: secretBody, pinned: true });
      return store;
    };
    const variants: Array<AssembleRequest['options']> = [{ previewChars: 40 }, { previewChars: 400 }, { redact: false }, {}];
    const first = await seed();
    for (const options of variants) await assembleContext(first, { ...request(900), options });
    const kept = first.export();
    for (const options of variants) {
      const reopened = LedgerStore.open(await loadSqlJs(), kept, fixedClock());
      const fresh = await assembleContext(await seed(), { ...request(900), options });
      const again = await assembleContext(reopened, { ...request(900), options });
      assert.equal(again.text, fresh.text, JSON.stringify(options));
      assert.deepEqual(again.items.map((i) => [i.id, i.mode, i.tokens]), fresh.items.map((i) => [i.id, i.mode, i.tokens]));
      assert.ok(again.items.some((i) => i.id === 'secret'), 'the artifact with a secret is shown');
      if (options?.redact !== false) assert.ok(!again.text.includes('ghp_0123'), 'the secret is masked');
    }
  });
});
