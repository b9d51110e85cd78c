/**
 * Issue 42: a hard link in the ledger's folder (a name for a file outside the workspace, as a
 * cloned repository or another user can leave) is never written through: at the database, at
 * an artifact file, and at an earlier version's journal name. The real CLI, real files.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cli, tempDir } from '../helpers';
import { ok } from './shared';

function outsideFile(): { file: string; text: string } {
  const file = path.join(tempDir('ledger-hardlink-outside-'), 'notes.txt');
  const text = 'Someone else\'s notes — ünïcode, 日本語\n'.repeat(50);
  fs.writeFileSync(file, text);
  return { file, text };
}

describe('hard links in the ledger folder', () => {
  it('the database, an artifact file and a journal name hard-linked outside: builds, adds and updates work, the outside files keep every byte', () => {
    const workspace = tempDir('ledger-hardlink-');
    const added = JSON.parse(ok(cli(['add', '--type', 'decision', '--title', 'Webhooks are idempotent', '--body', 'Key on the event id.', '--format', 'json'], { cwd: workspace })).stdout) as { id: string };
    const folder = path.join(workspace, '.context-ledger');

    // A second name for the database, outside: the next save renames a new file over ledger.db.
    const dbOutside = path.join(tempDir('ledger-hardlink-db-'), 'copy.db');
    fs.linkSync(path.join(folder, 'ledger.db'), dbOutside);
    const dbBefore = fs.readFileSync(dbOutside);
    // An artifact file whose name is also a file outside.
    const artifact = path.join(folder, 'artifacts', 'decision', 'webhooks-are-idempotent.md');
    const artifactOutside = path.join(tempDir('ledger-hardlink-md-'), 'kept.md');
    fs.linkSync(artifact, artifactOutside);
    const artifactBefore = fs.readFileSync(artifactOutside);
    // An earlier version's journal name, linked to someone's file: read at most, never truncated or written.
    const journal = outsideFile();
    fs.linkSync(journal.file, path.join(folder, 'ledger.db.journal'));

    ok(cli(['build', '--task-title', 'Retry the payment webhook', '--budget', '800'], { cwd: workspace }));
    ok(cli(['add', '--type', 'learning', '--title', 'Retries need jitter', '--body', 'Full jitter.'], { cwd: workspace }));
    ok(cli(['update', added.id, '--body', 'Key on the event id, always.'], { cwd: workspace }));

    assert.deepEqual(fs.readFileSync(dbOutside), dbBefore, 'the database\'s other name keeps its bytes');
    assert.deepEqual(fs.readFileSync(artifactOutside), artifactBefore, 'the artifact file\'s other name keeps its bytes');
    assert.equal(fs.readFileSync(journal.file, 'utf8'), journal.text, 'the journal name\'s file is untouched');
    assert.match(fs.readFileSync(artifact, 'utf8'), /always\./, 'the artifact file itself has the update');
    const titles = (JSON.parse(ok(cli(['list', '--format', 'json'], { cwd: workspace })).stdout) as Array<{ title: string }>).map((a) => a.title).sort();
    assert.deepEqual(titles, ['Retries need jitter', 'Webhooks are idempotent']);
  });
});
