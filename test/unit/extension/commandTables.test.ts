/**
 * Every command the manifest offers is registered exactly once, and every registered
 * command is offered (or internal): a contributed command nobody registers fails with
 * "command not found" when clicked; one registered twice throws at activation.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMAND_TABLE_IDS, FEATURE_COMMAND_IDS, INTERNAL_COMMAND_IDS } from '../../../src/extension/commands/tableIds';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
const contributed = manifest.contributes.commands.map((c) => c.command);

/** Each registration, with who registers it. */
const registrations: { id: string; by: string }[] = [
  ...Object.entries(COMMAND_TABLE_IDS).flatMap(([table, ids]) => ids.map((id) => ({ id, by: `${table} table` }))),
  ...Object.entries(FEATURE_COMMAND_IDS).flatMap(([file, ids]) => ids.map((id) => ({ id, by: file }))),
];

test('every contributed command is registered exactly once', () => {
  assert.equal(new Set(contributed).size, contributed.length, 'package.json contributes no command twice');
  for (const id of contributed) {
    const by = registrations.filter((r) => r.id === id).map((r) => r.by);
    assert.equal(by.length, 1, `${id} is registered ${by.length} times (${by.join(', ') || 'nowhere'})`);
  }
});

test('every registered command is contributed or listed as internal', () => {
  const ids = registrations.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, `a command is registered twice: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')}`);
  for (const { id, by } of registrations) {
    assert.ok(contributed.includes(id) || INTERNAL_COMMAND_IDS.includes(id), `${id} (${by}) is neither contributed nor internal`);
  }
  for (const id of INTERNAL_COMMAND_IDS) assert.ok(!contributed.includes(id), `${id} is internal, yet contributed`);
});

test('only the table helper and the listed feature files call registerCommand', () => {
  // A handler registered inline (in activate() or a command file) would escape the tables above.
  const dir = path.join(root, 'src', 'extension');
  const callers = (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => /\bregisterCommand\(/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
  assert.deepEqual(callers.sort(), ['commands/common.ts', ...Object.keys(FEATURE_COMMAND_IDS)].sort());
});
