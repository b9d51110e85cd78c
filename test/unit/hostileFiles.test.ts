/**
 * Hostile files around the ledger, through the real CLI on real files: links a clone can ship
 * or a teammate can leave (a symlinked mirror folder, a dangling link in `inbox/rejected`, a
 * symlinked export folder, a hard link at the journal), locks no Context Ledger process wrote
 * (a folder, a live pid with a time in the future), and an import with one section the ledger
 * cannot take. Each is refused or skipped with a message naming it; nothing outside is written,
 * nothing good is lost, no stack trace.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { writeFileInside } from '../../src/node/files';
import { OutputFolder } from '../../src/node/outputFolder';
import { cli, jsonOf, tempDir } from './helpers';

function ledger(): { dir: string; outside: string; run: (args: string[]) => ReturnType<typeof cli> } {
  const dir = tempDir('ledger-hostile-files-');
  const outside = tempDir('ledger-outside-');
  assert.equal(cli(['init'], { cwd: dir }).code, 0);
  return { dir, outside, run: (args) => cli(args, { cwd: dir }) };
}

function listed(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
}

function noStackTrace(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at |unexpected error/i, stderr);
}

describe('links: nothing is written through one', () => {
  test('a symlinked .context-ledger/artifacts: the mirror is refused, naming the link; its target gets nothing', () => {
    const { dir, outside, run } = ledger();
    const mirror = path.join(dir, '.context-ledger', 'artifacts');
    fs.rmSync(mirror, { recursive: true, force: true });
    fs.symlinkSync(outside, mirror);
    const added = run(['add', '--type', 'note', '--title', 'Linked mirror', '--body', 'Where does this go?']);
    const synced = run(['sync']);
    for (const result of [added, synced]) noStackTrace(result.stderr);
    assert.notEqual(synced.code, 0);
    assert.match(added.stderr + synced.stderr, new RegExp(`${mirror.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*symbolic link`));
    assert.deepEqual(listed(outside), []);
  });

  test('a dangling symlink at inbox/rejected/<name>.error: the target is not created, the file stays in the inbox, the link is named', () => {
    const { dir, outside, run } = ledger();
    const inbox = path.join(dir, '.context-ledger', 'inbox');
    fs.mkdirSync(path.join(inbox, 'rejected'), { recursive: true });
    fs.writeFileSync(path.join(inbox, 'bad.json'), '{"type": "nonsense"}');
    const target = path.join(outside, 'created-by-ingest.txt');
    fs.symlinkSync(target, path.join(inbox, 'rejected', 'bad.json.error'));
    const result = run(['inbox', '--ingest']);
    noStackTrace(result.stderr);
    assert.equal(result.code, 1);
    assert.equal(fs.existsSync(target), false, 'the link was written through');
    assert.ok(fs.existsSync(path.join(inbox, 'bad.json')), 'the file stays for the next attempt');
    assert.match(result.stdout + result.stderr, /bad\.json\.error.*symbolic link/);
  });

  test('export --to agents --out <symlinked folder> is refused, naming the link', () => {
    const { dir, outside, run } = ledger();
    assert.equal(run(['add', '--type', 'convention', '--title', 'Tabs', '--body', 'Use tabs.']).code, 0);
    const out = path.join(dir, 'rules');
    fs.symlinkSync(outside, out);
    const result = run(['export', '--to', 'agents', '--out', out]);
    noStackTrace(result.stderr);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*symbolic link`));
    assert.deepEqual(listed(outside), []);
  });

  test('a hard link at ledger.db.journal: a logged build does not truncate or append to the file it shares', () => {
    const { dir, outside, run } = ledger();
    assert.equal(run(['add', '--type', 'convention', '--id', 'tabs', '--title', 'Tabs', '--body', 'Use tabs.']).code, 0);
    const journal = path.join(dir, '.context-ledger', 'ledger.db.journal');
    // Two builds: the first starts the journal over (it was for another database), the second appends.
    for (const state of ['stale', 'current']) {
      const precious = path.join(outside, `precious-${state}.txt`);
      if (state === 'current') {
        // A journal that applies, hard-linked: appending would write into the other name.
        assert.equal(run(['build', '--task-title', 'tabs']).code, 0);
        fs.copyFileSync(journal, precious);
        fs.rmSync(journal);
      } else {
        fs.writeFileSync(precious, 'my notes\n');
        fs.rmSync(journal, { force: true });
      }
      const before = fs.readFileSync(precious, 'utf8');
      fs.linkSync(precious, journal);
      const built = run(['build', '--task-title', 'tabs']);
      assert.equal(built.code, 0, built.stderr);
      assert.equal(fs.readFileSync(precious, 'utf8'), before, `${state}: the hard-linked file changed`);
    }
    assert.equal(jsonOf<Array<{ id: string }>>(run(['list', '--format', 'json'])).length, 1);
  });

  test('checked at the moment of writing: a folder that becomes a link after it was opened is refused', () => {
    const root = tempDir('ledger-out-');
    const outside = tempDir('ledger-outside-');
    const folder = new OutputFolder(path.join(root, 'rules'));
    folder.write('a.md', 'first');
    // Swapped for a link after the folder was opened (a checkout, another process).
    fs.rmSync(path.join(root, 'rules'), { recursive: true });
    fs.symlinkSync(outside, path.join(root, 'rules'));
    assert.throws(() => folder.write('b.md', 'second'), /rules.*symbolic link/);
    // A sub-folder swapped the same way, and a link at the file's own name.
    fs.rmSync(path.join(root, 'rules'));
    const again = new OutputFolder(path.join(root, 'rules'));
    fs.symlinkSync(outside, path.join(root, 'rules', 'sub'));
    assert.throws(() => again.write('sub/c.md', 'third'), /rules\/sub is a.*link/);
    fs.symlinkSync(path.join(outside, 'd.md'), path.join(root, 'rules', 'd.md'));
    assert.throws(() => writeFileInside(path.join(root, 'rules'), path.join(root, 'rules', 'd.md'), 'fourth'), /d\.md.*symbolic link/);
    assert.deepEqual(listed(outside), []);
  });

  test('a hard link at a written file is replaced, not written through', () => {
    const root = tempDir('ledger-out-');
    const outside = tempDir('ledger-outside-');
    fs.writeFileSync(path.join(outside, 'theirs.md'), 'theirs');
    fs.linkSync(path.join(outside, 'theirs.md'), path.join(root, 'mine.md'));
    writeFileInside(root, path.join(root, 'mine.md'), 'mine');
    assert.equal(fs.readFileSync(path.join(outside, 'theirs.md'), 'utf8'), 'theirs');
    assert.equal(fs.readFileSync(path.join(root, 'mine.md'), 'utf8'), 'mine');
  });
});

describe('locks no Context Ledger process wrote', () => {
  test('a folder at ledger.db.lock: a clear message within seconds, no stack trace', () => {
    const { dir, run } = ledger();
    const lock = path.join(dir, '.context-ledger', 'ledger.db.lock');
    fs.mkdirSync(lock);
    const started = performance.now();
    const result = run(['add', '--type', 'note', '--title', 'Blocked', '--body', 'By a folder.']);
    assert.ok(performance.now() - started < 5000, `took ${(performance.now() - started).toFixed(0)} ms`);
    assert.equal(result.code, 1);
    noStackTrace(result.stderr);
    assert.match(result.stderr, /ledger\.db\.lock is a folder/);
    assert.match(result.stderr, /rmdir/);
    fs.rmdirSync(lock);
    assert.equal(run(['add', '--type', 'note', '--title', 'Unblocked', '--body', 'Folder gone.']).code, 0);
  });

  test('a lock of a live process with a time in the future: a clear message within seconds, not a 15 s wait', () => {
    const { dir, run } = ledger();
    const lock = path.join(dir, '.context-ledger', 'ledger.db.lock');
    // This test's own process is alive; no Context Ledger writer ever dated a lock 2999.
    for (const at of ['2999-01-01T00:00:00.000Z', 'yesterday-ish']) {
      fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at, token: 'planted' }));
      const started = performance.now();
      const result = run(['add', '--type', 'note', '--title', 'Blocked', '--body', 'By a lock.']);
      assert.ok(performance.now() - started < 5000, `took ${(performance.now() - started).toFixed(0)} ms`);
      assert.equal(result.code, 1);
      noStackTrace(result.stderr);
      assert.match(result.stderr, new RegExp(`names process ${process.pid}.*(in the future|not a time)`, 's'));
      assert.match(result.stderr, /delete .*ledger\.db\.lock/);
    }
  });
});

describe('imports: one bad section costs only itself', () => {
  test('an AGENTS.md section over 4 MB is skipped with its reason; the ADR beside it and the other sections land; exit 1', () => {
    const { dir, run } = ledger();
    fs.mkdirSync(path.join(dir, 'docs', 'adr'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs', 'adr', '0001-use-postgres.md'), '# 1. Use Postgres\n\n## Status\n\nAccepted\n\n## Context\n\nWe need a database.\n\n## Decision\n\nPostgres.\n');
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), `# Agents\n\n## Small\n\nBe kind.\n\n## Huge\n\n${'word '.repeat(900_000)}\n\n## After\n\nStill here.\n`);
    const result = run(['import-folder', '.']);
    noStackTrace(result.stderr);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /AGENTS\.md "Agents: Huge": not imported: The body is 4\.3 MB; the limit is 4 MB/);
    assert.match(result.stderr, /1 section not imported \(AGENTS\.md "Agents: Huge"\); everything else was imported/);
    const titles = jsonOf<Array<{ title: string }>>(run(['list', '--format', 'json'])).map((a) => a.title).sort();
    assert.deepEqual(titles, ['ADR-0001: Use Postgres', 'Agents: After', 'Agents: Small']);
    // JSON says the same, with the same exit code.
    const json = run(['import-folder', '.', '--format', 'json']);
    assert.equal(json.code, 1);
    assert.match(json.stdout, /not imported: The body is 4\.3 MB/);
  });
});
