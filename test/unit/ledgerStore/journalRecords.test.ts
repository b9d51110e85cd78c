import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isJournalRecord } from '../../../src/core/ledgerStore/journalRecords';
import { memoryStore } from '../helpers';

describe('journal records', () => {
  test('an earlier version\'s records are replayed; a copy with its body edited is not (its hash no longer matches)', async () => {
    const artifact = (await memoryStore()).createArtifact({ id: 'n', type: 'note', title: 'Über', body: 'Retries are idempotent — 日本語' });
    const records = JSON.parse(JSON.stringify([{ op: 'artifact', artifact }, { op: 'tokens', counts: [['hash', 'o200k_base', 12]] }])) as unknown[];
    assert.ok(records.every(isJournalRecord));
    const edited = JSON.parse(JSON.stringify(records[0])) as { artifact: { body: string } };
    edited.artifact.body = 'Retries are not idempotent';
    assert.ok(!isJournalRecord(edited));
    const store = await memoryStore();
    store.applyLegacyJournal([edited, ...records]);
    assert.equal(store.getArtifact('n')?.body, artifact.body);
    assert.equal(store.getTokenCount('hash', 'o200k_base'), 12);
  });

  test('damaged, hostile or unknown records are refused', () => {
    const refused: unknown[] = [
      null,
      'op',
      [],
      { op: 'injected', ids: ['a', 1] },
      { op: 'tokens', counts: [['h', 'no-such-tokenizer', 3]] },
      { op: 'tokens', counts: [['h', 'o200k_base', -1]] },
      { op: 'vectors', firstTerm: 0, terms: ['a'], vectors: [['k', 'v', [256]]] },
      { op: 'vectors', firstTerm: -1, terms: [], vectors: [] },
      { op: 'log', entry: { at: 'now' } },
      { op: 'artifact', artifact: { id: '../../etc/passwd' } },
      { op: 'drop-table', table: 'artifact' },
      { op: '__proto__' },
    ];
    for (const record of refused) assert.ok(!isJournalRecord(record), JSON.stringify(record));
    assert.ok(isJournalRecord({ op: 'vectors', firstTerm: 0, terms: ['retry'], vectors: [['k', 'v1', [0, 255]]] }));
    assert.ok(isJournalRecord({ op: 'injected', ids: [] }));
  });
});
