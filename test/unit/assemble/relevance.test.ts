import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, renderExplain, resolveOptions, type AssembleResult } from '../../../src/core/assemble';
import { expectedWorth } from '../../../src/core/assemble/score';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const FILLER = 'The team discussed this at length and agreed to revisit it in the next planning round. ';

describe('relevance ranking', () => {
  test("a file's extension names its language: a Go rule gains from one .go file in play as from several, whatever their order", async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({ id: 'go-rule', type: 'convention', title: 'Go-specific', body: 'Wrap returned errors with %w and the operation that failed.' });
    store.createArtifact({ id: 'py-rule', type: 'convention', title: 'Python-specific', body: 'Type every public function.' });
    const relevanceOf = async (paths: string[]): Promise<number> => {
      const result = await assembleContext(store, { budget: 2000, now: NOW, task: { title: 'Retry the tenant sync', description: '' }, paths, log: false });
      const item = [...result.items, ...result.excluded].find((i) => i.id === 'go-rule');
      return item && 'components' in item ? (item.components?.relevance ?? 0) : 0;
    };
    const one = await relevanceOf(['pkg/sync/tenant.go']);
    assert.ok(one > 0, 'one Go file in play: "go" is a word of the query');
    assert.equal(await relevanceOf(['pkg/sync/tenant.go', 'pkg/sync/retry.go']), one);
    assert.equal(await relevanceOf(['README.md', 'pkg/sync/tenant.go']), one, 'not only when a later path follows it');
    assert.equal(await relevanceOf(['pkg/sync/tenant.py']), 0);
  });

  test('a rare identifier named in the task title outranks generic task words repeated in long bodies', async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({ id: 'factory', type: 'adr', title: 'Factory method for ServiceContainer', body: 'Build the ServiceContainer once at startup and share it; never per call.' });
    for (let i = 0; i < 12; i++) {
      store.createArtifact({
        id: `generic-${i}`,
        type: 'note',
        title: `Server notes ${i}`,
        body: `${'Every request reaches the server; the server creates a response per request. '.repeat(6)}${FILLER.repeat(10)}`,
      });
    }
    const result = await assembleContext(store, {
      budget: 4000,
      now: NOW,
      task: { title: 'MCP server creates a new ServiceContainer per request', description: 'Each request builds a new server state.' },
      paths: [],
      log: false,
    });
    assert.equal(result.items[0]?.id, 'factory', result.items.map((i) => `${i.id} ${i.score}`).join('\n'));
  });

  test('a strong match is given in full before weak matches get previews at a tight budget', async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({
      id: 'strong',
      type: 'decision',
      title: 'Idempotent webhook retries with an event-id lock',
      body: `Webhook retries take a lock on the event id before booking. ${FILLER.repeat(12)}`,
    });
    for (let i = 0; i < 10; i++) store.createArtifact({ id: `weak-${i}`, type: 'note', title: `Meeting ${i}`, body: `One webhook was mentioned in meeting ${i}. ${FILLER.repeat(12)}` });
    const result = await assembleContext(store, {
      budget: 700,
      now: NOW,
      task: { title: 'Webhook retries book twice', description: 'Take the event-id lock before booking.' },
      paths: [],
      log: false,
    });
    const strong = result.items.find((i) => i.id === 'strong');
    assert.equal(strong?.mode, 'full', result.text);
  });

  test('with no task-scope artifacts, the task share goes to the global and path layers in proportion, not all to paths', async () => {
    const store = await memoryStore(fixedClock());
    for (let i = 0; i < 12; i++) {
      store.createArtifact({ id: `near-${i}`, type: 'module_memory', scope: 'path', paths: ['src/billing/**'], title: `Billing module part ${i}`, body: `Billing helpers, part ${i} of the module. ${FILLER.repeat(8)}` });
      store.createArtifact({ id: `match-${i}`, type: 'decision', title: `Invoice rounding rule ${i}`, body: `Invoices round half-even per line before tax (rule ${i} of the set). ${FILLER.repeat(8)}` });
    }
    const result = await assembleContext(store, {
      budget: 3000,
      now: NOW,
      task: { title: 'Invoice rounding is off by a cent', description: 'Round each invoice line half-even before tax.' },
      paths: ['src/billing/invoice.ts'],
      log: false,
      // The split alone: no floor, so every layer spends its own share.
      options: { includeTaskBrief: false, fixedShare: 0, layerFloor: 0 },
    });
    const { task, path, global } = result.layers;
    assert.equal(task.budget, 0);
    // Default split 0.5 / 0.3 / 0.2: without task entries, global gets 0.5/0.7 and path 0.2/0.7 of the rest.
    assert.ok(Math.abs(global.budget / (global.budget + path.budget) - 5 / 7) < 0.02, JSON.stringify(result.layers));
    const shown = (prefix: string) => result.items.filter((i) => i.id.startsWith(prefix) && i.mode === 'full').length;
    assert.ok(shown('match-') > shown('near-'), result.items.map((i) => `${i.id} ${i.mode}`).join('\n'));
  });

  test('a layer that back-fills past its share is explained as back-fill, not as over budget', async () => {
    const store = await memoryStore(fixedClock());
    // One short global match leaves most of the global share unused; the path layer's
    // knowledge needs far more than its own share and gets the rest by back-fill.
    store.createArtifact({ id: 'rounding-rule', type: 'decision', title: 'Invoice rounding rule', body: 'Round half-even.' });
    for (let i = 0; i < 8; i++) {
      store.createArtifact({ id: `billing-${i}`, type: 'module_memory', scope: 'path', paths: ['src/billing/**'], title: `Billing rounding part ${i}`, body: `Invoices round half-even per line (part ${i}). ${FILLER.repeat(3)}` });
    }
    const result = await assembleContext(store, {
      budget: 2000,
      now: NOW,
      task: { title: 'Invoice rounding', description: '' },
      paths: ['src/billing/invoice.ts'],
      log: false,
    });
    const { path } = result.layers;
    assert.ok(path.used > path.budget, JSON.stringify(result.layers));
    assert.ok(result.tokensUsed <= 2000);
    const line = renderExplain(result).split('\n').find((l) => l.trimStart().startsWith('path '));
    assert.equal(line, `  path         ${String(path.used).padStart(6)} / ${path.budget}  (+${path.used - path.budget}: back-filled from shares other layers left unused)`);
  });

  test("a layer's share is not spent on near-misses while a strong match of another layer is cut short", async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({ id: 'payments', type: 'module_memory', scope: 'path', paths: ['src/payments/**'], title: 'Module: src/payments', body: `Stripe webhook handling is idempotent: events are stored by id. ${FILLER.repeat(6)}` });
    store.createArtifact({ id: 'retries', type: 'learning', title: 'Stripe retries webhooks for three days', body: 'Handlers must be idempotent; store every event id before acting.' });
    for (let i = 0; i < 6; i++) store.createArtifact({ id: `weak-${i}`, type: 'decision', title: `Booking rule ${i}`, body: `Booking rule ${i} about deposits and nights. Stripe is mentioned once. ${FILLER}` });
    const request = {
      budget: 400,
      now: NOW,
      task: { title: 'Stripe webhook retries create duplicate bookings', description: '' },
      paths: ['src/payments/webhook.ts'],
      log: false,
      options: { includeTaskBrief: false, fixedShare: 0 },
    };
    const mode = (r: AssembleResult, id: string) => r.items.find((i) => i.id === id)?.mode ?? 'out';
    const floored = await assembleContext(store, request);
    const unfloored = await assembleContext(store, { ...request, options: { ...request.options, layerFloor: 0 } });
    // Without the floor the global layer's half of the budget buys weak rules in full and the
    // module note of the very file in play is cut to a title or preview.
    assert.ok(unfloored.items.some((i) => i.id.startsWith('weak-') && i.mode === 'full'), JSON.stringify(unfloored.items.map((i) => [i.id, i.mode])));
    assert.notEqual(mode(unfloored, 'payments'), 'full');
    assert.equal(mode(floored, 'payments'), 'full', JSON.stringify(floored.items.map((i) => [i.id, i.mode])));
    assert.equal(mode(floored, 'retries'), 'full');
    assert.ok(floored.tokensUsed <= 400);
    assert.throws(() => resolveOptions({ layerFloor: 2 }), /layerFloor/);
  });

  test('the budget is a ceiling, not a target: with room to spare, weak matches stay out and explain says why', async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({ id: 'retries', type: 'learning', title: 'Stripe webhook retries create duplicate bookings', body: 'Handlers must be idempotent; store every event id before acting on a Stripe webhook.' });
    store.createArtifact({ id: 'idempotency', type: 'decision', title: 'Webhook handlers are idempotent', body: 'Every Stripe webhook handler stores the event id first and skips a repeated one.' });
    // Each shares one common word with the task and nothing else: near-misses.
    for (let i = 0; i < 12; i++) store.createArtifact({ id: `weak-${i}`, type: 'note', title: `Booking note ${i}`, body: `Bookings ${i}: deposits, nights and refunds. ${FILLER.repeat(3)}` });
    const request = { budget: 8000, now: NOW, task: { title: 'Stripe webhook retries create duplicate bookings', description: 'Make the handler idempotent.' }, paths: [], log: false };
    const result = await assembleContext(store, request);
    assert.deepEqual(result.items.map((i) => i.id).sort(), ['idempotency', 'retries']);
    assert.ok(result.tokensUsed < 1000, `${result.tokensUsed} tokens of 8000`);
    const weak = result.excluded.find((e) => e.id === 'weak-0');
    assert.equal(weak?.reason, 'below-threshold');
    assert.match(renderExplain(result), /weak-0[^\n]*a weak text match \(under 5% of the best match's\): left out however much room is left/);
    // `minRelevance` 0 fills the room as before.
    const filled = await assembleContext(store, { ...request, options: { minRelevance: 0 } });
    assert.ok(filled.items.filter((i) => i.id.startsWith('weak-')).length >= 10, JSON.stringify(filled.items.map((i) => i.id)));
  });

  test('expected worth rises with the score on an absolute scale and is a valid option', () => {
    const options = resolveOptions({});
    assert.ok(expectedWorth(1.4, options) > 0.9);
    assert.ok(Math.abs(expectedWorth(1, options) - 0.5) < 1e-9);
    assert.ok(expectedWorth(0.3, options) < 0.01);
    assert.ok(expectedWorth(0.5, options) < expectedWorth(0.6, options));
    assert.throws(() => resolveOptions({ worthSlope: -1 }), /worthSlope/);
    assert.throws(() => resolveOptions({ valueExponent: 3 } as never), /Unknown assemble option "valueExponent"/);
  });
});
