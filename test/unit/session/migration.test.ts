/**
 * Issue 42, migration: a ledger the database-first version left (test/unit/fixtures/legacy-ledger,
 * made by main's CLI: see its README) opens with nothing lost. Its database is ahead of two files
 * (an update the mirror never got, an add only in the journal) and a teammate's edit sits in a
 * file the old sync never read; the first command of this version writes the files the database
 * was ahead of, imports the edit, merges the journal, and removes sync.json, the journal and the backup.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { type ArtifactJson, cli, jsonOf, tempDir } from '../helpers';
import { ok } from './shared';

const FIXTURE = path.join(__dirname, '..', '..', '..', '..', 'test', 'unit', 'fixtures', 'legacy-ledger');

function legacyWorkspace(): string {
  const workspace = tempDir('ledger-legacy-');
  const folder = path.join(workspace, '.context-ledger');
  fs.cpSync(FIXTURE, folder, { recursive: true });
  fs.rmSync(path.join(folder, 'README.md'));
  fs.writeFileSync(path.join(folder, 'ledger.db'), zlib.gunzipSync(fs.readFileSync(path.join(folder, 'ledger.db.gz'))));
  fs.rmSync(path.join(folder, 'ledger.db.gz'));
  // The journal names its database by identity: seat it on the copy, as it was on the original.
  const stat = fs.statSync(path.join(folder, 'ledger.db'));
  const journal = path.join(folder, 'ledger.db.journal');
  const lines = fs.readFileSync(journal, 'utf8').split('\n');
  lines[0] = JSON.stringify({ journal: 1, base: { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs } });
  fs.writeFileSync(journal, lines.join('\n'));
  fs.writeFileSync(path.join(folder, 'ledger.db.bak'), 'an old backup');
  return workspace;
}

/** Every chain's latest version, bodies included (`export` is the lossless form). */
function latestBodies(workspace: string): Map<string, string> {
  const out = ok(cli(['export', '--latest-only'], { cwd: workspace })).stdout;
  const rows = out.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { chainId: string; body: string });
  return new Map(rows.map((r) => [r.chainId, r.body]));
}

describe('a ledger the database-first version left', () => {
  it('opens with nothing lost: unsynced writes get their files, a pending file edit is imported, the old side files go', () => {
    const workspace = legacyWorkspace();
    const folder = path.join(workspace, '.context-ledger');
    const artifacts = path.join(folder, 'artifacts');
    const untouched = fs.readFileSync(path.join(artifacts, 'convention', 'tabs-never.md'));

    const first = ok(cli(['list'], { cwd: workspace }));
    assert.match(first.stderr, /migrated the ledger to files first: wrote 1 artifact file the database was ahead of/);
    const latest = latestBodies(workspace);
    assert.equal(latest.get('d1'), 'One file, unsynced update.', 'the unsynced update is kept');
    assert.equal(latest.get('j1'), 'Only in the journal.', 'the journaled add is kept');
    assert.equal(latest.get('n1'), 'v2 from a teammate, not synced yet.', "the teammate's edit is imported");
    assert.equal(latest.get('c1'), 'Two spaces.');

    // The files now hold every latest version: they are the ledger.
    assert.match(fs.readFileSync(path.join(artifacts, 'decision', 'use-sqlite.md'), 'utf8'), /One file, unsynced update\./);
    const files = (fs.readdirSync(artifacts, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).sort();
    assert.deepEqual(files, ['convention/tabs-never.md', 'decision/use-sqlite.md', 'learning/journaled-add-no-file.md', 'note/synced-then-edited.md']);
    assert.deepEqual(fs.readFileSync(path.join(artifacts, 'convention', 'tabs-never.md')), untouched, 'a file in step is not rewritten');
    const history = jsonOf<ArtifactJson[]>(ok(cli(['history', 'n1', '--format', 'json'], { cwd: workspace })));
    assert.deepEqual(history.map((v) => v.body), ['v1', 'v2 from a teammate, not synced yet.'], 'the version before the edit stays in the history');

    // What only the database-first layout needed is gone; the database is the index now.
    assert.deepEqual(fs.readdirSync(folder).filter((f) => f.startsWith('ledger.db') && f !== 'ledger.db.knowledge.json').sort(), ['ledger.db'], "only the session's local record beside the index");

    // Deleting the index loses nothing shared: the next command builds it from the files.
    fs.rmSync(path.join(folder, 'ledger.db'));
    assert.deepEqual(latestBodies(workspace), latest);
  });
});
