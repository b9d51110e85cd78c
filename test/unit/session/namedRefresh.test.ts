/**
 * A refresh told which files changed (the hook server's watch names them): it looks at those
 * alone instead of a stat of every artifact file, and must still take every change they hold —
 * an edit, a new file, a deleted one — and list the whole folder again whenever a name may be a
 * folder (one that came holds files no event named).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers';
import { relisted, folderListing } from '../../../src/node/artifactFolder';
import { LedgerSession } from '../../../src/node/session';

async function ledgerWithNotes(count: number): Promise<{ dir: string; artifacts: string; session: LedgerSession; files: string[] }> {
  const dir = tempDir('ledger-named-refresh-');
  const session = await LedgerSession.open({ cwd: dir, create: true });
  for (let i = 0; i < count; i++) await session.write((s) => s.createArtifact({ type: 'note', title: `Note ${i} ünï`, body: `body ${i}` }));
  const artifacts = path.join(dir, '.context-ledger', 'artifacts');
  const files = (fs.readdirSync(artifacts, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(artifacts, f));
  return { dir, artifacts, session, files };
}

const bodies = (session: LedgerSession): Promise<string[]> => session.read((s) => s.listArtifacts({ status: 'active' }).map((a) => a.body).sort());

describe('a refresh told which files changed', () => {
  it('takes an edit, a new file and a deleted one from the named files alone', async () => {
    const { artifacts, session, files } = await ledgerWithNotes(3);
    await session.refresh();

    fs.appendFileSync(files[0]!, '\nA teammate’s line.\n');
    assert.equal(await session.refresh(new Set([files[0]!, path.join(path.dirname(artifacts), 'ledger.db')])), true);
    assert.ok((await bodies(session)).some((b) => b.includes('A teammate’s line.')), 'the edit is in the index');

    const fresh = path.join(artifacts, 'note', 'from-a-pull.md');
    fs.writeFileSync(fresh, '---\ntype: note\ntitle: From a pull\n---\nPulled body\n');
    fs.rmSync(files[1]!);
    assert.equal(await session.refresh(new Set([fresh, files[1]!])), true);
    const now = await bodies(session);
    assert.ok(now.includes('Pulled body'), 'the new file is an artifact');
    assert.ok(!now.includes('body 1'), 'the deleted file’s artifact is archived');
    assert.equal(now.length, 3);

    assert.equal(await session.refresh(new Set()), false, 'nothing named: nothing changed');
    session.close();
  });

  it('lists the whole folder when a folder came (its files were named by no event)', async () => {
    const { artifacts, session } = await ledgerWithNotes(2);
    await session.refresh();
    const folder = path.join(artifacts, 'decision');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'new-kind.md'), '---\ntype: decision\ntitle: In a new folder\n---\nFolder body\n');
    assert.equal(await session.refresh(new Set([folder])), true);
    assert.ok((await bodies(session)).includes('Folder body'));
    session.close();
  });

  it('gives the listing a walk gives, or none when it cannot tell', () => {
    const dir = tempDir('ledger-relisted-');
    fs.mkdirSync(path.join(dir, 'note'));
    for (const name of ['b.md', 'd.md']) fs.writeFileSync(path.join(dir, 'note', name), name);
    const before = folderListing(dir)!;
    fs.appendFileSync(path.join(dir, 'note', 'b.md'), 'more');
    fs.writeFileSync(path.join(dir, 'note', 'a.md'), 'new');
    fs.rmSync(path.join(dir, 'note', 'd.md'));
    fs.writeFileSync(path.join(dir, 'note', 'c.md.tmp-1-ab'), 'a writer’s temporary file');
    fs.writeFileSync(path.join(dir, 'note', 'notes.txt'), 'not an artifact file');
    const named = relisted(before, ['note/b.md', 'note/a.md', 'note/d.md', 'note/c.md.tmp-1-ab', 'note/notes.txt'])!;
    const walked = folderListing(dir)!;
    assert.equal(named.key, walked.key);
    assert.deepEqual(named.temps, walked.temps);
    assert.deepEqual([...named.stats.keys()], [...walked.stats.keys()]);

    fs.symlinkSync(path.join(dir, 'note', 'b.md'), path.join(dir, 'note', 'link.md'));
    assert.equal(relisted(before, ['note/link.md']), undefined, 'a link: a walk decides what it is');
    assert.equal(relisted(before, ['note']), undefined, 'a folder');
    assert.equal(relisted(before, ['gone-folder']), undefined, 'a name that is gone and was no artifact file may have been a folder');
    assert.equal(relisted(before, ['../outside.md']), undefined);
    assert.equal(relisted(before, ['node_modules/x.md']), undefined, 'a walk does not go there');
  });
});
