/**
 * What a command records beside the index (`ledger.db.knowledge.json`) so that the next one asks
 * the index nothing: after a pull's import, the listing the saved index matches; after an `add`,
 * the knowledge files the index follows. A record must never hide a change: an edit after it, a
 * file the import could not take, a knowledge file edited after an add are all seen by the next
 * command.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { identityOf } from '../../../src/node/persistence/fileIdentity';
import { indexIdentity } from '../../../src/node/persistence/indexDelta';
import { cli, type CliResult, tempDir } from '../helpers';

function ok(result: CliResult): CliResult {
  assert.equal(result.code, 0, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

interface Record {
  index?: string;
  listing?: string;
  files?: string[];
  added?: { path: string; size: number; mtimeMs: number }[];
}

function workspace(): { dir: string; db: string; artifacts: string; record(): Record } {
  const dir = tempDir('ledger-carried-record-');
  ok(cli(['init'], { cwd: dir }));
  const db = path.join(dir, '.context-ledger', 'ledger.db');
  return { dir, db, artifacts: path.join(dir, '.context-ledger', 'artifacts'), record: () => JSON.parse(fs.readFileSync(`${db}.knowledge.json`, 'utf8')) as Record };
}

/** The saved index a session loading `db` now holds (LedgerFile.savedAs). */
const savedIndex = (db: string): string => indexIdentity(identityOf(db)!, identityOf(`${db}.delta`));

const bodyOf = (dir: string, title: string): string | undefined =>
  (JSON.parse(ok(cli(['list', '--format', 'json'], { cwd: dir })).stdout) as { title: string; id: string }[])
    .filter((a) => a.title === title)
    .map((a) => (JSON.parse(ok(cli(['show', a.id, '--format', 'json'], { cwd: dir })).stdout) as { body: string }).body)[0];

describe('the record a command leaves for the next', () => {
  it('a pull imported by a command is recorded for the index it saved; an edit after it is still imported by the next command', () => {
    const ws = workspace();
    for (const title of ['Pulled one — 一', 'Pulled two', 'Pulled three']) ok(cli(['add', '--type', 'note', '--title', title, '--body', 'v1'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    // As a pull leaves them: two files changed on disk.
    for (const f of ['note/pulled-one.md', 'note/pulled-two.md']) fs.appendFileSync(path.join(ws.artifacts, f), '\nA teammate’s line.\n');
    assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /from the artifact files: 0 added, 2 updated/);
    const record = ws.record();
    assert.equal(record.index, savedIndex(ws.db), 'recorded for the index the import saved');
    assert.ok(record.listing, 'with the listing it matches');
    assert.doesNotMatch(ok(cli(['list'], { cwd: ws.dir })).stderr, /from the artifact files/);
    fs.appendFileSync(path.join(ws.artifacts, 'note/pulled-three.md'), 'Edited after the record.\n');
    assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /from the artifact files: 0 added, 1 updated/);
    assert.match(bodyOf(ws.dir, 'Pulled three') ?? '', /Edited after the record\./);
  });

  it('a file the import could not take is not recorded as matching: every command reports it until it is fixed', () => {
    const ws = workspace();
    ok(cli(['add', '--type', 'note', '--title', 'Fine', '--body', 'v1'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    const bad = path.join(ws.artifacts, 'note', 'broken.md');
    fs.writeFileSync(bad, '---\ntitle: Broken\ntype: note\nextra: {"review": 42}\n---\nbody\n');
    fs.appendFileSync(path.join(ws.artifacts, 'note', 'fine.md'), '\nmore\n');
    for (let i = 0; i < 2; i++) assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /note\/broken\.md skipped: .*review/, `command ${i + 1}`);
    assert.notEqual(ws.record().listing !== undefined && ws.record().index === savedIndex(ws.db), true, 'no listing recorded for an index that lacks a listed file');
    fs.writeFileSync(bad, '---\ntitle: Broken, then fixed\ntype: note\n---\nbody\n');
    assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /from the artifact files: 1 added/);
  });

  it('an add carries the knowledge files the index follows over to the index it extended; an edit of one after the add is still followed', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.dir, 'AGENTS.md'), '# Agents\n\n## Testing\n\nRun the unit tests before pushing.\n');
    ok(cli(['import-folder'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    assert.deepEqual(ws.record().files, ['AGENTS.md']);
    ok(cli(['add', '--type', 'note', '--title', 'Added after — 後', '--body', 'x'], { cwd: ws.dir }));
    const record = ws.record();
    assert.equal(record.index, savedIndex(ws.db), 'the record names the index with the add in its delta');
    assert.deepEqual(record.files, ['AGENTS.md']);
    fs.writeFileSync(path.join(ws.dir, 'AGENTS.md'), '# Agents\n\n## Testing\n\nRun the unit tests and the e2e suite before pushing.\n');
    const listed = ok(cli(['list', '--format', 'json'], { cwd: ws.dir }));
    assert.match(listed.stderr, /from the knowledge files: 0 added, 1 updated/);
    assert.ok((JSON.parse(listed.stdout) as { title: string }[]).some((a) => a.title === 'Added after — 後'), 'and the added artifact is there');
  });

  it('an add carries the listing with its file added; the next command takes it from the delta without reading the stamps, and sees an edit made since', () => {
    const ws = workspace();
    ok(cli(['add', '--type', 'note', '--title', 'Before', '--body', 'v1'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    const listed = ws.record().listing;
    ok(cli(['add', '--type', 'note', '--title', 'Added — 追加', '--body', 'x'], { cwd: ws.dir }));
    const stat = fs.statSync(path.join(ws.artifacts, 'note', 'added.md'));
    assert.deepEqual(ws.record().added, [{ path: 'note/added.md', size: stat.size, mtimeMs: stat.mtimeMs }]);
    assert.equal(ws.record().listing, listed);
    const next = ok(cli(['list', '--format', 'json'], { cwd: ws.dir }));
    assert.doesNotMatch(next.stderr, /from the artifact files/, 'this machine wrote it: not reported as found');
    assert.deepEqual((JSON.parse(next.stdout) as { title: string }[]).map((a) => a.title).sort(), ['Added — 追加', 'Before']);
    assert.equal(ws.record().added, undefined, 'recorded again as the listing alone');
    assert.equal(ws.record().index, savedIndex(ws.db));
    // An add, then edits before the next command: of another file, and of the added file itself.
    ok(cli(['add', '--type', 'note', '--title', 'Second', '--body', 'x'], { cwd: ws.dir }));
    fs.appendFileSync(path.join(ws.artifacts, 'note', 'before.md'), 'Edited since.\n');
    assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /from the artifact files: 0 added, 1 updated/);
    ok(cli(['add', '--type', 'note', '--title', 'Third', '--body', 'x'], { cwd: ws.dir }));
    fs.appendFileSync(path.join(ws.artifacts, 'note', 'third.md'), 'Edited since.\n');
    assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /from the artifact files: 0 added, 1 updated/);
    assert.match(bodyOf(ws.dir, 'Third') ?? '', /Edited since\./);
  });

  it('an add whose file takes the name of a deleted file (a stamp the delta line does not replace) is still imported by the next command', () => {
    const ws = workspace();
    ok(cli(['add', '--type', 'note', '--title', 'Reused', '--body', 'first'], { cwd: ws.dir }));
    ok(cli(['list'], { cwd: ws.dir }));
    fs.rmSync(path.join(ws.artifacts, 'note', 'reused.md'));
    assert.match(ok(cli(['list'], { cwd: ws.dir })).stderr, /1 archived/);
    ok(cli(['list'], { cwd: ws.dir }));
    ok(cli(['add', '--type', 'note', '--title', 'Reused', '--body', 'second'], { cwd: ws.dir }));
    assert.ok(fs.existsSync(path.join(ws.artifacts, 'note', 'reused.md')));
    ok(cli(['list'], { cwd: ws.dir }));
    assert.equal(bodyOf(ws.dir, 'Reused'), 'second');
  });
});
