import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleRequest } from '../../../src/core/assemble';
import { fingerprint, sameText } from '../../../src/core/assemble/duplicates';
import { renderExplain } from '../../../src/core/assemble/explain';
import { fixedClock, memoryStore } from '../helpers';

const DECISION = `**Context**: The session, recall and journal system had three overlapping storage layers:
raw transcripts owned by the editor, JSONL copies with context snapshots, and the enriched journal.
The recall pipeline reads the raw transcripts directly, so the copies are a dead-end write sink.

**Decision**: Remove the sessions folder entirely. Two stores remain: raw transcripts and the journal.`;
// The same decision as a second import wrote it: one line per paragraph, other case and punctuation.
const REWRAPPED = DECISION.replace(/\n(?!\n)/g, ' ').replace('**Decision**:', 'DECISION —');

const same = (a: string, b: string, titleA = 'T', titleB = 'T') => sameText(fingerprint(a), fingerprint(b), titleA, titleB);

describe('duplicate knowledge', () => {
  test('the same text re-wrapped, re-cased or re-punctuated is the same; a template shared with different content is not', () => {
    assert.ok(same(DECISION, REWRAPPED));
    const cjk = 'セッションの保存層を削除する。生の記録とジャーナルの二つだけが残る。 🚀 '.repeat(4) + DECISION;
    assert.ok(same(cjk, cjk.replace(/\n/g, '\n\n')));
    const template = (content: string) => `## Context and Problem Statement\n\n${content}\n\n## Considered Options\n\n* Option 1\n* Option 2\n\n## Decision Outcome\n\nChosen option: "Option 1", because it is simpler.`;
    assert.ok(!same(template('Policies match on the inbound listener of each data plane proxy.'), template('MeshTLS lets a mesh pick which services need mutual TLS.')));
    // One quoting the other at length is related, not the same.
    assert.ok(!same(DECISION, `${DECISION}\n\n${'A later review added more about the journal format and its enrichment passes. '.repeat(2)}Further notes on retention, locking and the import of sessions that kept growing after the first import.`));
  });

  test('short bodies are only the same with the same title; empty bodies never', () => {
    assert.ok(!same('TODO', 'TODO', 'Module: payments', 'Module: refunds'));
    assert.ok(same('TODO', 'todo.', 'Module: payments', 'module — payments'));
    assert.ok(!same('', '', 'Same', 'Same'));
    // A huge body is fingerprinted by its head and still compared.
    const huge = DECISION + ' filler words'.repeat(200_000);
    assert.ok(same(huge, huge.toUpperCase()));
  });

  test('a build keeps the more valuable of two artifacts that say the same, reports the other, and spends what it frees', async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({ id: 'dec-a', type: 'decision', title: 'Remove the sessions storage layer', body: DECISION });
    store.createArtifact({ id: 'dec-b', type: 'decision', title: 'Remove the sessions storage layer', body: REWRAPPED });
    store.createArtifact({ id: 'journal', type: 'learning', title: 'Journal import keeps enrichment', body: 'Re-importing a session keeps the enriched journal entries: only new turns are appended.' });
    // A rule says it too: the rule is kept and both decisions go.
    const request: AssembleRequest = { budget: 8000, task: { title: 'Remove the sessions storage layer from the journal', description: '' }, paths: [], log: false };
    const result = await assembleContext(store, request);
    const ids = result.items.map((i) => i.id);
    assert.equal(ids.filter((id) => id === 'dec-a' || id === 'dec-b').length, 1, JSON.stringify(ids));
    const dropped = result.excluded.find((e) => e.reason === 'duplicate');
    assert.ok(dropped && (dropped.id === 'dec-a' || dropped.id === 'dec-b'));
    assert.match(dropped.detail ?? '', /says what dec-[ab] says/);
    assert.ok(ids.includes('journal'));
    assert.equal(result.text.split('Two stores remain').length - 1, 1, 'the decision is in the text once');
    assert.match(renderExplain(result), /duplicate \(1\):/);

    const both = await assembleContext(store, { ...request, options: { dedupe: false } });
    assert.ok(both.items.some((i) => i.id === 'dec-a') && both.items.some((i) => i.id === 'dec-b'));

    store.createArtifact({ id: 'rule', type: 'constitution', title: 'Sessions storage', body: DECISION });
    const withRule = await assembleContext(store, request);
    assert.ok(withRule.items.some((i) => i.id === 'rule'));
    assert.deepEqual(withRule.excluded.filter((e) => e.reason === 'duplicate').map((e) => e.id).sort(), ['dec-a', 'dec-b']);
    assert.ok(withRule.tokensUsed <= 8000);
  });

  test('tiny budgets: a duplicate dropped from the title list frees its line and nothing goes over', async () => {
    const store = await memoryStore(fixedClock());
    for (let i = 0; i < 6; i++) store.createArtifact({ id: `copy-${i}`, type: 'learning', title: 'Remove the sessions storage layer', body: i % 2 ? DECISION : REWRAPPED });
    for (const budget of [0, 30, 60, 120, 400]) {
      const result = await assembleContext(store, { budget, task: { title: 'sessions storage layer', description: '' }, paths: [], log: false });
      assert.ok(result.tokensUsed <= budget, `${budget}: ${result.tokensUsed}`);
      assert.ok(result.items.length <= 1, `${budget}: ${result.items.map((i) => i.id).join(',')}`);
    }
  });
});
