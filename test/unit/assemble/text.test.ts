import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { terms } from '../../../src/core/assemble/text';

const SENTENCE = 'The ServiceContainer retries ADR-0042 webhooks; HTTPServer 検索 and the émigré\u{1F600}cache';
const EXPECTED = ['servic', 'contain', 'servicecontain', 'retri', 'adr', '42', 'webhook', 'http', 'server', 'httpserver', '検', '索', 'émigré', 'cach'];

describe('search terms', () => {
  test('camelCase humps, stop words, numbers, CJK and astral characters', () => {
    assert.deepEqual(terms(SENTENCE), EXPECTED);
  });

  test('words whose hashes collide stay apart, and a memo that starts over gives the same terms', () => {
    // "Aa" and "BB" have the same 31-multiplier hash.
    assert.deepEqual(terms('Aa BB Aa BB aa bb'), ['aa', 'bb', 'aa', 'bb', 'aa', 'bb']);
    // Far more distinct words than the word memo holds, so it fills and starts over.
    const many = Array.from({ length: 70_000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    const all = terms(many);
    assert.equal(all.length, 70_000);
    assert.equal(all[12_345], `w${(12_345).toString(36)}x`);
    assert.deepEqual(terms(SENTENCE), EXPECTED);
    assert.deepEqual(terms('Aa BB'), ['aa', 'bb']);
  });
});
