import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { identityOf } from '../../../src/node/persistence/fileIdentity';
import { appendJournal, JOURNAL_LIMIT, NO_JOURNAL, replayJournal } from '../../../src/node/persistence/journal';
import { memoryStore, tempDir } from '../helpers';

async function journaledAdd(id: string, title: string) {
  const store = await memoryStore();
  // Creating the schema is no journal's business: start counting after it.
  store.takeJournal();
  store.createArtifact({ id, type: 'note', title, body: `${title} body` });
  const records = store.takeJournal();
  assert.ok(records, 'an add is journaled');
  store.close();
  return records;
}

describe('the journal file', () => {
  test('records appended for a database are replayed onto it, in order, non-ASCII intact', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger.db');
    fs.writeFileSync(db, 'database bytes');
    const base = identityOf(db)!;
    const journal = `${db}.journal`;
    let state = appendJournal(journal, base, NO_JOURNAL, await journaledAdd('one', 'Ein Schlüssel 🔑'));
    assert.ok(state);
    state = appendJournal(journal, base, state, await journaledAdd('two', 'Two'));
    assert.ok(state?.applies);
    const store = await memoryStore();
    assert.equal(replayJournal(journal, base, store).applies, true);
    assert.deepEqual(store.listArtifacts({}).map((a) => a.title).sort(), ['Ein Schlüssel 🔑', 'Two']);
  });

  test('a journal written for another database file is not replayed', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger.db');
    fs.writeFileSync(db, 'first');
    const journal = `${db}.journal`;
    appendJournal(journal, identityOf(db)!, NO_JOURNAL, await journaledAdd('one', 'One'));
    fs.writeFileSync(`${db}.new`, 'second, longer');
    fs.renameSync(`${db}.new`, db);
    const store = await memoryStore();
    assert.equal(replayJournal(journal, identityOf(db), store).applies, false);
    assert.equal(store.countArtifacts().chains, 0);
  });

  test('a journal at its size limit asks for a full write instead of growing', async () => {
    const db = path.join(tempDir(), 'ledger.db');
    fs.writeFileSync(db, 'x');
    const full = { identity: { ino: 1, size: JOURNAL_LIMIT, mtimeMs: 0 }, applies: true, endsWithNewline: true };
    assert.equal(appendJournal(`${db}.journal`, identityOf(db)!, full, await journaledAdd('one', 'One')), undefined);
    assert.equal(fs.existsSync(`${db}.journal`), false);
  });
});
