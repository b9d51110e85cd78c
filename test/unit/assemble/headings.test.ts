/** An artifact's own headings nest one step under its `###` in the built context, whatever level they start at. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { assembleContext, fullCostOf } from '../../../src/core/assemble';
import { demoteHeadings } from '../../../src/core/assemble/render';
import { TokenCounter } from '../../../src/core/tokens';
import { memoryStore } from '../helpers';

test('a body that starts at ### nests at #### under the item, not at ######', () => {
  assert.equal(demoteHeadings('### Setup\n\ntext\n\n#### Details\n\nmore'), '#### Setup\n\ntext\n\n##### Details\n\nmore');
});

test('a body that starts at # or ## keeps its steps below ####, capped at six', () => {
  assert.equal(demoteHeadings('# A\n## B\n### C\n#### D'), '#### A\n##### B\n###### C\n###### D');
  assert.equal(demoteHeadings('## Überblick\n### 詳細'), '#### Überblick\n##### 詳細');
});

test('fenced code, a # inside text and a body with no headings are left alone', () => {
  const body = '## Build\n\n```sh\n# not a heading\nnpm test\n```\n\nIssue #12 stays.';
  assert.equal(demoteHeadings(body), '#### Build\n\n```sh\n# not a heading\nnpm test\n```\n\nIssue #12 stays.');
  assert.equal(demoteHeadings('no headings, only #tags'), 'no headings, only #tags');
  assert.equal(demoteHeadings(''), '');
});

test("an artifact's full cost, as the sidebar counts it, is the one the assembler gives it in full (the Inspector's)", async () => {
  const store = await memoryStore();
  store.createArtifact({ id: 'a-1', type: 'adr', title: 'Use `SQLite` — one file', body: '### Context\n\nWe need one file.\n\n#### Why\n\nBackups: 数据 🚀.', tags: ['db'] });
  store.createArtifact({ id: 'a-2', type: 'constitution', title: 'Never log card numbers', body: 'Mask them: **** 4242.', tags: [] });
  const built = await assembleContext(store, { budget: 4000, now: new Date('2026-03-01T00:00:00Z'), task: { title: 'SQLite file', description: '' }, log: false });
  const counter = await TokenCounter.load('o200k_base');
  for (const id of ['a-1', 'a-2']) {
    const item = built.items.find((i) => i.id === id);
    assert.ok(item && item.mode === 'full', `${id} is in full`);
    assert.equal(fullCostOf(counter, store.getArtifact(id)!), item.tokens, id);
  }
});
