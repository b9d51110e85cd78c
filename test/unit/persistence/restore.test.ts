import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { LedgerFile, loadSqlJs } from '../../../src/node/ledgerFile';
import { restoreBackup } from '../../../src/node/persistence/restore';
import { fixedClock, tempDir } from '../helpers';

describe('restore', () => {
  test('puts the backup back, keeps the replaced file aside, and says so', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    const ledger = await LedgerFile.open(file, { create: true });
    await ledger.write((s) => s.importArtifacts([{ id: 'one', type: 'note', title: 'One', body: '1' }]));
    await ledger.write((s) => s.importArtifacts([{ id: 'two', type: 'note', title: 'Two', body: '2' }]));
    ledger.close();
    const { aside, fromJournal } = restoreBackup(file, await loadSqlJs(), fixedClock());
    assert.equal(fromJournal, 0);
    assert.ok(aside && fs.existsSync(aside), 'the replaced file is kept');
    const restored = await LedgerFile.open(file);
    assert.deepEqual(restored.store.listArtifacts({}).map((a) => a.id), ['one']);
    restored.close();
  });

  test('without a backup it is a clear error and nothing changes', () => {
    const file = path.join(tempDir(), 'ledger.db');
    fs.writeFileSync(file, 'bytes');
    assert.throws(() => restoreBackup(file, {} as never, fixedClock()), /There is no backup/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'bytes');
  });
});
