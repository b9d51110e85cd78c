import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext } from '../../../src/core/assemble';
import { budgetBreakdown, explainArtifact, parseRemember, rememberPreview, typeChoices } from '../../../src/extension/agent/chatModel';
import { fenced } from '../../../src/extension/agent/lmToolModel';
import { memoryStore } from '../helpers';

describe('@ledger /remember: reading the message', () => {
  test('an explicit type prefix wins; a one-line message gives its first sentence as title', () => {
    const d = parseRemember('decision: Use sql.js for storage. No native build step on any platform.');
    assert.ok(!('error' in d));
    assert.equal(d.type, 'decision');
    assert.equal(d.typeGiven, true);
    assert.equal(d.title, 'Use sql.js for storage');
    assert.equal(d.body, 'Use sql.js for storage. No native build step on any platform.');
  });

  test('a multi-line message: the first line is the title, the rest the body; [type] works too', () => {
    const d = parseRemember('[module memory]\n# Payments webhook\nRetries arrive up to 5 times.\nHandlers must be idempotent.');
    assert.ok(!('error' in d));
    assert.equal(d.type, 'module_memory');
    assert.equal(d.title, 'Payments webhook');
    assert.equal(d.body, 'Retries arrive up to 5 times.\nHandlers must be idempotent.');
  });

  test('without a type, the wording suggests one and the others are offered', () => {
    const d = parseRemember('We decided to keep one ledger per workspace folder instead of one per repository.');
    assert.ok(!('error' in d));
    assert.equal(d.type, 'decision');
    assert.equal(d.typeGiven, false);
    assert.equal(d.typeGuessed, true);
    assert.ok(!typeChoices(d).includes('decision'));
    const plain = parseRemember('The staging database is refreshed on Mondays');
    assert.ok(!('error' in plain));
    assert.equal(plain.type, 'note');
    assert.equal(plain.typeGuessed, false);
    assert.match(rememberPreview(plain, fenced), /\(no type given\)/);
  });

  test('a prefix that is not a type stays part of the text; constitution is never taken from chat', () => {
    const d = parseRemember('Note to self: ask Kim about the cron job');
    assert.ok(!('error' in d));
    assert.equal(d.title, 'Note to self: ask Kim about the cron job');
    const c = parseRemember('constitution: Never deploy on Fridays');
    assert.ok(!('error' in c));
    assert.notEqual(c.type, 'constitution');
  });

  test('empty, type-only and huge messages get an actionable answer; non-ASCII titles are kept whole', () => {
    assert.match((parseRemember('   ') as { error: string }).error, /Tell me what to remember/);
    assert.match((parseRemember('learning:') as { error: string }).error, /no text after the type/);
    assert.match((parseRemember(`note: x\n${'y'.repeat(40_000)}`) as { error: string }).error, /at most 32000/);
    const long = parseRemember(`learning: ${'東'.repeat(300)}`);
    assert.ok(!('error' in long));
    assert.equal(Array.from(long.title).length, 200);
    assert.ok(long.title.endsWith('…'));
  });
});

describe('@ledger /context and /explain', () => {
  test('the breakdown counts tokens and modes per layer and shows the share of the budget', () => {
    const md = budgetBreakdown(1000, 640, 'o200k_base', [
      { layer: 'fixed', mode: 'full', tokens: 100 },
      { layer: 'global', mode: 'full', tokens: 400 },
      { layer: 'global', mode: 'preview', tokens: 100 },
      { layer: 'path', mode: 'title', tokens: 40 },
    ], { fixed: { budget: 100 }, global: { budget: 600 }, path: { budget: 200 } });
    assert.match(md, /\*\*640 of 1,000 tokens\*\* \(64%, o200k_base\), 4 items/);
    assert.match(md, /\| global \| 500 \| 600 \| 1 \| 1 \| 0 \|/);
    assert.match(md, /\| path \| 40 \| 200 \| 0 \| 0 \| 1 \|/);
    assert.doesNotMatch(md, /past its share/);
    // A layer that back-filled past its share is explained, so it does not read as over budget.
    const backfilled = budgetBreakdown(1000, 900, 'o200k_base', [{ layer: 'path', mode: 'full', tokens: 700 }], { global: { budget: 500 }, path: { budget: 200 } });
    assert.match(backfilled, /\| path \| 700 \| 200 \|/);
    assert.match(backfilled, /A layer past its share took what other layers left unused/);
    assert.equal(budgetBreakdown(500, 0, 'cl100k_base', []), '**0 of 500 tokens** (0%, cl100k_base), 0 items.\n');
  });

  test('explains why an artifact is in, and why a superseded or budget-cut one is out', async () => {
    const store = await memoryStore();
    const inA = store.createArtifact({ type: 'adr', title: 'Webhook retries are idempotent', body: 'Payment webhooks retry; dedupe by event id.' });
    const old = store.createArtifact({ type: 'decision', title: 'Use MySQL', body: 'We use MySQL.' });
    const { by } = store.supersedeWith(old.id, { type: 'decision', title: 'Use Postgres', body: 'We moved to Postgres.' });
    const big = store.createArtifact({ type: 'note', title: 'Long meeting notes', body: 'payment webhook '.repeat(3000) });
    const result = await assembleContext(store, { budget: 600, task: { title: 'Fix payment webhook retries', description: 'webhook retries double-book' } });
    assert.match(explainArtifact(result, inA), /is \*\*in\*\* the context, in full/);
    assert.match(explainArtifact(result, old), /is \*\*out\*\* of the context: it is superseded/);
    assert.ok(by.id);
    const bigWhy = explainArtifact(result, big);
    assert.match(bigWhy, /\*\*in\*\* the context, as (a preview|its title only)|\*\*out\*\* of the context: it did not fit/);
  });
});
