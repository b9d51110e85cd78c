/**
 * Path scope and the fixed tier's share, as a user of `build` sees them: what is in the
 * context for the files in play, and what always-in rules may take of the budget.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext } from '../../../src/core/assemble';
import type { LedgerStore } from '../../../src/core/store';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');

async function scopedLedger(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  // As imported from src/auth/AGENTS.md and src/auth/tokens/AGENTS.md (a folder's file applies to its subtree).
  store.createArtifact({ id: 'auth-agents', type: 'convention', scope: 'path', paths: ['src/auth/**'], title: 'src/auth/AGENTS.md', body: 'Auth module: every handler checks the session before reading the invoice.' });
  store.createArtifact({ id: 'tokens-agents', type: 'convention', scope: 'path', paths: ['src/auth/tokens/**'], title: 'src/auth/tokens/AGENTS.md', body: 'Tokens rotate hourly; never log a token or an invoice id next to it.' });
  store.createArtifact({ id: 'billing-note', type: 'learning', title: 'Invoices round half to even', body: 'Billing rounds invoice totals half to even, as the tax office does.' });
  return store;
}

describe('path scope means what agent tools mean by it', () => {
  test("working in src/billing, another folder's scoped knowledge stays out even when its words match; explain says why", async () => {
    const store = await scopedLedger();
    const result = await assembleContext(store, { budget: 4000, now: NOW, log: false, task: { title: 'Invoice totals are off by a cent' }, paths: ['src/billing/invoice.ts'] });
    assert.deepEqual(result.items.map((i) => i.id), ['billing-note']);
    const out = result.excluded.find((e) => e.id === 'auth-agents');
    assert.equal(out?.reason, 'path-mismatch');
    assert.match(out?.detail ?? '', /scoped to src\/auth\/\*\*: no file in play is there and the task does not name it/);
  });

  test('a file in the nested folder brings both scopes, the nearest first; naming the module in the task brings it in', async () => {
    const store = await scopedLedger();
    const nested = await assembleContext(store, { budget: 4000, now: NOW, log: false, task: { title: 'Invoice id leaks into the logs' }, paths: ['src/auth/tokens/rotate.ts'] });
    const scoped = nested.items.filter((i) => i.layer === 'path').map((i) => i.id);
    assert.deepEqual(scoped, ['tokens-agents', 'auth-agents']);
    assert.match(nested.items.find((i) => i.id === 'tokens-agents')!.reason, /path match src\/auth\/tokens\/\*\* ~ src\/auth\/tokens\/rotate\.ts/);
    const named = await assembleContext(store, { budget: 4000, now: NOW, log: false, task: { title: 'Follow src/auth/AGENTS.md when moving invoices' }, paths: ['src/billing/invoice.ts'] });
    assert.ok(named.items.some((i) => i.id === 'auth-agents'), 'the task names it');
    assert.ok(!named.items.some((i) => i.id === 'tokens-agents'), 'its subfolder is not named');
  });

  test("the older reading ('rank') is still there for those who ask", async () => {
    const store = await scopedLedger();
    const result = await assembleContext(store, { budget: 4000, now: NOW, log: false, task: { title: 'Invoice totals are off by a cent' }, paths: ['src/billing/invoice.ts'], options: { unmatchedPathArtifacts: 'rank' } });
    assert.notEqual(result.excluded.find((e) => e.id === 'auth-agents')?.reason, 'path-mismatch');
    assert.ok(result.items.some((i) => i.id === 'auth-agents') || result.excluded.some((e) => e.id === 'auth-agents' && e.reason === 'budget'), 'it competes');
  });
});

describe('the fixed tier keeps within its share', () => {
  test('rules unrelated to the task are all named but their full text does not push out a matching decision', async () => {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    const filler = 'Keep the public API stable across minor releases and document each change in the changelog. ';
    for (let i = 0; i < 4; i++) store.createArtifact({ id: `rule-${i}`, type: 'constitution', title: `Release rule ${i}`, body: filler.repeat(8) });
    store.createArtifact({ id: 'dec-retry', type: 'decision', title: 'Webhook retries take a row lock on the event id', body: 'Retried webhook deliveries lock webhook_event.id before booking. '.repeat(12) });
    const budget = 1000;
    const result = await assembleContext(store, { budget, now: NOW, log: false, task: { title: 'Webhook retry books twice', description: 'A retried webhook delivery books the room twice.' }, paths: [] });
    const rules = result.items.filter((i) => i.layer === 'fixed');
    assert.equal(rules.length, 4, 'every rule is at least named');
    const ruleTokens = rules.reduce((n, i) => n + i.tokens, 0);
    assert.ok(ruleTokens <= budget * 0.2, `rules took ${ruleTokens} of a ${budget * 0.2}-token share`);
    assert.equal(result.items.find((i) => i.id === 'dec-retry')?.mode, 'full');
  });

  test('a rule that is about the task still gets its full text beyond the share when room is left', async () => {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'rule-webhook', type: 'constitution', title: 'Webhook handlers are idempotent', body: 'Every webhook handler must be idempotent on the event id; a retried webhook delivery must never book twice. '.repeat(6) });
    const result = await assembleContext(store, { budget: 600, now: NOW, log: false, task: { title: 'Webhook retry books twice' }, paths: [] });
    assert.equal(result.items.find((i) => i.id === 'rule-webhook')?.mode, 'full');
  });
});
