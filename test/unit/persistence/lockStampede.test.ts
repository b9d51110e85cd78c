import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { LedgerFile } from '../../../src/node/ledgerFile';
import { plantDeadLock } from '../fixtures/lockStampede';
import { tempDir } from '../helpers';

function runWriter(file: string, prefix: string, count: number): Promise<{ code: number; ids: string[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'lockStampede.js'), file, prefix, String(count)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Each writer stops between seeing a stale lock and taking it over: the window in which another could take it too.
      env: { ...process.env, CONTEXT_LEDGER_TEST_PAUSE_AT: 'lock-stale-seen:30' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, ids: stdout.split('\n').filter(Boolean), stderr }));
  });
}

// Two processes taking over the same stale lock at once both wrote, and one's write was
// lost. Here a dead process's lock greets writers starting together, and they keep
// leaving such locks (as writers killed holding it would): every write that reported
// success must be in the ledger afterwards.
test('a stampede on stale locks: many writers, many takeovers, no reported write lost', { timeout: 120_000 }, async () => {
  const WRITERS = 4;
  const WRITES = 9;
  const file = path.join(tempDir(), 'ledger.db');
  const ledger = await LedgerFile.open(file, { create: true });
  await ledger.write((store) => {
    for (let w = 0; w < WRITERS; w++) store.createArtifact({ id: `w${w}-chain`, type: 'note', title: `Writer ${w} — ü`, body: 'start' });
  });
  ledger.close();
  plantDeadLock(file);
  const runs = await Promise.all(Array.from({ length: WRITERS }, (_, w) => runWriter(file, `w${w}`, WRITES)));
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  const reported = runs.flatMap((run) => run.ids);
  assert.equal(reported.length, WRITERS * WRITES);
  const after = await LedgerFile.open(file);
  const present = new Set(after.store.listArtifacts({ allVersions: true }).map((a) => a.id));
  after.close();
  const lost = reported.filter((id) => !present.has(id));
  assert.deepEqual(lost, [], `${lost.length} of ${reported.length} reported writes lost`);
});
