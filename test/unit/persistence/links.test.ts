import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { applyInboxFile } from '../../../src/core/inbox';
import { processInbox } from '../../../src/node/inbox';
import { LedgerFile } from '../../../src/node/ledgerFile';
import { cli, tempDir } from '../helpers';

/** A workspace with a ledger of one artifact, and a file outside it that links will point at. */
async function setUp(): Promise<{ workspace: string; db: string; outside: string; before: Buffer }> {
  const workspace = tempDir();
  const db = path.join(workspace, '.context-ledger', 'ledger.db');
  const ledger = await LedgerFile.open(db, { create: true, createFolder: true });
  await ledger.write((s) => s.importArtifacts([{ id: 'one', type: 'note', title: 'One — ü', body: 'first' }]));
  ledger.close();
  const outside = path.join(tempDir(), 'precious.txt');
  fs.writeFileSync(outside, 'outside the workspace — keep these bytes 🔒\n');
  return { workspace, db, outside, before: fs.readFileSync(outside) };
}

function add(db: string, id: string) {
  return cli(['add', '--db', db, '--type', 'note', '--title', `Title ${id}`, '--body', `body ${id}`, '--id', id]);
}

describe('links at the ledger’s own files are refused; nothing outside changes', () => {
  for (const side of ['ledger.db.lock']) {
    test(`${side} as a link: add and import refuse, naming it`, async () => {
      const { db, outside, before } = await setUp();
      const link = path.join(path.dirname(db), side);
      fs.rmSync(link, { force: true });
      fs.symlinkSync(outside, link);
      const added = add(db, 'two');
      assert.notEqual(added.code, 0);
      assert.match(added.stderr, new RegExp(`${side.replace(/\./g, '\\.')}: .*symbolic link`));
      const jsonl = path.join(tempDir(), 'in.jsonl');
      fs.writeFileSync(jsonl, `${JSON.stringify({ id: 'three', type: 'note', title: 'Three', body: 'three' })}\n`);
      assert.notEqual(cli(['import', jsonl, '--db', db]).code, 0);
      assert.deepEqual(fs.readFileSync(outside), before);
      assert.ok(fs.lstatSync(link).isSymbolicLink() && !fs.lstatSync(db).isSymbolicLink());
    });
  }

  test('a linked .context-ledger folder is refused, naming it', async () => {
    const { workspace, db } = await setUp();
    const elsewhere = path.join(tempDir(), 'ledger-elsewhere');
    fs.renameSync(path.dirname(db), elsewhere);
    fs.symlinkSync(elsewhere, path.join(workspace, '.context-ledger'));
    const before = fs.readFileSync(path.join(elsewhere, 'ledger.db'));
    const added = add(db, 'two');
    assert.notEqual(added.code, 0);
    assert.match(added.stderr, /\.context-ledger: the ledger folder \.context-ledger is a symbolic link/);
    assert.deepEqual(fs.readFileSync(path.join(elsewhere, 'ledger.db')), before);
  });

  test('export --format jsonl --out <link> refuses and leaves the target alone', async () => {
    const { workspace, db, outside, before } = await setUp();
    const link = path.join(workspace, 'export.jsonl');
    fs.symlinkSync(outside, link);
    const run = cli(['export', '--format', 'jsonl', '--out', link, '--db', db]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /export\.jsonl: the export file is a symbolic link/);
    assert.deepEqual(fs.readFileSync(outside), before);
  });

  for (const linked of ['inbox', 'inbox/rejected']) {
    test(`a linked ${linked} folder: inbox --ingest refuses; the files out there are neither read, moved nor deleted`, async () => {
      const { workspace, db } = await setUp();
      const outsideDir = tempDir();
      const inbox = path.join(path.dirname(db), 'inbox');
      if (linked === 'inbox') {
        fs.symlinkSync(outsideDir, inbox);
      } else {
        fs.mkdirSync(inbox);
        fs.symlinkSync(outsideDir, path.join(inbox, 'rejected'));
      }
      const good = JSON.stringify({ type: 'note', title: 'From outside', body: 'b' });
      fs.writeFileSync(path.join(outsideDir, 'a.json'), good);
      if (linked !== 'inbox') fs.writeFileSync(path.join(inbox, 'bad.json'), '{ not json');
      const run = cli(['inbox', '--ingest'], { cwd: workspace });
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /symbolic link/);
      assert.deepEqual(fs.readdirSync(outsideDir), ['a.json']);
      assert.equal(fs.readFileSync(path.join(outsideDir, 'a.json'), 'utf8'), good);
      const ledger = await LedgerFile.open(db);
      assert.equal(ledger.store.countArtifacts().chains, 1, 'nothing ingested');
      ledger.close();
    });
  }
});

test('inbox --ingest while another process holds the lock leaves valid files in place', async () => {
  const { workspace, db } = await setUp();
  const inbox = path.join(path.dirname(db), 'inbox');
  fs.mkdirSync(inbox);
  const good = JSON.stringify({ type: 'note', title: 'Waiting', body: 'b' });
  fs.writeFileSync(path.join(inbox, 'a.json'), good);
  // A live process (the test runner's parent) holds the lock.
  fs.writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.ppid, at: new Date().toISOString() }));
  const ledger = await LedgerFile.open(db, { lockTimeoutMs: 200 });
  const outcomes = await processInbox(inbox, (parsed, file) => ledger.write((store) => applyInboxFile(store, parsed, { workspaceRoot: workspace, file })));
  ledger.close();
  assert.deepEqual(outcomes.map((o) => o.status), ['failed']);
  assert.equal(fs.readFileSync(path.join(inbox, 'a.json'), 'utf8'), good, 'still in the inbox');
  assert.equal(fs.existsSync(path.join(inbox, 'rejected')), false);
});
