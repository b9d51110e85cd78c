/** An artifact's own headings nest one step under its `###` in the built context, whatever level they start at. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { demoteHeadings } from '../../../src/core/assemble/render';

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
