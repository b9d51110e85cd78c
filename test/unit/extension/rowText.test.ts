/**
 * Text the side bar and quick picks show in one row, which VS Code cuts at the edge: plain text
 * (no Markdown marks), prose wrapped over rows, a format's files on a line that shows whole.
 * newUser.test.ts shows the same rows in the real editor at 1,000 px.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayTitle, wrapForRows } from '../../../src/extension/artifactTreeModel';
import { filesDetail } from '../../../src/extension/interop/model';

test('displayTitle shows Markdown as the text it marks: code, bold, <b>, links', () => {
  assert.equal(displayTitle('Run `npm test` before **every** commit'), 'Run npm test before every commit');
  assert.equal(displayTitle('See [the guide](docs/guide.md) and <b>never</b> __skip__ it'), 'See the guide and never skip it');
  // A glob is not bold, and a lone mark stays.
  assert.equal(displayTitle('applies to src/**/*.ts and **/*.go'), 'applies to src/**/*.ts and **/*.go');
  assert.equal(displayTitle('a ` lone backtick'), 'a ` lone backtick');
  assert.equal(displayTitle('Räder — 日本語 `ok`'), 'Räder — 日本語 ok');
});

test('wrapForRows puts the words in rows of at most the width, and says when it left some out', () => {
  assert.deepEqual(wrapForRows('Each cron run emits a cron.run analytics event with its duration.', 32), [
    'Each cron run emits a cron.run',
    'analytics event with its',
    'duration.',
  ]);
  assert.deepEqual(wrapForRows('', 32), []);
  assert.deepEqual(wrapForRows('short', 32), ['short']);
  const long = wrapForRows('word '.repeat(100), 20, 2);
  assert.equal(long.length, 2);
  assert.ok(long[1]!.endsWith('…') && long[1]!.length <= 20, JSON.stringify(long));
  // A word longer than a row is its own row, not lost.
  assert.deepEqual(wrapForRows('a https://example.com/a/very/long/path/that/does/not/fit b', 20), ['a', 'https://example.com/a/very/long/path/that/does/not/fit', 'b']);
});

test('filesDetail names the shared folder once and as many files as fit the line', () => {
  assert.equal(filesDetail(['docs/adr/0001-a.md', 'docs/adr/0002-b.md']), 'docs/adr/: 0001-a.md, 0002-b.md');
  const cursor = ['code-comments.mdc', 'docs-snippet-workflow.mdc', 'docs-writing-style.mdc', 'taskfile.mdc', 'typescript-e2e-tests.mdc'].map((n) => `.cursor/rules/${n}`);
  const line = filesDetail(cursor);
  assert.ok(line.length <= 72, line);
  assert.match(line, /^\.cursor\/rules\/: code-comments\.mdc, docs-snippet-workflow\.mdc, .*… \(\d more\)$/);
  assert.equal(filesDetail(['AGENTS.md', 'frontend/docs/AGENTS.md']), 'AGENTS.md, frontend/docs/AGENTS.md');
  assert.equal(filesDetail(['CLAUDE.md']), 'CLAUDE.md');
  assert.equal(filesDetail([]), '');
  // One file longer than the line is still named.
  assert.match(filesDetail([`${'x'.repeat(100)}.md`, 'y.md']), /^x{100}\.md, … \(1 more\)$/);
});
