import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext } from '../../../src/core/assemble';
import { makePreview } from '../../../src/core/assemble/preview';
import { barSegments } from '../../../src/core/inspector/model';
import { memoryStore } from '../helpers';

const NOW = new Date('2026-11-26T00:00:00.000Z');

/** The same finding three times: recorded this month, two years ago, and as a decision two years ago. */
async function ledger() {
  const store = await memoryStore();
  const body = (n: string) => `We measured PgBouncer in transaction pooling mode: prepared statements break, session mode keeps them (${n}).`;
  store.createArtifact({ id: 'research-fresh', type: 'research', title: 'PgBouncer transaction pooling and prepared statements', body: body('run on 1.23 with the staging database'), createdAt: '2026-11-20T00:00:00.000Z', updatedAt: '2026-11-20T00:00:00.000Z' });
  store.createArtifact({ id: 'research-old', type: 'research', title: 'PgBouncer transaction pooling and prepared statements (first look)', body: body('first run on 1.17 against a laptop copy'), createdAt: '2024-11-20T00:00:00.000Z', updatedAt: '2024-11-20T00:00:00.000Z' });
  store.createArtifact({ id: 'decision-old', type: 'decision', title: 'PgBouncer transaction pooling and prepared statements: use session mode', body: body('so the service keeps session mode, decided with the platform team'), createdAt: '2024-11-20T00:00:00.000Z', updatedAt: '2024-11-20T00:00:00.000Z' });
  return store;
}

describe('research findings', () => {
  test('age out faster than decisions: a two-year-old finding ranks under the same finding from this month and under a decision as old', async () => {
    const store = await ledger();
    const result = await assembleContext(store, { task: { title: 'Connection errors with PgBouncer prepared statements' }, budget: 4000, now: NOW });
    const score = (id: string) => result.items.find((i) => i.id === id)?.score ?? result.excluded.find((e) => e.id === id)?.score ?? -1;
    assert.ok(score('research-fresh') > score('research-old'), `${score('research-fresh')} vs ${score('research-old')}`);
    assert.ok(score('decision-old') > score('research-old'), `${score('decision-old')} vs ${score('research-old')}`);
    const fresh = result.items.find((i) => i.id === 'research-fresh')!;
    const old = result.items.find((i) => i.id === 'research-old') ?? result.excluded.find((e) => e.id === 'research-old');
    assert.ok(old!.components!.relevance < fresh.components.relevance * 0.25, 'two years is about eight half-lives of 90 days: little of its text match is left');
  });

  test('a research task weighs earlier findings more than a feature task does', async () => {
    const store = await ledger();
    const asResearch = await assembleContext(store, { task: { title: 'PgBouncer prepared statements', labels: ['spike'] }, budget: 4000, now: NOW });
    const asFeature = await assembleContext(store, { task: { title: 'PgBouncer prepared statements', labels: ['feature'] }, budget: 4000, now: NOW });
    const relevance = (r: typeof asResearch, id: string) => r.items.find((i) => i.id === id)!.components.relevance;
    assert.ok(relevance(asResearch, 'research-fresh') > relevance(asFeature, 'research-fresh') * 1.2);
    assert.equal(relevance(asResearch, 'decision-old'), relevance(asFeature, 'decision-old'), 'other kinds are weighed the same under either profile');
  });

  test('a preview of a finding gives its conclusions, not its method', () => {
    const body = '## Question\nCan we pool connections in transaction mode?\n\n## Method\nRan the test suite against PgBouncer 1.21 in each mode for an hour.\n\n## Conclusions\nSession mode: prepared statements survive. Transaction mode breaks them.\n';
    assert.match(makePreview(body, 80), /^Session mode: prepared statements survive/);
  });

  test("the inspector's bar shows research findings as a segment of their own, taken out of their layer", async () => {
    const store = await ledger();
    const result = await assembleContext(store, { task: { title: 'PgBouncer prepared statements' }, budget: 4000, now: NOW });
    const research = result.items.filter((i) => i.type === 'research').reduce((sum, i) => sum + i.tokens, 0);
    assert.ok(research > 0);
    const segments = barSegments(result);
    assert.equal(segments.find((s) => s.key === 'research')?.tokens, research);
    assert.equal(segments.find((s) => s.key === 'global')?.tokens, result.layers.global.used - research);
    assert.ok(Math.abs(segments.reduce((sum, s) => sum + s.share, 0) - 1) < 1e-9, 'the bar still adds up to the whole');
  });
});
