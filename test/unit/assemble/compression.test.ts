import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleRequest } from '../../../src/core/assemble';
import { artifactUrn } from '../../../src/core/model';
import type { LedgerStore } from '../../../src/core/store';
import { TokenCounter } from '../../../src/core/tokens';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const TASK = { title: 'Make the payment webhook retry idempotent', description: 'Duplicate Stripe deliveries create double bookings.', labels: [] };

/** A long ADR: many sections, only some about webhooks and retries. */
function longAdr(): string {
  const filler = (topic: string, n: number) =>
    Array.from({ length: n }, (_, i) => `The ${topic} service keeps its ${['cache', 'queue', 'schema', 'index'][i % 4]} in step number ${i} of the rollout plan.`).join(' ');
  return [
    '## Context',
    filler('reporting', 14),
    '## Decision',
    'Every payment webhook is stored by its Stripe event id before it is handled, so a retried delivery is recognised and skipped.',
    filler('search', 14),
    '## Consequences',
    'Retries of the webhook become harmless; the event table needs a unique index on the event id.',
    filler('analytics', 14),
    '## Zürich office notes — 東京 too',
    filler('calendar', 14),
  ].join('\n\n');
}

async function store(): Promise<LedgerStore> {
  const s = await memoryStore(fixedClock('2026-01-01T00:00:00.000Z'));
  s.createArtifact({ id: 'adr-webhooks', type: 'adr', title: 'Store webhook events by id before handling them', body: longAdr() });
  s.createArtifact({ id: 'note-small', type: 'note', title: 'Webhook retries come from Stripe', body: 'Stripe retries a webhook for up to three days.' });
  return s;
}

function request(budget: number): AssembleRequest {
  return { budget, now: NOW, task: TASK, log: false };
}

describe('compression of artifacts before they fall back to a preview', () => {
  test('a long ADR that does not fit in full is shown compressed, with what the task is about, its URN and the ratio', async () => {
    const s = await store();
    const full = await assembleContext(s, request(8000));
    const fullTokens = full.items.find((i) => i.id === 'adr-webhooks')!.tokens;
    assert.equal(full.items.find((i) => i.id === 'adr-webhooks')!.mode, 'full');

    const budget = Math.floor(fullTokens * 0.75);
    const result = await assembleContext(s, request(budget));
    const item = result.items.find((i) => i.id === 'adr-webhooks')!;
    assert.equal(item.mode, 'preview', 'not the whole body: never reported full');
    assert.equal(item.compression?.level, 'medium');
    const ratio = item.compression?.ratio ?? 0;
    assert.ok(ratio > 0 && ratio < 0.8, `ratio ${ratio}`);
    assert.match(item.reason, /compressed \(medium\)/);
    assert.ok(item.tokens < fullTokens);
    assert.match(result.text, /compressed \(medium\) to \d+% of \d+ tokens/);
    assert.ok(result.text.includes(`(full: ${artifactUrn('adr-webhooks')})`));
    assert.match(result.text, /stored by its Stripe event id/, 'the sentence about the task is kept');
    const counter = await TokenCounter.load('o200k_base');
    assert.ok(counter.count(result.text) <= budget);
    assert.equal(result.tokensUsed, counter.count(result.text));
    // The other artifact still came in full: compression only used what was left over.
    assert.equal(result.items.find((i) => i.id === 'note-small')?.mode, 'full');
  });

  test('too little room left: a preview as before; the same inputs give the same bytes', async () => {
    const s = await store();
    const tight = await assembleContext(s, request(140));
    const item = tight.items.find((i) => i.id === 'adr-webhooks');
    assert.ok(!item || item.compression === undefined, 'no room for a compression');
    const again = await assembleContext(await store(), request(900));
    const once = await assembleContext(await store(), request(900));
    assert.equal(again.text, once.text);
  });

  test('secrets stay masked in the compressed text, and are counted', async () => {
    const s = await memoryStore(fixedClock('2026-01-01T00:00:00.000Z'));
    const body = `${longAdr()}\n\nThe webhook retry handler signs with sk_live_${'a1B2c3D4e5F6g7H8i9J0k1L2'} and checks every Stripe event id.`;
    s.createArtifact({ id: 'adr-secret', type: 'adr', title: 'Webhook retry handler', body });
    const full = await assembleContext(s, request(8000));
    const budget = Math.floor(full.items[0]!.tokens * 0.75);
    const result = await assembleContext(s, request(budget));
    assert.equal(result.items[0]?.compression?.level !== undefined, true);
    assert.doesNotMatch(result.text, /sk_live_a1B2/);
    assert.ok(result.redactions.count >= 1);
  });
});
