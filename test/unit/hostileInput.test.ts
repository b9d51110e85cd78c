/**
 * Hostile and malformed input through the real CLI: JSONL lines that are nested too deep,
 * carry a NUL or bytes that are not UTF-8, or numbers past exact range; NUL in titles and
 * ids; a non-boolean "pinned"; a body that starts with a dash; a build that matches nothing.
 * Each is refused with a message naming what is wrong, and nothing good is lost.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { cli, jsonOf, tempDir } from './helpers';

function ledger(): { dir: string; run: (args: string[]) => ReturnType<typeof cli> } {
  const dir = tempDir('ledger-hostile-');
  assert.equal(cli(['init'], { cwd: dir }).code, 0);
  return { dir, run: (args) => cli(args, { cwd: dir }) };
}

const good = (id: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ id, type: 'learning', title: `Good ${id}`, body: `Body of ${id}.`, ...extra });

function ids(run: (args: string[]) => ReturnType<typeof cli>): string[] {
  return jsonOf<Array<{ id: string }>>(run(['list', '--format', 'json'])).map((a) => a.id).sort();
}

describe('hostile JSONL import', () => {
  test('a line nested 10,000 deep is reported; the good lines beside it import', () => {
    const { dir, run } = ledger();
    const deep = `{"id":"deep","type":"learning","title":"Deep","body":"b","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    fs.writeFileSync(path.join(dir, 'in.jsonl'), [good('before'), deep, good('after')].join('\n'));
    const started = performance.now();
    const result = run(['import', 'in.jsonl']);
    assert.ok(performance.now() - started < 2000 + 1500, 'finishes quickly (process start included)');
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /line 2: nested deeper than 64 levels/);
    assert.doesNotMatch(result.stderr, /RangeError|\n\s+at /);
    assert.deepEqual(ids(run), ['after', 'before']);
  });

  test('a NUL byte or bytes that are not UTF-8 cost only their own line', () => {
    const { dir, run } = ledger();
    const bytes = Buffer.concat([
      Buffer.from(`${good('one')}\n`),
      Buffer.from(`{"id":"nul","type":"learning","title":"N`), Buffer.from([0]), Buffer.from(`","body":"b"}\n`),
      Buffer.from(`{"id":"latin1","type":"learning","title":"Caf`), Buffer.from([0xe9]), Buffer.from(`","body":"b"}\n`),
      Buffer.from(`${good('four', { title: 'Café ünïcödé 日本' })}\n`),
    ]);
    fs.writeFileSync(path.join(dir, 'in.jsonl'), bytes);
    const result = run(['import', 'in.jsonl']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /line 2: contains a NUL byte/);
    assert.match(result.stderr, /line 3: is not UTF-8 text/);
    assert.deepEqual(ids(run), ['four', 'one']);
    assert.equal(jsonOf<{ title: string }>(run(['show', 'four', '--format', 'json'])).title, 'Café ünïcödé 日本');
  });

  test('a version past exact whole numbers is refused; later updates of good chains still work', () => {
    const { dir, run } = ledger();
    fs.writeFileSync(path.join(dir, 'in.jsonl'), [good('big', { version: 1e308 }), '{"id":"huge","type":"learning","title":"H","body":"b","version":9007199254740993}', good('ok', { version: 2 })].join('\n'));
    const result = run(['import', 'in.jsonl']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /line 1: "version" must be a whole number from 1 to 9007199254740991/);
    assert.match(result.stderr, /line 2: "version" must be a whole number/);
    assert.deepEqual(ids(run), ['ok']);
    const updated = run(['update', 'ok', '--body', 'A new body.']);
    assert.equal(updated.code, 0, updated.stderr);
  });

  test('NUL in a title is named as the title; NUL and control characters in ids are refused; pinned must be a boolean', () => {
    const { dir, run } = ledger();
    fs.writeFileSync(path.join(dir, 'in.jsonl'), [good('t', { title: 'A\u0000B' }), good('id\u0000x', { title: 'Plain', body: 'Plain.' }), good('p', { pinned: 'yes' }), good('q', { pinned: true })].join('\n'));
    const result = run(['import', 'in.jsonl']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /line 1: The title contains NUL bytes/);
    assert.match(result.stderr, /line 2: An artifact id must be non-empty and contain no spaces or control characters/);
    assert.match(result.stderr, /line 3: "pinned" must be true or false, not "yes"/);
    assert.deepEqual(ids(run), ['q']);
    assert.equal(jsonOf<{ pinned: boolean }>(run(['show', 'q', '--format', 'json'])).pinned, true);
  });
});

describe('hostile CLI arguments', () => {
  test('a --body that starts with a dash is a body, not an ambiguous flag', () => {
    const { run } = ledger();
    const added = run(['add', '--type', 'note', '--id', 'dash', '--title', 'Dash', '--body', '- first bullet\n- second']);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(jsonOf<{ body: string }>(run(['show', 'dash', '--format', 'json'])).body, '- first bullet\n- second');
    // A missing value is still reported, not swallowed: the next word is an option.
    const missing = run(['add', '--type', 'note', '--title', '--body', 'x']);
    assert.notEqual(missing.code, 0);
  });

  test('build on a full ledger where nothing matches says so and how to widen, not that the ledger is empty', () => {
    const { run } = ledger();
    assert.equal(run(['add', '--type', 'learning', '--scope', 'path', '--path', 'src/pay/**', '--title', 'Payments retry', '--body', 'Retry.']).code, 0);
    const result = run(['build', '--task-title', 'zebra quantum', '--no-log']);
    assert.equal(result.code, 0);
    assert.doesNotMatch(result.stderr, /holds no knowledge yet/);
    assert.match(result.stderr, /Nothing in the ledger matched this build \(1 artifacts? left out\).*--path.*explain/s);
  });
});
