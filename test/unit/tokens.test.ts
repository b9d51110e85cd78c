import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contentHash, estimateTokens, hasLongRun, TokenCounter } from '../../src/core/tokens';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { memoryStore, ROOT } from './helpers';

interface CountingEncoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
}

describe('token counts', () => {
  test('o200k_base and cl100k_base give exact, different counts', async () => {
    const o200k = await TokenCounter.load('o200k_base');
    const cl100k = await TokenCounter.load('cl100k_base');
    assert.equal(o200k.count('hello world'), 2);
    assert.equal(cl100k.count('hello world'), 2);
    const cjk = '日本語のテキストと emoji 🚀🚀';
    assert.notEqual(o200k.count(cjk), cl100k.count(cjk));
    assert.equal(o200k.count(''), 0);
  });

  test('special tokens are counted as text, not rejected', async () => {
    const counter = await TokenCounter.load('o200k_base');
    assert.ok(counter.count('before <|endoftext|> after <|im_start|>') > 5);
  });

  test('a huge unbroken run is counted quickly and never under-counted', async () => {
    const counter = await TokenCounter.load('o200k_base');
    const blob = 'QUJD'.repeat(50_000);
    const started = Date.now();
    const count = counter.count(blob);
    assert.ok(Date.now() - started < 5000, 'no quadratic blow-up');
    assert.ok(count >= 200_000 / 8, `count ${count} is plausible`);
  });

  test('counts are cached in the store keyed by content hash and tokenizer', async () => {
    const store = await memoryStore();
    const counter = await TokenCounter.load('o200k_base', store);
    const text = 'A body long enough to be cached persistently, about sixty-four characters or more.';
    const first = counter.count(text);
    const again = await TokenCounter.load('o200k_base', store);
    assert.equal(again.count(text), first);
    assert.equal(store.getTokenCount(contentHash(text), 'o200k_base'), first);
  });

  test('counts stay exact when the same texts come back, after far more text than the memo keeps', async () => {
    const counter = await TokenCounter.load('o200k_base');
    const texts = Array.from({ length: 200 }, (_, i) => `${i} ${'Ünïcode ✓ 日本 words '.repeat(3 + (i % 5))}`.repeat(1 + (i % 50) * 10));
    const first = texts.map((t) => counter.count(t));
    // Over 4 M characters of distinct text went through: the by-text memo has started over.
    assert.ok(texts.reduce((n, t) => n + t.length, 0) > 4 * 1024 * 1024);
    const fresh = await TokenCounter.load('o200k_base');
    assert.deepEqual(texts.map((t) => counter.count(t)), first);
    assert.deepEqual(texts.slice(0, 20).map((t) => fresh.count(t)), first.slice(0, 20));
  });

  test('a lazy counter answers cached counts without the tokenizer, and counts what is missing exactly', async () => {
    const store = await memoryStore();
    const loaded = await TokenCounter.load('o200k_base', store);
    const known = 'Ünïcode ✓ 日本 words counted once, by the tokenizer, and kept in the store.';
    const short = '## Rules';
    const expected = [loaded.count(known), loaded.count(short)];
    // Short texts are kept too: a later process must not need the tokenizer for a heading.
    assert.equal(store.getTokenCount(contentHash(short), 'o200k_base'), expected[1]);

    const lazy = TokenCounter.lazy('o200k_base', store);
    assert.deepEqual([lazy.count(known), lazy.count(short)], expected);
    assert.equal(lazy.isLoaded, false, 'both counts came from the store');
    const fresh = 'A text nobody counted before: 🚀 emoji, 数据库 and <|endoftext|> in it.';
    assert.equal(lazy.count(fresh), loaded.count(fresh));
    assert.equal(lazy.isLoaded, true);
    assert.equal(TokenCounter.lazy('o200k_base').count(fresh), loaded.count(fresh), 'without a store as well');
  });

  test('long unbroken runs are found exactly where /\\S{401,}/u finds them', () => {
    const pieces = ['a', 'Z', '~', '日', '🚀', '\uD800', '\uDC00', ' ', '\n', '\u00A0', '\u2009', '\u3000', '\uFEFF', '\u200B', '\u0085'];
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 400; i++) {
      const spaceEvery = 1 + random(600);
      let text = '';
      for (let j = random(900); j > 0; j--) text += random(spaceEvery) === 0 ? pieces[7 + random(8)]! : pieces[random(7)]!;
      assert.equal(hasLongRun(text), /\S{401,}/u.test(text), JSON.stringify(text.slice(0, 40)));
    }
    assert.equal(hasLongRun('🚀'.repeat(400)), false);
    assert.equal(hasLongRun('🚀'.repeat(401)), true);
    assert.equal(hasLongRun(`${'x'.repeat(400)}\u3000${'y'.repeat(400)}`), false);
  });

  test('the shipped tokenizer files (rank tables as JSON) give exactly the tokens and counts of gpt-tokenizer', () => {
    // What the extension, the CLI and the MCP server load (dist/, by `npm run build`) beside the package's own encoders.
    const texts = [
      fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'),
      fs.readFileSync(path.join(ROOT, 'sample', 'knowledge.jsonl'), 'utf8'),
      '日本語のテキストと emoji 🚀🚀, Ελληνικά, العربية, עברית, हिन्दी, 한국어 — and combining é (e\u0301)',
      'before <|endoftext|> after <|im_start|>system<|im_sep|> <|fim_prefix|>',
      '\u0000\u0001\uFFFD\uD800 lone surrogate \r\n\t  trailing   ',
      'x'.repeat(2000),
    ];
    let seed = 11;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 200; i++) {
      let text = '';
      for (let j = random(300); j > 0; j--) text += String.fromCodePoint(random(4) === 0 ? 0x20 : random(3) === 0 ? 0x3000 + random(0x6000) : 0x21 + random(0x250));
      texts.push(text);
    }
    const asText = { disallowedSpecial: new Set<string>() };
    // The extension's package keeps them (.vscodeignore is an allow-list).
    const kept = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(kept.includes('!dist/tokenizer-*.js') && kept.includes('!dist/tokenizer-*.json'), '.vscodeignore keeps the tokenizer files');
    for (const name of ['o200k_base', 'cl100k_base']) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const shipped = require(path.join(ROOT, 'dist', `tokenizer-${name}.js`)) as CountingEncoding;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const original = require(`gpt-tokenizer/encoding/${name}`) as CountingEncoding;
      for (const text of texts) {
        const what = `${name}: ${JSON.stringify(text.slice(0, 60))}`;
        assert.deepEqual(shipped.encode(text, asText), original.encode(text, asText), what);
        assert.equal(shipped.countTokens(text, asText), original.countTokens(text, asText), what);
      }
    }
  });

  test('the chars/4 estimate is there for comparison', () => {
    assert.equal(estimateTokens('12345678'), 2);
  });
});
