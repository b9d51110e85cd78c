import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { COMPRESSION_LEVELS, compress, compressText, kindOfPath, taskTerms, type CompressInput } from '../../../src/core/compress';
import { TokenCounter } from '../../../src/core/tokens';
import { ROOT } from '../helpers';

const FIXTURES = path.join(ROOT, 'test/unit/compress/fixtures');
const TASK = 'Stop double bookings when the payment webhook is retried';

function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** Compares with the stored golden output; UPDATE_GOLDEN=1 rewrites it (review the diff!). */
function golden(name: string, actual: string): void {
  const file = path.join(FIXTURES, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
  }
  assert.equal(actual, fs.readFileSync(file, 'utf8'), `golden ${name} differs (UPDATE_GOLDEN=1 to accept)`);
}

const CASES: Array<{ file: string; input: Omit<CompressInput, 'text'> }> = [
  { file: 'guide.md', input: { kind: 'markdown', path: 'docs/guide.md' } },
  { file: 'webhooks.ts.txt', input: { kind: 'code', path: 'src/payments/webhooks.ts' } },
  { file: 'billing.py.txt', input: { kind: 'code', path: 'billing/invoice.py' } },
  { file: 'compose.yml', input: { kind: 'config', path: 'compose.yml' } },
];

describe('compression levels (golden outputs)', () => {
  for (const { file, input } of CASES) {
    for (const level of COMPRESSION_LEVELS) {
      test(`${file} at ${level}`, () => {
        golden(`${file}.${level}`, compressText({ ...input, text: fixture(file), query: taskTerms(TASK) }, level));
      });
    }
  }
});

describe('compression', () => {
  test('each level is smaller than the one before, and the ratio says by how much', async () => {
    const counter = await TokenCounter.load('o200k_base');
    for (const { file, input } of CASES.slice(0, 3)) {
      const text = fixture(file);
      const results = COMPRESSION_LEVELS.map((level) => compress({ ...input, text, query: taskTerms(TASK) }, level, counter));
      const [light, medium, heavy] = results;
      assert.ok(light!.tokensAfter < light!.tokensBefore, `${file}: light saves something`);
      assert.ok(medium!.tokensAfter < light!.tokensAfter, `${file}: medium < light`);
      assert.ok(heavy!.tokensAfter <= medium!.tokensAfter, `${file}: heavy <= medium`);
      for (const r of results) {
        assert.equal(r.tokensBefore, counter.count(text));
        assert.equal(r.tokensAfter, counter.count(r.text));
        assert.equal(r.ratio, Math.round((r.tokensAfter / r.tokensBefore) * 1000) / 1000);
      }
    }
  });

  test('medium keeps what the task is about and drops what it is not', () => {
    const text = fixture('guide.md');
    const about = compressText({ kind: 'markdown', text, query: taskTerms('webhook retried double booking') }, 'medium');
    assert.match(about, /a retried delivery must never create a second booking/);
    assert.doesNotMatch(about, /Café owners in Zürich/);
    const other = compressText({ kind: 'markdown', text, query: taskTerms('receipts in German for Zürich') }, 'medium');
    assert.match(other, /Café owners in Zürich asked for receipts in German/);
  });

  test('light drops comments but never text inside strings or regexes', () => {
    const code = [
      "const url = 'http://example.com/a'; // trailing",
      'const re = /\\/\\/ not a comment/g;',
      'const t = `/* kept ${x /* gone */} */`;',
      '/* block',
      '   comment */ const after = 1;',
      '',
      '',
      '',
      'const end = "#" + "//";',
    ].join('\n');
    const out = compressText({ kind: 'code', language: 'ts', text: code }, 'light');
    assert.equal(
      out,
      ["const url = 'http://example.com/a';", 'const re = /\\/\\/ not a comment/g;', 'const t = `/* kept ${x /* gone */} */`;', ' const after = 1;', '', 'const end = "#" + "//";'].join('\n'),
    );
  });

  test('the same input always gives the same output', () => {
    const text = fixture('guide.md');
    const query = taskTerms(TASK);
    for (const level of COMPRESSION_LEVELS) {
      assert.equal(compressText({ kind: 'markdown', text, query }, level), compressText({ kind: 'markdown', text, query }, level));
    }
  });

  test('non-ASCII prose: sentences in Japanese, German and emoji survive intact', () => {
    const text = '# 決済\n\n決済は予約ごとに一度だけ行われます。再送されたウェブフックは無視されます。\n\n## Über uns\n\nWir lieben Kaffee ☕️. Grüße aus Köln! 👋🏽 Das ist alles.';
    for (const level of COMPRESSION_LEVELS) {
      const out = compressText({ kind: 'markdown', text, query: taskTerms('ウェブフック Köln') }, level);
      assert.match(out, /# 決済/);
      assert.match(out, /## Über uns/);
      assert.ok(!out.includes('\uFFFD'), 'no broken characters');
      // No surrogate pair cut in half.
      assert.doesNotMatch(out, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
    assert.match(compressText({ kind: 'markdown', text, query: new Set() }, 'heavy'), /決済は予約ごとに一度だけ行われます。/);
  });

  test('huge inputs compress in bounded time without throwing', () => {
    const section = '## Part\n\nThe webhook handler retries. ' + 'Filler words about nothing much at all. '.repeat(40) + '\n\n';
    const hugeDoc = section.repeat(1500); // ~2.5 MB
    const hugeCode = 'export function f(a: number): number {\n  return a + 1;\n}\n'.repeat(40_000); // ~2 MB
    const oneLine = 'x'.repeat(3_000_000);
    const started = Date.now();
    for (const level of COMPRESSION_LEVELS) {
      assert.ok(compressText({ kind: 'markdown', text: hugeDoc, query: taskTerms('webhook') }, level).length < hugeDoc.length);
      assert.ok(compressText({ kind: 'code', language: 'ts', text: hugeCode }, level).length <= hugeCode.length);
      compressText({ kind: 'text', text: oneLine }, level);
      compressText({ kind: 'code', language: 'ts', text: oneLine }, level);
    }
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  });

  test('malformed code (unterminated strings, comments, braces) still gives an outline', () => {
    const broken = 'export function ok(a: string): void {\n  const s = "unterminated\n}\nexport class Half {\n  m(): void {\n/* never closed\nexport const z = 1;';
    for (const level of COMPRESSION_LEVELS) {
      const out = compressText({ kind: 'code', language: 'ts', text: broken }, level);
      assert.match(out, /export function ok\(a: string\): void/);
    }
  });

  test('content kinds by path', () => {
    assert.equal(kindOfPath('README.md'), 'markdown');
    assert.equal(kindOfPath('src/a.ts'), 'code');
    assert.equal(kindOfPath('deploy/k8s.yaml'), 'config');
    assert.equal(kindOfPath('Dockerfile'), 'config');
    assert.equal(kindOfPath('NOTES'), 'text');
  });
});
