import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LedgerFile } from '../../../src/node/ledgerFile';
import { CLI, cli, tempDir } from '../helpers';

/** The fault points (src/node/persistence/faultInjection.ts) of a whole-database write. */
const FULL_WRITE = ['backup-recycled', 'backup-kept', 'temp-written', 'database-replaced', 'journal-merged'];

/** Per command, the steps it is killed at: an add and an update are journaled; an import and a sync write the database whole. */
const STEPS: Record<string, string[]> = {
  add: ['journal-opened', 'write-done'],
  update: ['journal-opened', 'temp-written', 'write-done'],
  import: FULL_WRITE,
  sync: ['sync-pending-recorded', 'backup-kept', 'temp-written', 'database-replaced', 'sync-database-written', 'sync-files-written'],
};

const SEEDED = ['seed-0', 'seed-1', 'seed-2', 'seed-3'];
const NEW_FILE = 'learning/found-it.md';
const NEW_TITLE = 'Found it — 発見';

/** A ledger written whole twice (so it has a backup), with a journaled add, and a mirror folder holding one new file. */
async function seeded(): Promise<{ workspace: string; db: string }> {
  const workspace = tempDir();
  const db = path.join(workspace, '.context-ledger', 'ledger.db');
  const ledger = await LedgerFile.open(db, { create: true, createFolder: true });
  await ledger.write((s) => s.importArtifacts(SEEDED.slice(0, 2).map((id) => ({ id, type: 'note' as const, title: `Seed ${id}`, body: `body ${id}` }))));
  await ledger.write((s) => s.importArtifacts(SEEDED.slice(2, 3).map((id) => ({ id, type: 'note' as const, title: `Seed ${id}`, body: `body ${id}` }))));
  await ledger.write((s) => s.createArtifact({ id: 'seed-3', type: 'note', title: 'Seed seed-3', body: 'body seed-3' }));
  ledger.close();
  const mirror = path.join(workspace, '.context-ledger', 'artifacts');
  fs.mkdirSync(path.join(mirror, 'learning'), { recursive: true });
  fs.writeFileSync(path.join(mirror, NEW_FILE), `---\ntype: learning\ntitle: "${NEW_TITLE}"\n---\n\nThe retry queue needs a lock.\n`);
  return { workspace, db };
}

const COMMANDS: Record<string, (db: string, workspace: string) => string[]> = {
  add: (db) => ['add', '--db', db, '--type', 'note', '--title', 'Added', '--body', 'added body', '--id', 'added'],
  update: (db) => ['update', 'seed-0', '--db', db, '--body', 'updated body'],
  import: (db, workspace) => ['import', path.join(workspace, 'in.jsonl'), '--db', db],
  sync: (db) => ['sync', '--db', db],
};

function runCrashing(args: string[], step: string, cwd: string): Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, CONTEXT_LEDGER_TEST_CRASH_AT: step }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function check(command: string, step: string): Promise<boolean> {
  const { workspace, db } = await seeded();
  fs.writeFileSync(path.join(workspace, 'in.jsonl'), `${JSON.stringify({ id: 'imported', type: 'note', title: 'Imported', body: 'imported body' })}\n`);
  const run = await runCrashing(COMMANDS[command]!(db, workspace), step, workspace);
  if (run.signal !== 'SIGKILL') {
    assert.equal(run.code, 0, `${command} without reaching ${step}: ${run.stderr}`);
    return false;
  }
  const where = `${command} killed at ${step}`;
  const ledger = await LedgerFile.open(db);
  const all = ledger.store.listArtifacts({ allVersions: true });
  ledger.close();
  for (const id of SEEDED) assert.ok(all.some((a) => a.id === id), `${where}: ${id} lost`);
  const backup = await LedgerFile.open(`${db}.bak`);
  assert.ok(backup.store.countArtifacts().chains >= 2, `${where}: the backup does not hold the ledger`);
  backup.close();
  if (command === 'sync') {
    // The next sync finishes the job: the new file is in the ledger once, with its id written into it.
    const again = cli(['sync', '--db', db], { cwd: workspace });
    assert.equal(again.code, 0, `${where}: ${again.stderr}`);
    const after = await LedgerFile.open(db);
    const found = after.store.listArtifacts({}).filter((a) => a.title === NEW_TITLE);
    after.close();
    assert.equal(found.length, 1, `${where}: the new file was imported ${found.length} times`);
    assert.match(fs.readFileSync(path.join(workspace, '.context-ledger', 'artifacts', NEW_FILE), 'utf8'), new RegExp(`id: "${found[0]!.id}"`));
  }
  return true;
}

// Killed (SIGKILL, no cleanup) at each named step of add, update, import and sync: no
// committed artifact is lost, nothing is imported twice, and the backup is always there.
test('kill -9 at every write step of add, update, import and sync: nothing lost or duplicated, a backup always present', { timeout: 300_000 }, async () => {
  const cases = Object.entries(STEPS).flatMap(([command, steps]) => steps.map((step) => ({ command, step })));
  const killed: string[] = [];
  // Two at a time: each case is its own ledger and processes.
  for (let i = 0; i < cases.length; i += 2) {
    const batch = cases.slice(i, i + 2);
    const results = await Promise.all(batch.map(({ command, step }) => check(command, step)));
    batch.forEach(({ command, step }, n) => results[n] && killed.push(`${command}@${step}`));
  }
  for (const expected of ['add@journal-opened', 'import@backup-kept', 'import@temp-written', 'import@database-replaced', 'sync@sync-database-written', 'sync@sync-files-written']) {
    assert.ok(killed.includes(expected), `${expected} was never reached (killed: ${killed.join(', ')})`);
  }
});
