import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleTask } from '../../../src/core/assemble';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');

async function taskSection(task: AssembleTask, budget = 2000): Promise<string> {
  const store = await memoryStore(fixedClock());
  store.createArtifact({ id: 'n1', type: 'note', title: 'Webhook retries', body: 'Retries take a lock on the event id.' });
  const result = await assembleContext(store, { budget, now: NOW, task, paths: [], log: false });
  const match = /^## Task\n\n([\s\S]*?)(?=\n\n## |\n?$)/.exec(result.text);
  assert.ok(match, `no task section in:\n${result.text}`);
  return match[1]!;
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('task brief', () => {
  test('a task with only a description shows the description once', async () => {
    const description = 'Fix the webhook retry lock so a retried event never books twice.';
    const section = await taskSection({ description });
    assert.equal(occurrences(section, description), 1, section);
    assert.equal(section, description);
  });

  test('a title and a description are each shown once, title first', async () => {
    const section = await taskSection({ title: 'Fix retries', description: 'The webhook retry lock is taken too late.', labels: ['payments'] });
    assert.equal(section, 'Fix retries\n\nThe webhook retry lock is taken too late.\n\nLabels: payments.');
  });

  test('a description that starts with the title is not preceded by the title again', async () => {
    const section = await taskSection({ title: 'Fix  the retry lock', description: 'fix the retry lock: it is taken after the booking row is read.' });
    assert.equal(occurrences(section.toLowerCase(), 'fix the retry lock'), 1, section);
  });

  test('at a tight budget a description-only task is named by its first line, cut at a character boundary', async () => {
    const description = `${'日本語の説明🚀'.repeat(40)}\nSecond line with details.`;
    const store = await memoryStore(fixedClock());
    const result = await assembleContext(store, { budget: 120, now: NOW, task: { description }, paths: [], log: false });
    assert.ok(result.text.startsWith('## Task\n\n'), result.text);
    assert.ok(!result.text.includes('Second line'), result.text);
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(result.text), 'a surrogate pair was split');
  });
});
