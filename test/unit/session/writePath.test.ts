/**
 * Issue 42, the one write path (LedgerSession.write over src/node/artifactFiles.ts), in
 * process on real files: a write writes exactly the files of the chains it changed, then the
 * index; a teammate's edit is imported and its writer told, never written over; links are
 * refused at the moment of writing; a damaged or deleted index is rebuilt from the files.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { UserError } from '../../../src/core/model';
import { LedgerSession } from '../../../src/node/session';
import { writeChainFiles } from '../../../src/node/artifactFiles';
import { FileChangedError } from '../../../src/node/artifactFolder';
import { tempDir } from '../helpers';

function workspace(): { dir: string; artifacts: string; open(): Promise<LedgerSession> } {
  const dir = tempDir('ledger-write-path-');
  const open = (): Promise<LedgerSession> => LedgerSession.open({ cwd: dir, create: true });
  return { dir, artifacts: path.join(dir, '.context-ledger', 'artifacts'), open };
}

const filesOf = (root: string): string[] => (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).sort();

describe('the one write path', () => {
  it('an add writes one file and leaves the others untouched; an update, a supersede and a delete touch exactly their files', async () => {
    const ws = workspace();
    const session = await ws.open();
    const a = await session.write((s) => s.createArtifact({ type: 'decision', title: 'Use SQLite — 日本', body: 'One file.' }));
    const b = await session.write((s) => s.createArtifact({ type: 'note', title: 'Deploy by hand', body: 'ssh.' }));
    assert.deepEqual(filesOf(ws.artifacts), ['decision/use-sqlite.md', 'note/deploy-by-hand.md']);
    const before = fs.statSync(path.join(ws.artifacts, 'decision/use-sqlite.md'));
    await session.write((s) => s.createArtifact({ type: 'learning', title: 'Retries need jitter', body: 'Full jitter.' }));
    assert.equal(fs.statSync(path.join(ws.artifacts, 'decision/use-sqlite.md')).mtimeMs, before.mtimeMs, 'an add rewrites no other file');

    await session.write((s) => s.updateArtifact(a.id, { body: 'One file, no server.' }));
    assert.match(fs.readFileSync(path.join(ws.artifacts, 'decision/use-sqlite.md'), 'utf8'), /One file, no server\./);
    await session.write((s) => s.supersedeWith(b.id, { type: 'note', title: 'Deploy with the pipeline', body: 'Merge to main.' }));
    assert.match(fs.readFileSync(path.join(ws.artifacts, 'note/deploy-by-hand.md'), 'utf8'), /status: "superseded"/);
    assert.ok(fs.existsSync(path.join(ws.artifacts, 'note/deploy-with-the-pipeline.md')));
    await session.write((s) => s.deleteArtifact(a.chainId));
    assert.ok(!fs.existsSync(path.join(ws.artifacts, 'decision/use-sqlite.md')), 'deleted for good: its file goes');
    // Nothing beside the index (and its delta) but the artifact files and the session's local record (docs/storage.md): no sync state, journal or backup.
    assert.deepEqual(fs.readdirSync(path.dirname(ws.artifacts)).sort().filter((f) => f !== 'ledger.db.delta'), ['.gitignore', 'artifacts', 'ledger.db', 'ledger.db.knowledge.json']);
    session.close();
  });

  it("a teammate's edit to the artifact being written is imported and the writer told, naming the file; other artifacts are written", async () => {
    const ws = workspace();
    const mine = await ws.open();
    const a = await mine.write((s) => s.createArtifact({ type: 'decision', title: 'Use SQLite', body: 'One file.' }));
    const other = await mine.write((s) => s.createArtifact({ type: 'note', title: 'Other', body: 'x' }));
    // A long-running session (an MCP server, the editor) read it; then a pull changed the file.
    await mine.read((s) => s.latestOfChain(a.chainId));
    const file = path.join(ws.artifacts, 'decision/use-sqlite.md');
    const theirs = fs.readFileSync(file, 'utf8').replace('One file.', 'Theirs: SQLite with WAL.');
    fs.writeFileSync(file, theirs);
    await assert.rejects(mine.write((s) => s.updateArtifact(a.chainId, { body: 'Mine: one writer.' })), (error: Error) => {
      assert.ok(error instanceof UserError);
      assert.match(error.message, /use-sqlite\.md was changed or deleted on disk/);
      return true;
    });
    assert.equal(fs.readFileSync(file, 'utf8'), theirs, 'not written over');
    assert.equal(await mine.read((s) => s.latestOfChain(a.chainId)?.body), 'Theirs: SQLite with WAL.', "the teammate's text is in the ledger");
    // Made again, knowing: written on top, theirs kept in the history.
    await mine.write((s) => s.updateArtifact(a.chainId, { body: 'Mine: one writer.' }));
    assert.deepEqual(await mine.read((s) => s.history(a.chainId).map((v) => v.body)), ['One file.', 'Theirs: SQLite with WAL.', 'Mine: one writer.']);
    await mine.write((s) => s.updateArtifact(other.chainId, { body: 'y' }));
    mine.close();
  });

  it('a file changed between the check and the write (no lock taken by an editor) is never overwritten', async () => {
    const ws = workspace();
    const session = await ws.open();
    const a = await session.write((s) => s.createArtifact({ type: 'note', title: 'Raced', body: 'v1' }));
    const file = path.join(ws.artifacts, 'note/raced.md');
    const store = session.store;
    store.updateArtifact(a.chainId, { body: 'v2 in memory' });
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('v1', 'edited by hand'));
    assert.throws(() => writeChainFiles(store, ws.artifacts, [a.chainId]), FileChangedError);
    assert.match(fs.readFileSync(file, 'utf8'), /edited by hand/);
    session.close();
  });

  it('a symbolic link at an artifact file or at the artifacts folder is refused when writing; the target keeps its bytes', async () => {
    const ws = workspace();
    const session = await ws.open();
    const a = await session.write((s) => s.createArtifact({ type: 'note', title: 'Linked', body: 'v1' }));
    const outside = path.join(tempDir('ledger-outside-'), 'precious.md');
    fs.writeFileSync(outside, 'keep me 🔒');
    const file = path.join(ws.artifacts, 'note/linked.md');
    fs.rmSync(file);
    fs.symlinkSync(outside, file);
    // The link is not the file the index read: the write is refused (as for any file changed on disk), never made through it.
    await assert.rejects(session.write((s) => s.updateArtifact(a.chainId, { body: 'v2' })), /symbolic link|linked\.md was changed or deleted on disk/);
    await assert.rejects(session.write((s) => s.updateArtifact(a.chainId, { body: 'v3' })), /symbolic link|is a link to outside/);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'keep me 🔒');
    assert.ok(fs.lstatSync(file).isSymbolicLink());
    session.close();

    const second = workspace();
    const s2 = await second.open();
    await s2.write((s) => s.createArtifact({ type: 'note', title: 'First', body: '1' }));
    const elsewhere = tempDir('ledger-elsewhere-');
    fs.rmSync(second.artifacts, { recursive: true });
    fs.symlinkSync(elsewhere, second.artifacts);
    await assert.rejects(s2.write((s) => s.createArtifact({ type: 'note', title: 'Second', body: '2' })), /symbolic link/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    s2.close();
  });

  it('a damaged index is moved aside and rebuilt from the files; a deleted one too: nothing shared is lost', async () => {
    const ws = workspace();
    const session = await ws.open();
    for (const title of ['Alpha — ü', 'Beta 日本', 'Gamma']) await session.write((s) => s.createArtifact({ type: 'note', title, body: `${title} body` }));
    session.close();
    const db = path.join(path.dirname(ws.artifacts), 'ledger.db');
    fs.writeFileSync(db, 'not a database'.repeat(20));
    const said: string[] = [];
    const reopened = await LedgerSession.open({ cwd: ws.dir, say: (t) => said.push(t) });
    assert.deepEqual(await reopened.read((s) => s.latestArtifacts().map((a) => a.title).sort()), ['Alpha — ü', 'Beta 日本', 'Gamma']);
    assert.match(said.join('\n'), /moved to .*corrupt-.*built from the artifact files/s);
    reopened.close();
    fs.rmSync(db);
    const fresh = await LedgerSession.open({ cwd: ws.dir });
    assert.equal(await fresh.read((s) => s.latestArtifacts().length), 3);
    fresh.close();
  });
});
