import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { replaceFile } from '../../../src/node/persistence/atomicReplace';
import { tempDir } from '../helpers';

describe('atomic replace', () => {
  test('the new bytes replace the file; the old ones become the backup; nothing else is left', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.db');
    fs.writeFileSync(file, 'old — ü');
    const result = replaceFile(file, `${file}.bak`, Buffer.from('new'), () => assert.fail('no rebuild'));
    assert.equal(result.backedUp, true);
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
});
