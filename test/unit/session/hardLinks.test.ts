/**
 * Issue 42: a hard link at `ledger.db.journal` (a name in the ledger's folder for a file
 * outside the workspace, as a cloned repository or another user can leave) is never
 * truncated or written: the real CLI, real files, a logged build and an add.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cli, tempDir } from '../helpers';
import { ok } from './shared';

describe('hard links beside the database', () => {
  it('a journal name hard-linked to a file outside the workspace: builds and adds work, the outside file keeps every byte', () => {
    const workspace = tempDir('ledger-hardlink-');
    const outside = path.join(tempDir('ledger-hardlink-outside-'), 'notes.txt');
    const secret = 'Someone else\'s notes — ünïcode, 日本語\n'.repeat(50);
    fs.writeFileSync(outside, secret);
    ok(cli(['add', '--type', 'decision', '--title', 'Webhooks are idempotent', '--body', 'Key on the event id.'], { cwd: workspace }));
    const journal = path.join(workspace, '.context-ledger', 'ledger.db.journal');
    fs.rmSync(journal, { force: true });
    fs.linkSync(outside, journal);

    // A logged build starts a journal; an add appends to one.
    ok(cli(['build', '--task-title', 'Retry the payment webhook', '--budget', '800'], { cwd: workspace }));
    ok(cli(['add', '--type', 'learning', '--title', 'Retries need jitter', '--body', 'Full jitter.'], { cwd: workspace }));
    assert.equal(fs.readFileSync(outside, 'utf8'), secret, 'the outside file is untouched');

    // Linked again while the ledger's own journal is in use: appending stops, the database is written whole.
    assert.ok(fs.existsSync(journal), 'the add went to a journal of its own');
    const own = fs.readFileSync(journal);
    fs.linkSync(journal, path.join(path.dirname(outside), 'second-name'));
    ok(cli(['add', '--type', 'learning', '--title', 'Backoff is capped', '--body', 'At 30 s.'], { cwd: workspace }));
    assert.deepEqual(fs.readFileSync(path.join(path.dirname(outside), 'second-name')), own, 'the other name keeps the bytes it had');
    const titles = (JSON.parse(ok(cli(['list', '--format', 'json'], { cwd: workspace })).stdout) as Array<{ title: string }>).map((a) => a.title).sort();
    assert.deepEqual(titles, ['Backoff is capped', 'Retries need jitter', 'Webhooks are idempotent']);
    assert.equal(fs.readFileSync(outside, 'utf8'), secret);
  });
});
