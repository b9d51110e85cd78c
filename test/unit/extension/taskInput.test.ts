import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { pathsInText } from '../../../src/core/assemble';
import { checkTaskPaths, describeTask, splitList } from '../../../src/extension/commands/taskInput';

test('splitList trims, drops empties and duplicates, keeps non-ASCII', () => {
  assert.deepEqual(splitList(' bug, payments ,, bug,\nrégression '), ['bug', 'payments', 'régression']);
  assert.deepEqual(splitList(''), []);
  assert.deepEqual(splitList(' , ,'), []);
});

test('describeTask puts the paths into the text, where the assembler finds them', () => {
  const text = describeTask('Webhook retries book twice.', ['src/payments/webhooks.ts', 'src/bookings/**']);
  assert.equal(text, 'Webhook retries book twice.\n\nPaths: src/payments/webhooks.ts, src/bookings/**');
  const found = pathsInText(text);
  assert.ok(found.includes('src/payments/webhooks.ts'), JSON.stringify(found));
  assert.equal(describeTask('  Only words  ', []), 'Only words');
  assert.equal(describeTask('', ['a/b.ts']), 'Paths: a/b.ts');
});

test('checkTaskPaths refuses absolute paths and paths that leave the folder', () => {
  assert.equal(checkTaskPaths(['src/a.ts', 'src/**', 'docs/café.md']), undefined);
  assert.match(checkTaskPaths(['/etc/passwd']) ?? '', /absolute/);
  assert.match(checkTaskPaths(['C:\\Users\\x']) ?? '', /absolute/);
  assert.match(checkTaskPaths(['src/../../secrets']) ?? '', /leaves the workspace/);
  assert.match(checkTaskPaths(['..\\up']) ?? '', /leaves the workspace/);
});
