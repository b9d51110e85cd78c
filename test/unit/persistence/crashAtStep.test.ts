/**
 * kill -9 at each named step of a write (src/node/persistence/faultInjection.ts): before the
 * files, between the files and the index, mid-index and after, for add (with an id of its own,
 * and as the new file alone), update, import and sync (which gives a new file its ids). The
 * real CLI on a workspace ledger. After the kill the next command finds no artifact lost, a write that reached its file in the ledger (the file is
 * newer than the index: imported by stamps), a new file imported once, and sync exits 0.
 * (Random kills: test/unit/session/killAnywhere.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLI, cli, tempDir } from '../helpers';

const WRITE = ['files-before', 'files-written', 'temp-written', 'database-replaced', 'write-done'];
const STEPS: Record<string, string[]> = {
  add: WRITE,
  // An add with no id of its own writes its new file and nothing else (LedgerSession.addAsFile).
  'add as a file': ['files-before', 'files-written'],
  update: WRITE,
  import: WRITE,
  sync: ['import-before-ids', 'temp-written', 'database-replaced', 'write-done'],
};

const SEEDED = ['seed-0', 'seed-1', 'seed-2'];
const NEW_FILE = 'learning/found-it.md';
const NEW_TITLE = 'Found it — 発見';

function seeded(): string {
  const workspace = tempDir();
  for (const id of SEEDED) assert.equal(cli(['add', '--type', 'note', '--title', `Seed ${id}`, '--body', `body ${id}`, '--id', id], { cwd: workspace }).code, 0);
  fs.writeFileSync(path.join(workspace, 'in.jsonl'), `${JSON.stringify({ id: 'imported', type: 'note', title: 'Imported', body: 'imported body' })}\n`);
  return workspace;
}

const COMMANDS: Record<string, string[]> = {
  add: ['add', '--type', 'note', '--title', 'Added', '--body', 'added body', '--id', 'added'],
  'add as a file': ['add', '--type', 'note', '--title', 'Added as a file — 発見', '--body', 'added body'],
  update: ['update', 'seed-0', '--body', 'updated body'],
  import: ['import', 'in.jsonl'],
  sync: ['sync'],
};

function runCrashing(args: string[], step: string, cwd: string): Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, CONTEXT_LEDGER_TEST_CRASH_AT: step }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

function latest(workspace: string): Map<string, { id: string; title: string; body: string }> {
  const result = cli(['export', '--latest-only'], { cwd: workspace });
  assert.equal(result.code, 0, result.stderr);
  const rows = result.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { chainId: string; id: string; title: string; body: string });
  return new Map(rows.map((r) => [r.chainId, r]));
}

async function check(command: string, step: string): Promise<boolean> {
  const workspace = seeded();
  const artifacts = path.join(workspace, '.context-ledger', 'artifacts');
  if (command === 'sync') {
    fs.mkdirSync(path.join(artifacts, 'learning'), { recursive: true });
    fs.writeFileSync(path.join(artifacts, NEW_FILE), `---\ntype: learning\ntitle: "${NEW_TITLE}"\n---\n\nThe retry queue needs a lock.\n`);
  }
  const run = await runCrashing(COMMANDS[command]!, step, workspace);
  if (run.signal !== 'SIGKILL') {
    assert.equal(run.code, 0, `${command} without reaching ${step}: ${run.stderr}`);
    return false;
  }
  const where = `${command} killed at ${step}`;
  const again = cli(['sync'], { cwd: workspace });
  assert.equal(again.code, 0, `${where}: ${again.stdout} ${again.stderr}`);
  const now = latest(workspace);
  for (const id of SEEDED) assert.ok(now.has(id), `${where}: ${id} lost`);
  // A write whose file was written is in the ledger: the file is the ledger.
  const reachedFiles = step !== 'files-before';
  if (command === 'add') assert.equal(now.has('added'), reachedFiles, `${where}: the add`);
  if (command === 'add as a file') {
    assert.equal([...now.values()].filter((a) => a.title === 'Added as a file — 発見').length, reachedFiles ? 1 : 0, `${where}: the add`);
    // The index took the new file from the folder; the killed writer's temporary file is gone.
    assert.deepEqual((fs.readdirSync(artifacts, { recursive: true }) as string[]).filter((f) => f.includes('.tmp-')), [], where);
  }
  if (command === 'import') assert.equal(now.has('imported'), reachedFiles, `${where}: the import`);
  if (command === 'update') assert.equal(now.get('seed-0')!.body, reachedFiles ? 'updated body' : 'body seed-0', `${where}: the update`);
  if (command === 'sync') {
    const found = [...now.values()].filter((a) => a.title === NEW_TITLE);
    assert.equal(found.length, 1, `${where}: the new file was imported ${found.length} times`);
    assert.match(fs.readFileSync(path.join(artifacts, NEW_FILE), 'utf8'), new RegExp(`chainId: "${found[0]!.id}"`));
  }
  // One file per chain, each the index's latest.
  const files = (fs.readdirSync(artifacts, { recursive: true }) as string[]).filter((f) => f.endsWith('.md'));
  assert.equal(files.length, now.size, `${where}: ${files.join(', ')}`);
  return true;
}

test('kill -9 at every step of add, update, import and sync: nothing lost or duplicated, a write that reached its file is kept', { timeout: 300_000 }, async () => {
  const cases = Object.entries(STEPS).flatMap(([command, steps]) => steps.map((step) => ({ command, step })));
  const killed: string[] = [];
  for (const { command, step } of cases) if (await check(command, step)) killed.push(`${command}@${step}`);
  for (const expected of ['add@files-before', 'add@files-written', 'add as a file@files-before', 'add as a file@files-written', 'update@files-written', 'import@temp-written', 'sync@import-before-ids', 'sync@database-replaced']) {
    assert.ok(killed.includes(expected), `${expected} was never reached (killed: ${killed.join(', ')})`);
  }
});
