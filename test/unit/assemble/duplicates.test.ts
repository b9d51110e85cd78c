import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleRequest } from '../../../src/core/assemble';
import { DuplicateFinder, fingerprint, fingerprintOfShingles, sameText } from '../../../src/core/assemble/duplicates';
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

  test('the indexed finder picks the same first duplicate as comparing with every kept text', () => {
    // Near-duplicates at every distance from the threshold: a base text with 0..12 words changed.
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}`);
    const bases = Array.from({ length: 12 }, () => Array.from({ length: 40 + Math.floor(random() * 80) }, () => vocabulary[Math.floor(random() * vocabulary.length)]!));
    const texts: Array<{ body: string; title: string }> = [];
    for (let i = 0; i < 400; i++) {
      const words = [...bases[Math.floor(random() * bases.length)]!];
      const changes = Math.floor(random() * 13);
      for (let c = 0; c < changes; c++) words[Math.floor(random() * words.length)] = vocabulary[Math.floor(random() * vocabulary.length)]!;
      // Some short bodies, which are compared word for word with their titles.
      const short = random() < 0.1;
      texts.push({ body: short ? words.slice(0, 4).join(' ') : words.join(' '), title: short ? `T${Math.floor(random() * 2)}` : 'T' });
    }
    const finder = new DuplicateFinder<number>();
    const kept: number[] = [];
    let found = 0;
    for (let i = 0; i < texts.length; i++) {
      const print = fingerprint(texts[i]!.body);
      const expected = kept.find((k) => sameText(fingerprint(texts[k]!.body), print, texts[k]!.title, texts[i]!.title));
      assert.equal(finder.find(print, texts[i]!.title), expected, `text ${i}`);
      if (expected === undefined) {
        kept.push(i);
        finder.keep(i, print, texts[i]!.title);
      } else found++;
    }
    assert.ok(found > 50 && kept.length > 20, `${found} duplicates, ${kept.length} kept: the case must exercise both`);
  });

  test('the indexed finder finds a pair exactly at the threshold whose only meeting point is the edge of the prefix', () => {
    // A = 1..100; B = 11..100: Jaccard 90/100 = 0.9 exactly. A's prefix is its 11 smallest
    // (1..11), B's its 10 smallest (11..20): they meet in 11 alone.
    const range = (from: number, to: number) => new Set(Array.from({ length: to - from + 1 }, (_, i) => from + i));
    const a = fingerprintOfShingles(range(1, 100), '');
    const b = fingerprintOfShingles(range(11, 100), '');
    assert.ok(sameText(a, b, 'T', 'T'));
    for (const [first, second] of [[a, b], [b, a]] as const) {
      const finder = new DuplicateFinder<string>();
      finder.keep('first', first, 'T');
      assert.equal(finder.find(second, 'T'), 'first');
    }
    // One shingle fewer in common and they are not the same.
    const c = fingerprintOfShingles(range(12, 100), '');
    const finder = new DuplicateFinder<string>();
    finder.keep('a', a, 'T');
    assert.equal(finder.find(c, 'T'), undefined);
  });
});
