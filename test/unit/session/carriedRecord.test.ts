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

function workspace(): { dir: string; db: string; artifacts: string; record(): { index?: string; listing?: string; files?: string[] } } {
  const dir = tempDir('ledger-carried-record-');
  ok(cli(['init'], { cwd: dir }));
  const db = path.join(dir, '.context-ledger', 'ledger.db');
  return { dir, db, artifacts: path.join(dir, '.context-ledger', 'artifacts'), record: () => JSON.parse(fs.readFileSync(`${db}.knowledge.json`, 'utf8')) as { index?: string; listing?: string; files?: string[] } };
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
    assert.equal(record.listing, undefined, 'the listing changed (one file more): not carried');
    fs.writeFileSync(path.join(ws.dir, 'AGENTS.md'), '# Agents\n\n## Testing\n\nRun the unit tests and the e2e suite before pushing.\n');
    const listed = ok(cli(['list', '--format', 'json'], { cwd: ws.dir }));
    assert.match(listed.stderr, /from the knowledge files: 0 added, 1 updated/);
    assert.ok((JSON.parse(listed.stdout) as { title: string }[]).some((a) => a.title === 'Added after — 後'), 'and the added artifact is there');
  });
});
