/**
 * The quick add (LedgerSession.addAsFile, what `context-ledger add` does in a workspace): the
 * new artifact's file is the whole write, the index is neither loaded nor saved, and the next
 * command of any process has the artifact exactly as `add` reported it. Links are refused as on
 * the one write path; an add that needs the index (an id of its own, a task, no index yet)
 * takes that path.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LedgerSession } from '../../../src/node/session';
import { cli, tempDir } from '../helpers';

function workspace(): { dir: string; db: string; artifacts: string } {
  const dir = tempDir('ledger-add-as-file-');
  assert.equal(cli(['init'], { cwd: dir }).code, 0);
  return { dir, db: path.join(dir, '.context-ledger', 'ledger.db'), artifacts: path.join(dir, '.context-ledger', 'artifacts') };
}

const filesOf = (root: string): string[] => (fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).sort() : []);

function ok(result: { code: number; stdout: string; stderr: string }): string {
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

describe('add as a file', () => {
  it('writes the one new file and tells the index in its delta; the next command has the artifact exactly as add reported it, without reading the file or reporting it found', () => {
    const ws = workspace();
    const index = fs.statSync(ws.db);
    const added = JSON.parse(ok(cli(['add', '--type', 'decision', '--title', '  Ünïcode holds — 発見 ', '--body', 'line 1\n\n  kept  \n', '--scope', 'path', '--path', 'src/**', '--tag', 'a,b', '--pinned', '--format', 'json'], { cwd: ws.dir }))) as { id: string };
    assert.deepEqual(filesOf(ws.artifacts), ['decision/unicode-holds.md']);
    const after = fs.statSync(ws.db);
    assert.equal(after.mtimeMs, index.mtimeMs, 'the database was not written');
    assert.equal(after.size, index.size);
    assert.deepEqual(fs.readdirSync(path.dirname(ws.db)).sort(), ['.gitignore', 'artifacts', 'ledger.db', 'ledger.db.delta'], 'no lock or temporary file left');
    assert.match(fs.readFileSync(`${ws.db}.delta`, 'utf8'), /"file":\{"stamp":\{"path":"decision\/unicode-holds\.md"/);

    const show = cli(['show', added.id, '--format', 'json'], { cwd: ws.dir });
    assert.deepEqual(JSON.parse(ok(show)) as Record<string, unknown>, added);
    assert.doesNotMatch(show.stderr, /from the artifact files/, 'this machine\'s own add is not news to it');
    // The file was not read again: the index holds its stamp, so the database is not saved either.
    assert.equal(fs.statSync(ws.db).mtimeMs, index.mtimeMs);
    // Another process's session takes it from the file too, once.
    const listed = JSON.parse(ok(cli(['list', '--format', 'json'], { cwd: ws.dir }))) as { id: string }[];
    assert.deepEqual(listed.map((a) => a.id), [added.id]);
  });

  it('a name taken by a file gets the chain hash; a deleted file whose name a new add takes archives the old artifact', () => {
    const ws = workspace();
    const first = JSON.parse(ok(cli(['add', '--type', 'note', '--title', 'Same title', '--body', 'one', '--format', 'json'], { cwd: ws.dir }))) as { id: string };
    ok(cli(['add', '--type', 'note', '--title', 'Same title', '--body', 'two'], { cwd: ws.dir }));
    assert.equal(filesOf(ws.artifacts).length, 2);
    assert.ok(filesOf(ws.artifacts).includes('note/same-title.md'));
    // The index reads both, then the first file is deleted (a teammate's pull) and a new add takes its name before any command.
    ok(cli(['list'], { cwd: ws.dir }));
    fs.rmSync(path.join(ws.artifacts, 'note/same-title.md'));
    const third = JSON.parse(ok(cli(['add', '--type', 'note', '--title', 'Same title', '--body', 'three', '--format', 'json'], { cwd: ws.dir }))) as { id: string };
    assert.match(fs.readFileSync(path.join(ws.artifacts, 'note/same-title.md'), 'utf8'), new RegExp(`id: "${third.id}"`));
    const all = JSON.parse(ok(cli(['list', '--status', 'active', '--format', 'json'], { cwd: ws.dir }))) as { id: string; body?: string }[];
    assert.equal(all.length, 2, 'the artifact whose file was deleted is archived');
    assert.ok(!all.some((a) => a.id === first.id));
    const archived = JSON.parse(ok(cli(['show', first.id, '--format', 'json'], { cwd: ws.dir }))) as { status: string };
    assert.equal(archived.status, 'archived');
  });

  it('a symbolic link at the artifacts folder or the ledger folder is refused; nothing lands at its target', async () => {
    const ws = workspace();
    const elsewhere = tempDir('ledger-add-elsewhere-');
    fs.symlinkSync(elsewhere, ws.artifacts);
    const refused = cli(['add', '--type', 'note', '--title', 'Through a link', '--body', 'no'], { cwd: ws.dir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /symbolic link/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);

    const moved = workspace();
    const real = tempDir('ledger-add-real-');
    fs.cpSync(path.dirname(moved.db), real, { recursive: true });
    fs.rmSync(path.dirname(moved.db), { recursive: true });
    fs.symlinkSync(real, path.dirname(moved.db));
    await assert.rejects(LedgerSession.addAsFile({ cwd: moved.dir }, { type: 'note', title: 'Through a link', body: 'no' }), /symbolic link/);
    assert.deepEqual(filesOf(path.join(real, 'artifacts')), []);
  });

  it('an add that needs the index (its own id, no index yet) goes through the write path', async () => {
    const ws = workspace();
    assert.equal(await LedgerSession.addAsFile({ cwd: ws.dir }, { id: 'mine', type: 'note', title: 'Mine', body: 'x' }), undefined);
    const bare = tempDir('ledger-add-bare-');
    assert.equal(await LedgerSession.addAsFile({ cwd: bare }, { type: 'note', title: 'First', body: 'x' }), undefined);
    ok(cli(['add', '--type', 'note', '--title', 'First', '--body', 'x'], { cwd: bare }));
    assert.deepEqual(filesOf(path.join(bare, '.context-ledger', 'artifacts')), ['note/first.md']);
    const saved = (): string => [ws.db, `${ws.db}.delta`].map((f) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs).join(':');
    const index = saved();
    ok(cli(['add', '--id', 'mine', '--type', 'note', '--title', 'Mine', '--body', 'x'], { cwd: ws.dir }));
    assert.notEqual(saved(), index, 'the write path saved the index (its delta)');
  });

  it('a command that finds nothing changed is remembered for the saved index; an edit, a record for another index or a damaged record is checked again', () => {
    const ws = workspace();
    const added = JSON.parse(ok(cli(['add', '--type', 'note', '--title', 'Remembered', '--body', 'v1', '--format', 'json'], { cwd: ws.dir }))) as { id: string };
    ok(cli(['list'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    const recordFile = `${ws.db}.knowledge.json`;
    const record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as { index?: string; listing?: string };
    assert.ok(record.index && record.listing, 'the listing that matched the index is recorded');
    // A teammate's edit in place: the listing differs from the recorded one, so the stamps are read and the edit imported.
    const file = path.join(ws.artifacts, 'note/remembered.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('v1', 'v2 — édité'));
    const shown = JSON.parse(ok(cli(['show', added.id, '--format', 'json'], { cwd: ws.dir }))) as { chainId: string };
    const latest = (JSON.parse(ok(cli(['list', '--format', 'json'], { cwd: ws.dir }))) as { chainId: string; bodyChars: number }[]).find((a) => a.chainId === shown.chainId);
    assert.equal(latest?.bodyChars, 'v2 — édité'.length);
    for (const damaged of ['{"version":1,"stamps":{},"index":"0:0:0","listing":"x"}', 'not json']) {
      fs.writeFileSync(recordFile, damaged);
      fs.appendFileSync(file, 'more\n');
      const listed = JSON.parse(ok(cli(['list', '--format', 'json'], { cwd: ws.dir }))) as { chainId: string; bodyChars: number }[];
      assert.ok(listed.find((a) => a.chainId === shown.chainId)!.bodyChars > 'v2 — édité'.length, damaged);
    }
  });

  it('a reader that cannot save the index (a read-only ledger) still reads a new file, and remembers nothing of it', () => {
    const ws = workspace();
    ok(cli(['list'], { cwd: ws.dir }));
    ok(cli(['add', '--type', 'note', '--title', 'Read while read-only — 読み取り', '--body', 'x'], { cwd: ws.dir }));
    // As a teammate's file is: not in the index's delta (a kill between the add's file and its record leaves the same).
    fs.rmSync(`${ws.db}.delta`);
    fs.chmodSync(ws.db, 0o444);
    try {
      for (let i = 0; i < 2; i++) {
        const listed = cli(['list', '--format', 'json'], { cwd: ws.dir });
        assert.equal(listed.code, 0, listed.stderr);
        assert.deepEqual((JSON.parse(listed.stdout) as { title: string }[]).map((a) => a.title), ['Read while read-only — 読み取り']);
        assert.match(listed.stderr, /read only, the index was not saved/);
      }
    } finally {
      fs.chmodSync(ws.db, 0o644);
    }
    // Writable again: the file is imported and saved, as it was never recorded as indexed.
    assert.match(stderrOf(cli(['list'], { cwd: ws.dir })), /from the artifact files: 1 added/);
  });
});

function stderrOf(result: { code: number; stdout: string; stderr: string }): string {
  assert.equal(result.code, 0, result.stderr);
  return result.stderr;
}
