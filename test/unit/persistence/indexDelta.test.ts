/**
 * The index's delta (`ledger.db.delta`, src/node/persistence/indexDelta.ts): a save of a few
 * changes appends them beside the database instead of writing it whole; every later load has
 * them; a delta a kill left beside a database written whole since is ignored; a damaged one
 * costs what it held and nothing more; a link at its name is replaced, never written through.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LedgerFile } from '../../../src/node/ledgerFile';
import { tempDir } from '../helpers';

async function ledgerWithOne(): Promise<{ file: string; ledger: LedgerFile }> {
  const file = path.join(tempDir('ledger-delta-'), 'ledger.db');
  const ledger = await LedgerFile.open(file, { create: true });
  await ledger.write((s) => s.createArtifact({ id: 'base', type: 'note', title: 'Base — ünïcode', body: 'In the database file.' }));
  return { file, ledger };
}

describe('the index delta', () => {
  it('small saves go to the delta and every process loads them; token counts and term vectors (blobs) survive the round trip', async () => {
    const { file, ledger } = await ledgerWithOne();
    const whole = fs.readFileSync(file);
    await ledger.write((s) => {
      s.createArtifact({ id: 'small', type: 'note', title: '日本語 🚀', body: 'Only in the delta.' });
      s.putTokenCount('hash-1', 'o200k_base', 42);
      s.putTermVector('vec-1', 'v1', new Uint8Array([0, 1, 254, 255]));
    });
    assert.deepEqual(fs.readFileSync(file), whole, 'the database file was not written');
    const other = await LedgerFile.open(file);
    assert.equal(other.store.getArtifact('small')?.title, '日本語 🚀');
    assert.equal(other.store.getTokenCount('hash-1', 'o200k_base'), 42);
    assert.deepEqual([...(other.store.termVectors('v1').get('vec-1') ?? [])], [0, 1, 254, 255]);
    // The first process sees the other's delta save (a new delta: its refresh reloads).
    await other.write((s) => s.createArtifact({ id: 'from-other', type: 'note', title: 'Other', body: 'x' }));
    assert.equal(ledger.refresh(), true);
    assert.ok(ledger.store.getArtifact('from-other'));
    other.close();
    ledger.close();
  });

  it('a delta grown past its share of the database is folded in by a whole save, and goes', async () => {
    const { file, ledger } = await ledgerWithOne();
    const body = 'x'.repeat(2000);
    let wholeSaves = 0;
    for (let i = 0; i < 40 && wholeSaves === 0; i++) {
      const before = fs.statSync(file).ino;
      await ledger.write((s) => s.createArtifact({ id: `n${i}`, type: 'note', title: `Note ${i}`, body: `${body} ${i}` }));
      if (fs.statSync(file).ino !== before) wholeSaves++;
    }
    assert.equal(wholeSaves, 1, 'the delta reached its limit and was folded in');
    assert.ok(!fs.existsSync(`${file}.delta`), 'the folded delta is removed');
    const reopened = await LedgerFile.open(file);
    assert.equal(reopened.store.countArtifacts().chains, ledger.store.countArtifacts().chains);
    reopened.close();
    ledger.close();
  });

  it('a delta left beside a database written whole since (a kill between the two steps) is ignored, then replaced', async () => {
    const { file, ledger } = await ledgerWithOne();
    await ledger.write((s) => s.createArtifact({ id: 'in-delta', type: 'note', title: 'In the delta', body: 'x' }));
    const stale = fs.readFileSync(`${file}.delta`);
    // A whole save (a migration-sized change) folds the delta in; the kill leaves the old delta beside it.
    await ledger.write((s) => s.importArtifacts(Array.from({ length: 300 }, (_, i) => ({ id: `bulk-${i}`, type: 'note' as const, title: `Bulk ${i}`, body: 'y'.repeat(500) }))));
    assert.ok(!fs.existsSync(`${file}.delta`));
    fs.writeFileSync(`${file}.delta`, stale);
    const reopened = await LedgerFile.open(file);
    assert.equal(reopened.store.countArtifacts().chains, 302, 'nothing applied twice, nothing lost');
    await reopened.write((s) => s.createArtifact({ id: 'after', type: 'note', title: 'After', body: 'z' }));
    assert.doesNotMatch(fs.readFileSync(`${file}.delta`, 'utf8'), /in-delta/, 'the stale delta was replaced, not appended to');
    const again = await LedgerFile.open(file);
    assert.equal(again.store.countArtifacts().chains, 303);
    for (const l of [ledger, reopened, again]) l.close();
  });

  it('a damaged delta keeps what applied before the damage; the next save is whole and the delta goes', async () => {
    const { file, ledger } = await ledgerWithOne();
    await ledger.write((s) => s.createArtifact({ id: 'kept', type: 'note', title: 'Kept', body: 'x' }));
    fs.appendFileSync(`${file}.delta`, '{"changes":[["INSERT INTO no_such_table VALUES (?)",[1]]]}\n{"changes": not json\n');
    const reopened = await LedgerFile.open(file);
    assert.ok(reopened.store.getArtifact('kept'), 'the line before the damage applied');
    await reopened.write((s) => s.createArtifact({ id: 'next', type: 'note', title: 'Next', body: 'y' }));
    assert.ok(!fs.existsSync(`${file}.delta`), 'saved whole');
    const again = await LedgerFile.open(file);
    assert.deepEqual(['base', 'kept', 'next'].map((id) => Boolean(again.store.getArtifact(id))), [true, true, true]);
    for (const l of [ledger, reopened, again]) l.close();
  });

  it('a symbolic or hard link at the delta name is replaced, never written through', async () => {
    const { file, ledger } = await ledgerWithOne();
    const outside = path.join(tempDir('ledger-delta-outside-'), 'notes.txt');
    fs.writeFileSync(outside, 'Someone else\'s notes — 日本語\n');
    fs.symlinkSync(outside, `${file}.delta`);
    await ledger.write((s) => s.createArtifact({ id: 'one', type: 'note', title: 'One', body: 'x' }));
    assert.ok(!fs.lstatSync(`${file}.delta`).isSymbolicLink(), 'the link was replaced by the delta');
    fs.rmSync(`${file}.delta`);
    fs.linkSync(outside, `${file}.delta`);
    await ledger.write((s) => s.createArtifact({ id: 'two', type: 'note', title: 'Two', body: 'y' }));
    assert.equal(fs.readFileSync(outside, 'utf8'), 'Someone else\'s notes — 日本語\n', 'the outside file keeps every byte');
    const reopened = await LedgerFile.open(file);
    assert.ok(reopened.store.getArtifact('two'));
    for (const l of [ledger, reopened]) l.close();
  });
});
