/**
 * A write mirrors the chains it changed and only those (src/node/mirrorSync.ts
 * `mirrorChains`), on a real sql.js ledger and real mirror files: what a teammate changed
 * on disk meanwhile is never overwritten, and the next sync keeps both sides.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LedgerFile } from '../../../src/node/ledgerFile';
import { mirrorConflicts } from '../../../src/node/mirrorState';
import { mirrorChains, syncMirror } from '../../../src/node/mirrorSync';
import { tempDir } from '../helpers';

async function workspaceLedger(): Promise<{ ledger: LedgerFile; mirror: string; write: LedgerFile['write'] }> {
  const folder = path.join(tempDir('ledger-mirror-chains-'), '.context-ledger');
  const ledger = await LedgerFile.open(path.join(folder, 'ledger.db'), { create: true, createFolder: true });
  return { ledger, mirror: path.join(folder, 'artifacts'), write: (fn, after) => ledger.write(fn, after) };
}

/** Runs a write and mirrors what it changed, as every CLI write does. */
async function writeAndMirror(ledger: LedgerFile, fn: Parameters<LedgerFile['write']>[0]): Promise<Awaited<ReturnType<typeof mirrorChains>>> {
  let chains: string[] = [];
  await ledger.write(async (store) => {
    store.takeChangedChains();
    await fn(store);
    chains = store.takeChangedChains();
  });
  return mirrorChains({ dbFile: ledger.file, chainIds: chains, write: (f, after) => ledger.write(f, after) });
}

const filesOf = (mirror: string): string[] => fs.readdirSync(mirror, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).sort();

describe('a write mirrors the chains it changed', () => {
  it('a ledger never synced asks for a whole sync; after it, an add writes one file and leaves the others as they were', async () => {
    const { ledger, mirror, write } = await workspaceLedger();
    try {
      const first = await writeAndMirror(ledger, (s) => void s.createArtifact({ type: 'note', title: 'First', body: 'one' }));
      assert.equal(first.needsSync, true, 'no sync has recorded this mirror: only a whole sync writes it');
      await syncMirror({ dbFile: ledger.file, write });
      const before = new Map(filesOf(mirror).map((f) => [f, fs.statSync(path.join(mirror, f)).mtimeMs]));
      const report = await writeAndMirror(ledger, (s) => void s.createArtifact({ type: 'decision', title: 'Ünïcode décision', body: 'two' }));
      assert.equal(report.needsSync, false);
      assert.equal(report.written.length, 1);
      assert.match(fs.readFileSync(path.join(mirror, report.written[0]!), 'utf8'), /Ünïcode décision[\s\S]*\ntwo\n$/);
      for (const [f, mtime] of before) assert.equal(fs.statSync(path.join(mirror, f)).mtimeMs, mtime, `${f} was not rewritten`);
    } finally {
      ledger.close();
    }
  });

  it('an edit, a supersede and a delete rewrite or remove exactly their files', async () => {
    const { ledger, mirror, write } = await workspaceLedger();
    try {
      const ids = await ledger.write((s) => ['a', 'b', 'c'].map((t) => s.createArtifact({ type: 'note', title: `Note ${t}`, body: t }).id));
      await syncMirror({ dbFile: ledger.file, write });
      const edited = await writeAndMirror(ledger, (s) => void s.updateArtifact(ids[0]!, { body: 'a, edited' }));
      assert.deepEqual(edited.written, ['note/note-a.md']);
      assert.match(fs.readFileSync(path.join(mirror, 'note/note-a.md'), 'utf8'), /a, edited/);
      const superseded = await writeAndMirror(ledger, (s) => void s.supersedeWith(ids[1]!, { type: 'note', title: 'Note b2', body: 'b replaced' }));
      assert.deepEqual(superseded.written.sort(), ['note/note-b.md', 'note/note-b2.md']);
      assert.match(fs.readFileSync(path.join(mirror, 'note/note-b.md'), 'utf8'), /status: "superseded"/);
      const deleted = await writeAndMirror(ledger, (s) => void s.deleteArtifact(ids[2]!));
      assert.deepEqual(deleted.removed, ['note/note-c.md']);
      assert.deepEqual(filesOf(mirror), ['note/note-a.md', 'note/note-b.md', 'note/note-b2.md']);
    } finally {
      ledger.close();
    }
  });

  it('a file a teammate changed on disk is not overwritten: the next sync keeps both sides as versions', async () => {
    const { ledger, mirror, write } = await workspaceLedger();
    try {
      const id = await ledger.write((s) => s.createArtifact({ type: 'note', title: 'Shared', body: 'original' }).id);
      await syncMirror({ dbFile: ledger.file, write });
      const file = path.join(mirror, 'note/shared.md');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('original', 'their edit'));
      const report = await writeAndMirror(ledger, (s) => void s.updateArtifact(id, { body: 'my edit' }));
      assert.equal(report.written.length, 0);
      assert.equal(report.deferred.length, 1);
      assert.match(fs.readFileSync(file, 'utf8'), /their edit/);
      const sync = await syncMirror({ dbFile: ledger.file, write, auto: true });
      assert.equal(sync.conflicts.length, 1);
      const bodies = ledger.read((s) => s.history(id).map((v) => v.body.trim()));
      assert.ok(bodies.includes('my edit') && bodies.includes('their edit'), bodies.join(' | '));
      assert.equal(mirrorConflicts(ledger.file).length, 1);
    } finally {
      ledger.close();
    }
  });

  it('a mirror folder deleted after a sync wrote it is left alone, not written again nor taken for deletions', async () => {
    const { ledger, mirror, write } = await workspaceLedger();
    try {
      await ledger.write((s) => s.createArtifact({ type: 'note', title: 'Kept', body: 'k' }));
      await syncMirror({ dbFile: ledger.file, write });
      fs.rmSync(mirror, { recursive: true });
      const report = await writeAndMirror(ledger, (s) => void s.createArtifact({ type: 'note', title: 'Later', body: 'l' }));
      assert.deepEqual(report, { written: [], removed: [], deferred: [], needsSync: false });
      assert.equal(fs.existsSync(mirror), false);
      assert.equal(ledger.read((s) => s.latestArtifacts().length), 2);
    } finally {
      ledger.close();
    }
  });
});
