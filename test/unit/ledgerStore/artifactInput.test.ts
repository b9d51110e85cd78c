import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_BODY_BYTES, normalizeArtifactInput, sameContent, utf8ByteLength, validateBody } from '../../../src/core/ledgerStore/artifactInput';
import { type ArtifactInput, UserError } from '../../../src/core/model';

const NOW = '2026-03-01T10:00:00.000Z';

function normalize(input: ArtifactInput): ReturnType<typeof normalizeArtifactInput> {
  return normalizeArtifactInput(input, () => NOW, (type) => `${type}-generated`);
}

describe('artifact input', () => {
  test('UTF-8 length matches what Node encodes, for ASCII, accents, CJK and astral characters', () => {
    for (const text of ['', 'plain', 'émigré naïve', '日本語のテキスト', '🚀 launch 👩‍💻', 'a'.repeat(10_000)]) {
      assert.equal(utf8ByteLength(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text.slice(0, 20)));
    }
  });

  test('a body with NUL bytes or a lone surrogate is refused with a reason; paired surrogates are fine', () => {
    assert.throws(() => validateBody('binary\u0000data'), (e: unknown) => e instanceof UserError && /NUL bytes/.test(e.message));
    assert.throws(() => validateBody('broken \uD83D text'), (e: unknown) => e instanceof UserError && /lone surrogates/.test(e.message));
    assert.throws(() => validateBody('\uDE80 trailing half'), UserError);
    assert.doesNotThrow(() => validateBody('🚀 whole pair'));
  });

  test('defaults are filled: global scope, active, version 1, its own chain, trimmed title, hash of the body', () => {
    const a = normalize({ type: 'decision', title: '  Use sql.js  ', body: 'No native build.' });
    assert.equal(a.id, 'decision-generated');
    assert.equal(a.chainId, a.id);
    assert.equal(a.version, 1);
    assert.equal(a.scope, 'global');
    assert.equal(a.status, 'active');
    assert.equal(a.title, 'Use sql.js');
    assert.equal(a.createdAt, NOW);
    assert.equal(a.updatedAt, NOW);
    assert.deepEqual(a.conditions, { labels: [], keywords: [], paths: [] });
    assert.match(a.contentHash, /^[0-9a-f]{64}$/);
  });

  test('bad input names the field, and no id or time is asked for it', () => {
    let asked = 0;
    const bad: unknown[] = [
      null,
      'a string',
      { type: 'poem', title: 'T', body: '' },
      { type: 'note', scope: 'galaxy', title: 'T', body: '' },
      { type: 'note', title: '   ', body: '' },
      { type: 'note', title: 'T' },
      { type: 'note', title: 'T', body: '', paths: 'not-a-list' },
      { type: 'note', title: 'T', body: '', scope: 'path' },
      { type: 'note', title: 'T', body: '', scope: 'task' },
    ];
    for (const input of bad) {
      assert.throws(
        () => normalizeArtifactInput(input as ArtifactInput, () => String(++asked), () => String(++asked)),
        UserError,
        JSON.stringify(input),
      );
    }
    assert.equal(asked, 0);
    assert.throws(() => normalize({ type: 'note', title: 'T', body: '', createdAt: 'yesterday' }), /"createdAt" is not a date/);
    assert.throws(() => normalize({ id: 'has space', type: 'note', title: 'T', body: '' }), /no spaces/);
  });

  test('a body at the size limit is taken; one byte over is refused with advice', () => {
    assert.equal(normalize({ type: 'note', title: 'T', body: 'x'.repeat(MAX_BODY_BYTES) }).body.length, MAX_BODY_BYTES);
    assert.throws(() => normalize({ type: 'note', title: 'T', body: 'x'.repeat(MAX_BODY_BYTES + 1) }), /limit is 4 MB/);
  });

  test('two versions are the same content whatever their ids, times and status', () => {
    const a = normalize({ id: 'a', type: 'note', title: 'T', body: 'B', tags: ['x'] });
    const b = { ...a, id: 'b', version: 2, updatedAt: '2027-01-01T00:00:00.000Z', status: 'archived' as const };
    assert.ok(sameContent(a, b));
    assert.ok(!sameContent(a, { ...a, tags: ['y'] }));
  });
});
