import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { removeDeadWritersFiles, replaceFile } from '../../../src/node/persistence/atomicReplace';
import { tempDir } from '../helpers';

describe('atomic replace', () => {
  test('the new bytes replace the file; the old ones become the backup; nothing else is left', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    fs.writeFileSync(file, 'old — ü');
    let replaced = 0;
    const result = replaceFile(file, `${file}.bak`, Buffer.from('new'), () => replaced++);
    assert.equal(result.backedUp, true);
    assert.equal(replaced, 1);
    assert.equal(fs.readFileSync(file, 'utf8'), 'new');
    assert.equal(fs.readFileSync(`${file}.bak`, 'utf8'), 'old — ü');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['ledger.db', 'ledger.db.bak']);
  });

  test('a first write has nothing to back up', () => {
    const file = path.join(tempDir(), 'ledger.db');
    assert.equal(replaceFile(file, `${file}.bak`, Buffer.from('first'), () => undefined).backedUp, false);
    assert.equal(fs.readFileSync(file, 'utf8'), 'first');
  });

  test('a recycled backup longer than the new bytes is cut to their length', () => {
    const file = path.join(tempDir(), 'ledger.db');
    fs.writeFileSync(file, 'v1');
    fs.writeFileSync(`${file}.bak`, Buffer.alloc(1 << 16, 0x5a));
    replaceFile(file, `${file}.bak`, Buffer.from('v2'), () => undefined);
    assert.equal(fs.readFileSync(file, 'utf8'), 'v2');
    assert.equal(fs.readFileSync(`${file}.bak`, 'utf8'), 'v1');
  });

  test('a backup hard-linked to the file is not written through', () => {
    const file = path.join(tempDir(), 'ledger.db');
    fs.writeFileSync(file, 'v1');
    fs.linkSync(file, `${file}.bak`);
    replaceFile(file, `${file}.bak`, Buffer.from('v2'), () => undefined);
    assert.equal(fs.readFileSync(file, 'utf8'), 'v2');
    assert.equal(fs.readFileSync(`${file}.bak`, 'utf8'), 'v1');
  });

  test('a write that fails mid-way leaves the database untouched and the backup is the last good file (kills: crashAtStep.test.ts)', () => {
    const file = path.join(tempDir(), 'ledger.db');
    fs.writeFileSync(file, 'v1');
    fs.writeFileSync(`${file}.bak`, 'v0');
    const huge = { length: 10, buffer: new ArrayBuffer(0) } as unknown as Uint8Array;
    assert.throws(() => replaceFile(file, `${file}.bak`, huge, () => undefined));
    assert.equal(fs.readFileSync(file, 'utf8'), 'v1', 'the database is untouched');
    assert.equal(fs.readFileSync(`${file}.bak`, 'utf8'), 'v1', 'the backup is there, and is the last good file');
  });

  test("dead writers' temporary files are removed by the next write; a live writer's stay", () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    fs.writeFileSync(file, 'v1');
    const dead = 2 ** 22 + 12345;
    const leftovers = [`ledger.db.tmp-${dead}`, `ledger.db.bak.tmp-${dead}`, `ledger.db.lock.tmp-${dead}-0123456789abcdef`];
    for (const name of leftovers) fs.writeFileSync(path.join(dir, name), Buffer.alloc(1024));
    const live = `ledger.db.tmp-${process.ppid}`;
    fs.writeFileSync(path.join(dir, live), 'a live writer');
    fs.writeFileSync(path.join(dir, 'notes.tmp-1'), 'not ours');
    assert.deepEqual(removeDeadWritersFiles(file).sort(), [...leftovers].sort());
    replaceFile(file, `${file}.bak`, Buffer.from('v2'), () => undefined);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['ledger.db', 'ledger.db.bak', live, 'notes.tmp-1'].sort());
  });
});
